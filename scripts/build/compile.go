package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"

	"github.com/moveleads/partnerapi/shared/manifest"
)

// builder compiles functions of one module for one architecture.
type builder struct {
	root string // module root: go build runs here
	arch string
	log  io.Writer // receives each command line and compiler output
	mu   sync.Mutex
}

// result is one built and zipped function.
type result struct {
	slug      string
	binary    string
	binSize   int64
	zip       string
	zipSize   int64
	zipSHA256 string
}

// goBuildArgs returns the go build arguments that compile slug's function
// to binary. Every flag is there for Lambda: -trimpath drops local paths,
// -tags lambda.norpc leaves out aws-lambda-go's net/rpc (go1.x runtime
// only), -ldflags "-s -w" drops the symbol table and DWARF (about half the
// size).
func goBuildArgs(slug, binary string) []string {
	return []string{"build", "-trimpath", "-tags", "lambda.norpc", "-ldflags", "-s -w",
		"-o", binary, "./functions/" + slug}
}

// compile builds slug's function as binary with
// CGO_ENABLED=0 GOOS=linux GOARCH=<arch> go build ... (see goBuildArgs).
func (b *builder) compile(ctx context.Context, slug, binary string) error {
	if err := os.MkdirAll(filepath.Dir(binary), 0o755); err != nil {
		return err
	}
	// Inside the module the output path is given relative to it, so the
	// command printed is the one a developer would type.
	target := binary
	if rel, err := filepath.Rel(b.root, binary); err == nil && filepath.IsLocal(rel) {
		target = rel
	}
	args := goBuildArgs(slug, target)
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = b.root
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH="+b.arch)
	b.printf("CGO_ENABLED=0 GOOS=linux GOARCH=%s go %s\n", b.arch, quoteArgs(args))
	out, err := cmd.CombinedOutput()
	if len(out) > 0 {
		b.printf("%s", out)
	}
	if err != nil {
		return fmt.Errorf("compile %s: %w", slug, err)
	}
	return nil
}

// all compiles and zips routes' functions under out and returns their
// results in routes' order. The first function is built alone: the
// functions share nearly all their packages, and concurrent cold builds
// would each compile them (measured on 2 cores, cold cache: 36 s for all
// three at once, 22 s one after another). The rest, which then mostly
// link, are built at most jobs at a time. It stops starting new builds
// after the first failure and reports every failure.
func (b *builder) all(ctx context.Context, routes []manifest.Route, out string, jobs int) ([]result, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	results := make([]result, len(routes))
	errs := make([]error, len(routes))
	if len(routes) == 0 {
		return nil, nil
	}
	if results[0], errs[0] = b.one(ctx, routes[0].Slug, out); errs[0] != nil {
		return nil, errs[0]
	}
	sem := make(chan struct{}, jobs)
	var wg sync.WaitGroup
	for i, r := range routes {
		if i == 0 {
			continue
		}
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			if ctx.Err() != nil {
				return
			}
			results[i], errs[i] = b.one(ctx, r.Slug, out)
			if errs[i] != nil {
				cancel()
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return results, nil
}

// one compiles slug to out/<slug>/bootstrap and zips it as out/<slug>.zip.
func (b *builder) one(ctx context.Context, slug, out string) (result, error) {
	r := result{slug: slug, binary: filepath.Join(out, slug, "bootstrap"), zip: filepath.Join(out, slug+".zip")}
	if err := b.compile(ctx, slug, r.binary); err != nil {
		return r, err
	}
	fi, err := os.Stat(r.binary)
	if err != nil {
		return r, err
	}
	r.binSize = fi.Size()
	if r.zipSize, r.zipSHA256, err = writeZip(r.zip, r.binary); err != nil {
		return r, fmt.Errorf("zip %s: %w", slug, err)
	}
	return r, nil
}

func (b *builder) printf(format string, args ...any) {
	b.mu.Lock()
	defer b.mu.Unlock()
	fmt.Fprintf(b.log, format, args...)
}

// quoteArgs renders args as a shell would need them typed.
func quoteArgs(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		if strings.ContainsAny(a, " \t\"'") {
			a = `"` + a + `"`
		}
		q[i] = a
	}
	return strings.Join(q, " ")
}
