package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
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

// TestIntroAndDocsAgree: the listener prints no secret, and says how a
// partner verifies deliveries in its own receiver; docs/WEBHOOKS.md says
// the same (it said the listener printed its signing secret).
func TestIntroAndDocsAgree(t *testing.T) {
	var out bytes.Buffer
	printIntro(&out, "http://127.0.0.1:4000/webhooks", "we_1", "ptn_1")
	for _, want := range []string{"we_1", "secrets are never printed", "opctl webhook add --partner ptn_1 --mode test", "docs/WEBHOOKS.md#verifying-the-signature"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the listener's intro lacks %q:\n%s", want, out.String())
		}
	}
	if strings.Contains(out.String(), "whsec_") {
		t.Errorf("the intro shows a secret:\n%s", out.String())
	}
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "WEBHOOKS.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, _ := strings.Cut(string(doc), "## Trying it locally")
	section, _, _ = strings.Cut(section, "\n## ")
	for _, want := range []string{"does not print its\nsigning secret", "opctl webhook add", "(#verifying-the-signature)"} {
		if !strings.Contains(section, want) {
			t.Errorf("docs/WEBHOOKS.md's Trying it locally lacks %q:\n%s", want, section)
		}
	}
	if strings.Contains(section, "endpoint id and signing secret") {
		t.Errorf("docs/WEBHOOKS.md still says the listener prints its signing secret:\n%s", section)
	}
}
