package childproc

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestReadyWhenOK(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/health" || r.Header.Get("Authorization") != "Bearer k" {
			w.WriteHeader(http.StatusUnauthorized)
		}
	}))
	defer srv.Close()
	ctx := context.Background()
	tests := []struct {
		name   string
		ready  func(context.Context, *http.Client, string) bool
		url    string
		expect bool
	}{
		{"200 with the header", ReadyWhenOK("/health", "Authorization", "Bearer k"), srv.URL, true},
		{"401 without it", ReadyWhenOK("/health"), srv.URL, false},
		{"other path", ReadyWhenOK("/other", "Authorization", "Bearer k"), srv.URL, false},
		{"nothing listening", ReadyWhenOK("/health"), "http://127.0.0.1:1", false},
	}
	for _, tt := range tests {
		if got := tt.ready(ctx, srv.Client(), tt.url); got != tt.expect {
			t.Errorf("%s: ready = %v; want %v", tt.name, got, tt.expect)
		}
	}
}

func TestStopOfNilProcess(t *testing.T) {
	var p *Process
	if err := p.Stop(); err != nil {
		t.Errorf("Stop of a nil Process = %v; want nil", err)
	}
}
