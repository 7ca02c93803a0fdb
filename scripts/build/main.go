// Command build is `make build`: it cross-compiles every Lambda function of
// the manifest (manifest.Functions, built from functions/<slug>) for
// Lambda's provided.al2023 runtime and packages each as a deployable zip.
//
//	go run ./scripts/build                 # every function → build/<slug>/bootstrap + build/<slug>.zip
//	go run ./scripts/build -only v1-leads  # one function
//	go run ./scripts/build -arch amd64     # x86_64 instead of arm64 (Graviton)
//
// Each function is compiled with exactly
//
//	CGO_ENABLED=0 GOOS=linux GOARCH=<arch> go build -trimpath -tags <tags> -ldflags "-s -w" -o <out>/<slug>/bootstrap ./functions/<slug>
//
// where <tags> is lambdafn.BuildTags (lambda.norpc). Each is zipped with one entry, bootstrap, executable (mode 0755) and with a
// fixed timestamp, so the same binary always gives the same zip. It then
// prints each function's binary and zip size.
//
// SAM mode builds one function's bootstrap straight into a directory, no
// zip, for SAM's makefile builder (template.yaml, `make build-<LogicalId>`):
//
//	go run ./scripts/build -sam-logical-id V1LeadsFunction -out "$ARTIFACTS_DIR"
//
// The list of functions is manifest.Functions; the build fails when
// functions/ holds a folder that is not a function of the manifest or a
// function has no folder.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/moveleads/partnerapi/scripts/build/lambdafn"
	"github.com/moveleads/partnerapi/shared/spec/manifest"

	"github.com/moveleads/partnerapi/shared/local/repo"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "build:", err)
		os.Exit(1)
	}
}

// config is what the flags ask for.
type config struct {
	arch  string
	out   string
	only  string
	samID string
	jobs  int
	fns   []manifest.Function // the functions to build
}

// archs are the instruction sets Lambda runs (GOARCH names).
var archs = []string{"arm64", "amd64"}

func parseFlags(args []string, stderr io.Writer) (config, error) {
	var c config
	fs := flag.NewFlagSet("build", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&c.arch, "arch", "arm64", "GOARCH to build for: arm64 (Graviton, as deployed) or amd64")
	fs.StringVar(&c.out, "out", "build", "output directory (in SAM mode: the directory that receives bootstrap)")
	fs.StringVar(&c.only, "only", "", "build only the function with this slug, e.g. v1-leads")
	fs.StringVar(&c.samID, "sam-logical-id", "", "SAM mode: build only this function (e.g. V1LeadsFunction) as <out>/bootstrap, without zip")
	fs.IntVar(&c.jobs, "j", runtime.NumCPU(), "how many functions to compile at once")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if fs.NArg() > 0 {
		return c, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if !slices.Contains(archs, c.arch) {
		return c, fmt.Errorf("-arch %q: Lambda runs %s", c.arch, strings.Join(archs, " or "))
	}
	if c.out == "" {
		return c, errors.New("-out is empty (in SAM mode, is ARTIFACTS_DIR set?)")
	}
	if c.jobs < 1 {
		c.jobs = 1
	}
	switch {
	case c.only != "" && c.samID != "":
		return c, errors.New("-only and -sam-logical-id exclude each other")
	case c.only != "":
		f, ok := manifest.BySlug(c.only)
		if !ok {
			return c, fmt.Errorf("-only %q: no such function (known: %s)", c.only,
				strings.Join(lambdafn.Slugs(manifest.Functions), ", "))
		}
		c.fns = []manifest.Function{f}
	case c.samID != "":
		f, ok := lambdafn.ByLogicalID(manifest.Functions, c.samID)
		if !ok {
			return c, fmt.Errorf("-sam-logical-id %q: no such function (known: %s)",
				c.samID, strings.Join(lambdafn.LogicalIDs(manifest.Functions), ", "))
		}
		c.fns = []manifest.Function{f}
	default:
		c.fns = manifest.Functions
	}
	return c, nil
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	c, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	root, err := repo.Root()
	if err != nil {
		return err
	}
	if err := lambdafn.CheckFolders(filepath.Join(root, "functions"), manifest.Functions); err != nil {
		return err
	}
	out, err := filepath.Abs(c.out)
	if err != nil {
		return err
	}
	b := builder{root: root, arch: c.arch, log: stderr}
	if c.samID != "" {
		// SAM's makefile builder collects whatever lands in ARTIFACTS_DIR.
		return b.compile(ctx, c.fns[0], filepath.Join(out, "bootstrap"))
	}
	results, err := b.all(ctx, c.fns, out, c.jobs)
	if err != nil {
		return err
	}
	report(stdout, c.arch, out, results)
	return nil
}
