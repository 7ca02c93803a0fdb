package presign

import (
	"context"
	"net/url"
	"strings"
	"testing"
	"time"
)

func benchCase(b *testing.B, prefix string) {
	for _, c := range Cases() {
		if strings.HasPrefix(c.Name, prefix) {
			s, err := NewStore()
			if err != nil {
				b.Fatal(err)
			}
			Bench(b, s, c)
			return
		}
	}
	b.Fatalf("no case %q", prefix)
}

func BenchmarkPresignUpload(b *testing.B) { benchCase(b, "PresignUpload") }
func BenchmarkPresignGet(b *testing.B)    { benchCase(b, "PresignGet") }

// TestStoreSignsAsDeployed: the store signs for the regional AWS endpoint
// with the session token, as a function in Lambda does, so the benchmark
// measures that signature.
func TestStoreSignsAsDeployed(t *testing.T) {
	s, err := NewStore()
	if err != nil {
		t.Fatal(err)
	}
	up, err := s.PresignUpload(context.Background(), key, "video/webm", 5<<20, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(up.URL)
	if err != nil {
		t.Fatal(err)
	}
	if u.Scheme != "https" || !strings.HasSuffix(u.Host, ".amazonaws.com") || u.Query().Get("X-Amz-Security-Token") == "" {
		t.Errorf("presigned %s; want an https amazonaws.com URL with X-Amz-Security-Token", up.URL)
	}
}

func TestRunReportsEveryCase(t *testing.T) {
	rows, err := Run()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != len(Cases()) {
		t.Fatalf("%d rows; want %d", len(rows), len(Cases()))
	}
	for _, r := range rows {
		if r.Section != Section || !strings.Contains(r.Value, "allocs/op") {
			t.Errorf("row %+v", r)
		}
	}
}
