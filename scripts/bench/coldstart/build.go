package coldstart

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/moveleads/partnerapi/scripts/build/lambdafn"
	"github.com/moveleads/partnerapi/shared/spec/manifest"
)

// helloWorld names the baseline: an aws-lambda-go function that returns a
// fixed response (package hello beside this one).
const helloWorld = "hello-world"

// helloPackage is the baseline's package, relative to the module root.
const helloPackage = "./scripts/bench/coldstart/hello"

// baselineFlags are the go build flags of the baseline: those of a
// release build (lambdafn.BuildFlags) of a function without secrets, which
// is what the hello-world function is. The functions themselves are built
// by scripts/build, with their own flags; buildAll checks that it still
// uses lambdafn's.
var baselineFlags = lambdafn.BuildFlags(manifest.Function{})

// buildAll builds fns for linux/arch with the release build (go run
// ./scripts/build -arch arch -out out, with -only only when that is set:
// fns is then that one function) and the
// hello-world baseline with baselineFlags, and returns each one's
// bootstrap by name (slug or helloWorld). Commands and compiler output go
// to log.
func buildAll(ctx context.Context, root, arch, out string, log io.Writer, fns []manifest.Function, only string) (map[string]string, error) {
	var stderr bytes.Buffer
	args := []string{"run", "./scripts/build", "-arch", arch, "-out", out}
	if only != "" {
		args = append(args, "-only", only)
	}
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = root
	cmd.Stdout = log
	cmd.Stderr = io.MultiWriter(&stderr, log)
	fmt.Fprintf(log, "coldstart: go %s\n", strings.Join(args, " "))
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("release build (%s): %w\n%s", arch, err, stderr.String())
	}
	// scripts/build builds every function unless only names one; the
	// measured set (fns) may be a part of them (-functions).
	built := manifest.Functions
	if only != "" {
		built = fns
	}
	if err := checkReleaseFlags(stderr.String(), arch, built); err != nil {
		return nil, err
	}
	bins := map[string]string{}
	for _, f := range fns {
		bin := filepath.Join(out, f.Slug, "bootstrap")
		if _, err := os.Stat(bin); err != nil {
			return nil, fmt.Errorf("release build (%s) did not produce %s: %w", arch, bin, err)
		}
		bins[f.Slug] = bin
	}
	hello := filepath.Join(out, helloWorld, "bootstrap")
	if err := goBuild(ctx, root, arch, hello, helloPackage, log); err != nil {
		return nil, err
	}
	bins[helloWorld] = hello
	return bins, nil
}

// goBuild compiles pkg to binary as the release build compiles a function
// without secrets: CGO_ENABLED=0 GOOS=linux GOARCH=arch go build
// <baselineFlags>.
func goBuild(ctx context.Context, root, arch, binary, pkg string, log io.Writer) error {
	args := append(append([]string{"build"}, baselineFlags...), "-o", binary, pkg)
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

// checkReleaseFlags fails unless scripts/build printed (to stderr) exactly
// one go build per function of fns, each with that function's
// lambdafn.BuildFlags for arch: the functions are measured as released,
// and the baseline is built with the same rule.
func checkReleaseFlags(buildLog, arch string, fns []manifest.Function) error {
	seen := map[string]bool{}
	for line := range strings.Lines(buildLog) {
		if !strings.Contains(line, " go build ") {
			continue
		}
		line = strings.TrimSpace(line)
		fields := strings.Fields(line)
		pkg := fields[len(fields)-1]
		i := slices.IndexFunc(fns, func(f manifest.Function) bool { return lambdafn.Package(f.Slug) == pkg })
		if i < 0 {
			return fmt.Errorf("scripts/build ran %q, which builds no function of the manifest", line)
		}
		f := fns[i]
		want := commandLine(arch, append([]string{"build"}, lambdafn.BuildFlags(f)...)) + " -o "
		if !strings.HasPrefix(line, want) {
			return fmt.Errorf("scripts/build ran %q; want %q… (lambdafn.BuildFlags of %s)", line, want, f.Slug)
		}
		if seen[f.Slug] {
			return fmt.Errorf("scripts/build built %s twice", f.Slug)
		}
		seen[f.Slug] = true
	}
	for _, f := range fns {
		if !seen[f.Slug] {
			return fmt.Errorf("scripts/build printed no go build of %s: cannot check that it is built as released", f.Slug)
		}
	}
	return nil
}
