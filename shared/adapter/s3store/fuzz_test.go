package s3store

import (
	"bufio"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

// FuzzParseContentRange: any header value either fails or yields a range
// inside its total that formats back to an equivalent header.
func FuzzParseContentRange(f *testing.F) {
	for _, s := range []string{"bytes 0-99/1000", "bytes 990-999/1000", "bytes 0-0/1", "bytes */1000", "bytes 5-4/10", "bytes 0-9/10 ", "bytes -1-9/10", "bytes 00-09/010", "bytes 0-9223372036854775807/9223372036854775807"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		first, last, total, err := parseContentRange(s)
		if err != nil {
			return
		}
		if first < 0 || first > last || last >= total {
			t.Fatalf("parseContentRange(%q) = %d, %d, %d; want 0 <= first <= last < total", s, first, last, total)
		}
		again := fmt.Sprintf("bytes %d-%d/%d", first, last, total)
		f2, l2, t2, err := parseContentRange(again)
		if err != nil || f2 != first || l2 != last || t2 != total {
			t.Fatalf("parseContentRange(%q) = %d, %d, %d, %v; want %d, %d, %d as from %q", again, f2, l2, t2, err, first, last, total, s)
		}
	})
}

// FuzzCheckUpload: a content type PresignUpload accepts reaches S3 as the
// very value signed, through an HTTP/1.1 request written and read back;
// anything refused is ErrInvalid.
func FuzzCheckUpload(f *testing.F) {
	for _, ct := range []string{"video/webm", "video/webm;codecs=vp8,opus", `video/mp4; codecs="avc1.42E01E, mp4a.40.2"`, "webm", "video/mp4\r\nX: 1", " video/mp4", "vidéo/mp4", "video/", "/mp4", "a/b;"} {
		f.Add("surveys/s1/c1.webm", ct, int64(1000), int64(time.Minute))
	}
	f.Fuzz(func(t *testing.T, key, ct string, size, ttl int64) {
		err := checkUpload(key, ct, size, time.Duration(ttl))
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("checkUpload = %v; want ErrInvalid", err)
			}
			return
		}
		req, err := http.NewRequest(http.MethodPut, "http://127.0.0.1/b/k", strings.NewReader("x"))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", ct)
		var wire strings.Builder
		if err := req.Write(&wire); err != nil {
			t.Fatalf("write request with Content-Type %q: %v", ct, err)
		}
		back, err := http.ReadRequest(bufio.NewReader(strings.NewReader(wire.String())))
		if err != nil {
			t.Fatalf("read back request with Content-Type %q: %v", ct, err)
		}
		if got := back.Header.Values("Content-Type"); len(got) != 1 || got[0] != ct {
			t.Fatalf("Content-Type %q arrived as %q", ct, got)
		}
	})
}
