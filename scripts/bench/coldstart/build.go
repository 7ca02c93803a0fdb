package coldstart

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/moveleads/partnerapi/shared/manifest"
)

// helloWorld names the baseline: an aws-lambda-go function that returns a
// fixed response (package hello beside this one).
const helloWorld = "hello-world"

// helloPackage is the baseline's package, relative to the module root.
const helloPackage = "./scripts/bench/coldstart/hello"

// releaseFlags are the go build flags of the release build (scripts/build,
// which `make build` runs), with CGO_ENABLED=0 GOOS=linux. The functions
// are built by scripts/build itself; the baseline, which scripts/build does
// not know, is built with these, and buildAll checks that scripts/build
// still uses them.
var releaseFlags = []string{"-trimpath", "-tags", "lambda.norpc", "-ldflags", "-s -w"}

// buildAll builds every function of route.Table for linux/arch with the
// release build (go run ./scripts/build -arch arch -out out) and the
// hello-world baseline with the same flags, and returns each one's
// bootstrap by name (slug or helloWorld). Commands and compiler output go
// to log.
func buildAll(ctx context.Context, root, arch, out string, log io.Writer) (map[string]string, error) {
	var stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, "go", "run", "./scripts/build", "-arch", arch, "-out", out)
	cmd.Dir = root
	cmd.Stdout = log
	cmd.Stderr = io.MultiWriter(&stderr, log)
	fmt.Fprintf(log, "coldstart: go run ./scripts/build -arch %s -out %s\n", arch, out)
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("release build (%s): %w\n%s", arch, err, stderr.String())
	}
	if err := checkReleaseFlags(stderr.String(), arch); err != nil {
		return nil, err
	}
	bins := map[string]string{}
	for _, r := range route.Table {
		bin := filepath.Join(out, r.Slug, "bootstrap")
		if _, err := os.Stat(bin); err != nil {
			return nil, fmt.Errorf("release build (%s) did not produce %s: %w", arch, bin, err)
		}
		bins[r.Slug] = bin
	}
	hello := filepath.Join(out, helloWorld, "bootstrap")
	if err := goBuild(ctx, root, arch, hello, helloPackage, log); err != nil {
		return nil, err
	}
	bins[helloWorld] = hello
	return bins, nil
}

// goBuild compiles pkg to binary exactly as the release build compiles a
// function: CGO_ENABLED=0 GOOS=linux GOARCH=arch go build <releaseFlags>.
func goBuild(ctx context.Context, root, arch, binary, pkg string, log io.Writer) error {
	args := append(append([]string{"build"}, releaseFlags...), "-o", binary, pkg)
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH="+arch)
	fmt.Fprintf(log, "%s\n", commandLine(arch, args))
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("build %s (%s): %w\n%s", pkg, arch, err, out)
	}
	return nil
}

// commandLine renders a go build as scripts/build prints it.
func commandLine(arch string, args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		if strings.ContainsAny(a, " \t\"'") {
			a = `"` + a + `"`
		}
		q[i] = a
	}
	return fmt.Sprintf("CGO_ENABLED=0 GOOS=linux GOARCH=%s go %s", arch, strings.Join(q, " "))
}

// checkReleaseFlags fails unless every go build that scripts/build printed
// (to stderr) used releaseFlags, so that the baseline is built as the
// functions are.
func checkReleaseFlags(buildLog, arch string) error {
	want := commandLine(arch, append([]string{"build"}, releaseFlags...)) + " -o "
	var seen int
	for line := range strings.Lines(buildLog) {
		if !strings.Contains(line, " go build ") {
			continue
		}
		seen++
		if !strings.HasPrefix(line, want) {
			return fmt.Errorf("scripts/build ran %q, but the hello-world baseline is built with %q…: update releaseFlags in scripts/bench/coldstart",
				strings.TrimSpace(line), want)
		}
	}
	if seen == 0 {
		return errors.New("scripts/build printed no go build command: cannot check that the hello-world baseline is built the same way")
	}
	return nil
}
