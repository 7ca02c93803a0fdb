package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// TestRunNeedsMakeDev: without a running make dev the listener says so
// and registers nothing; a bad flag is refused.
func TestRunNeedsMakeDev(t *testing.T) {
	t.Chdir(t.TempDir()) // outside the checkout: no .local/dev.json
	var out bytes.Buffer
	err := run(context.Background(), nil, &out)
	if err == nil || !strings.Contains(err.Error(), "make dev") {
		t.Errorf("run without make dev = %v; want an error naming make dev", err)
	}
	if err := run(context.Background(), []string{"--port", "x"}, &out); err == nil {
		t.Error("--port x accepted")
	}
}
