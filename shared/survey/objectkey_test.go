package survey

import (
	"testing"

	"github.com/moveleads/partnerapi/shared/manifest"
)

func TestObjectKeyRoundTrip(t *testing.T) {
	if objectPrefix != manifest.ClipPrefix {
		t.Fatalf("objectPrefix %q != manifest.ClipPrefix %q", objectPrefix, manifest.ClipPrefix)
	}
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
