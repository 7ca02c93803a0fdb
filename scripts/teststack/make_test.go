package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/moveleads/partnerapi/shared/local/repo"
)

// TestMakeTestPhases reads what `make test` would run (make -n): vet,
// staticcheck (pinned) on both modules and the CDK app's tests, beside go
// test through teststack with the race detector's exit sleep and its own
// vet pass off, each phase printing its time (.ci/run shows them).
func TestMakeTestPhases(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("make not on PATH")
	}
	root, err := repo.Root()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("make", "-n", "--no-print-directory", "test")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("make -n test: %v", err)
	}
	script := string(out)
	for _, want := range []string{
		"scripts/bootstrap.sh",
		"go vet ./...",
		"sc=$(scripts/install-staticcheck.sh) && $sc ./... && (cd infra && $sc ./...)",
		"cd infra && go vet ./... && go test -count=1 ./...",
		// make dev's tests run make: without this make's jobserver, which they cannot reach.
		"env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL GORACE=atexit_sleep_ms=0 GO=go go run ./scripts/teststack -race -count=1 -vet=off -ldflags=-w -p 3 ./...",
	} {
		if !strings.Contains(script, want) {
			t.Errorf("make test does not run %q:\n%s", want, script)
		}
	}
	// go test skips its own vet pass (a subset of go vet's checks, run on
	// every package again) only because make test runs the full go vet
	// too, beside it; -k so that every phase reports when one fails.
	if !strings.Contains(script, "-j2 -k --output-sync=line test-go checks") {
		t.Errorf("make test does not run go test beside the static checks, every phase to the end:\n%s", script)
	}
	for _, phase := range []string{"deps", "vet", "lint", "test-infra", "test-go"} {
		if !strings.Contains(script, `echo "make `+phase+`: `) {
			t.Errorf("make test does not print the time of %s:\n%s", phase, script)
		}
	}
}

// TestMakefileStatesNoFuzzTargetCount: the fuzz targets come and go, so
// the Makefile's help and comments must not state how many there are (it
// said 24 when there were 59); make fuzz counts them when it runs.
func TestMakefileStatesNoFuzzTargetCount(t *testing.T) {
	root, err := repo.Root()
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	count := regexp.MustCompile(`(?i)\b\d+ (fuzz )?targets\b|~\d+ min for \d+`)
	for i, line := range strings.Split(string(b), "\n") {
		if m := count.FindString(line); m != "" {
			t.Errorf("Makefile:%d states a number of fuzz targets (%q): %s", i+1, m, line)
		}
	}
}
