package childproc

import "testing"

func TestTailKeepsTheEnd(t *testing.T) {
	b := NewTail(4)
	for _, s := range []string{"ab", "cdef", "g"} {
		if n, err := b.Write([]byte(s)); n != len(s) || err != nil {
			t.Fatalf("Write(%q) = %d, %v", s, n, err)
		}
	}
	if got := b.String(); got != "defg" {
		t.Errorf("got %q; want %q", got, "defg")
	}
}
