package faultproxy

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestFaults sends requests through a proxy to a plain server: each kind
// of fault is what the client sees, and what is not failed is forwarded
// with the Host the client sent.
func TestFaults(t *testing.T) {
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "host="+r.Host+" path="+r.URL.Path)
	}))
	t.Cleanup(backend.Close)
	plain := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}

	t.Run("status then forward", func(t *testing.T) {
		p, url := Start(t, backend.URL, FirstN(1, Fault{Status: 503, Header: http.Header{"Retry-After": {"0"}}, Body: "<Error/>"}))
		for i, want := range []string{"503 <Error/>", "200 host=" + strings.TrimPrefix(url, "http://") + " path=/b/k"} {
			resp, err := plain.Get(url + "/b/k")
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if got := resp.Status[:3] + " " + string(body); got != want {
				t.Errorf("request %d: got %q; want %q", i+1, got, want)
			}
			if i == 0 && resp.Header.Get("Retry-After") != "0" {
				t.Errorf("request 1: Retry-After = %q; want 0", resp.Header.Get("Retry-After"))
			}
		}
		if p.Requests() != 2 {
			t.Errorf("Requests() = %d; want 2", p.Requests())
		}
	})
	t.Run("reset", func(t *testing.T) {
		_, url := Start(t, backend.URL, FirstN(1, Fault{Reset: true}))
		_, err := plain.Get(url)
		if !errors.Is(err, syscall.ECONNRESET) && !errors.Is(err, io.EOF) {
			t.Errorf("GET = %v; want a connection reset", err)
		}
	})
	t.Run("stall", func(t *testing.T) {
		_, url := Start(t, backend.URL, FirstN(1, Fault{Stall: true}))
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if _, err := plain.Do(req); !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("GET = %v; want the client's deadline", err)
		}
	})
}
