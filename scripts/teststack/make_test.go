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

// TestBuildCacheIsSharedBetweenClones: every go command make runs gets
// -trimpath (GOFLAGS), so that a clone at another path (CI's) finds the
// packages its build cache already holds, and staticcheck, whose cache keys
// are Go's build IDs, its analyses. Without it the build ID of the same
// package differs between two directories, which the second half shows on
// a two-file module copied into two places.
func TestBuildCacheIsSharedBetweenClones(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("make not on PATH")
	}
	root, err := repo.Root()
	if err != nil {
		t.Fatal(err)
	}
	// The environment make's recipes see: the Makefile plus a rule from stdin.
	cmd := exec.Command("make", "-s", "--no-print-directory", "-f", "Makefile", "-f", "-", "print-goflags")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=readonly")
	cmd.Stdin = strings.NewReader("print-goflags:\n\t@echo \"$$GOFLAGS\"\n")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("make print-goflags: %v", err)
	}
	goflags := strings.TrimSpace(string(out))
	if goflags != "-mod=readonly -trimpath" {
		t.Fatalf("make's recipes see GOFLAGS=%q, want the caller's flags and -trimpath (%q)", goflags, "-mod=readonly -trimpath")
	}

	buildID := func(dir, flags string) string {
		t.Helper()
		list := exec.Command("go", "list", "-export", "-f", "{{.Export}}", ".")
		list.Dir = dir
		list.Env = append(os.Environ(), "GOFLAGS="+flags, "GOWORK=off")
		export, err := list.Output()
		if err != nil {
			t.Fatalf("go list -export in %s: %v", dir, err)
		}
		id, err := exec.Command("go", "tool", "buildid", strings.TrimSpace(string(export))).Output()
		if err != nil {
			t.Fatalf("go tool buildid: %v", err)
		}
		return strings.TrimSpace(string(id))
	}
	var dirs [2]string
	for i := range dirs {
		dirs[i] = t.TempDir()
		for name, body := range map[string]string{
			"go.mod": "module example.com/clone\n\ngo 1.22\n",
			"a.go":   "package clone\n\n// A is here so that the package compiles to something.\nfunc A() int { return 1 }\n",
		} {
			if err := os.WriteFile(filepath.Join(dirs[i], name), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	if a, b := buildID(dirs[0], goflags), buildID(dirs[1], goflags); a != b {
		t.Errorf("with GOFLAGS=%q one package in two directories has two build IDs (%s, %s): a second clone compiles everything again", goflags, a, b)
	}
	if a, b := buildID(dirs[0], "-mod=readonly"), buildID(dirs[1], "-mod=readonly"); a == b {
		t.Errorf("without -trimpath the build IDs of two directories agree (%s): this test no longer shows why -trimpath is there", a)
	}
}
