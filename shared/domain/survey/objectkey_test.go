package survey

import "testing"

func TestObjectKeyRoundTrip(t *testing.T) {
	k := ObjectKey("ptn_1", "test", "s", "c")
	p, m, s, c, err := ParseObjectKey(k)
	if err != nil || p != "ptn_1" || m != "test" || s != "s" || c != "c" {
		t.Fatalf("ParseObjectKey(%q) = %q %q %q %q %v", k, p, m, s, c, err)
	}
	for _, bad := range []string{"", "clips/", "clips/a/b/c", "clips/a/b/c/d/e", "clips/a//c/d", "other/a/b/c/d", "clips/a/b/c/"} {
		if _, _, _, _, err := ParseObjectKey(bad); err == nil {
			t.Errorf("ParseObjectKey(%q) accepted", bad)
		}
	}
}

// FuzzParseObjectKey: whatever key an S3 event names, ParseObjectKey never
// panics, and what it accepts ObjectKey makes again.
func FuzzParseObjectKey(f *testing.F) {
	f.Add("clips/ptn_1/test/s/c")
	f.Add("clips//")
	f.Fuzz(func(t *testing.T, key string) {
		p, m, s, c, err := ParseObjectKey(key)
		if err == nil && ObjectKey(p, m, s, c) != key {
			t.Fatalf("ParseObjectKey(%q) round-trips to %q", key, ObjectKey(p, m, s, c))
		}
	})
}

func TestFinishKey(t *testing.T) {
	k := FinishKey("ptn_1", "test", "s-1")
	if k != "clips/ptn_1/test/s-1/finished" {
		t.Errorf("FinishKey = %q", k)
	}
	if p, m, s, ok := ParseFinishKey(k); !ok || p != "ptn_1" || m != "test" || s != "s-1" {
		t.Errorf("ParseFinishKey(%q) = %q %q %q %v", k, p, m, s, ok)
	}
	for _, other := range []string{
		ObjectKey("ptn_1", "test", "s-1", "9b2f1d2e-3c4b-4a5d-8e6f-7a8b9c0d1e2f"),
		FrameKey("ptn_1", "test", "s-1", "c", 0), "clips/ptn_1/test/finished", "clips/ptn_1/test/s-1/finished/x", "finished",
	} {
		if _, _, _, ok := ParseFinishKey(other); ok {
			t.Errorf("ParseFinishKey(%q) ok", other)
		}
	}
}
