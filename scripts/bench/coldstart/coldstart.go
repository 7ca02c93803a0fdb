package coldstart

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"time"

	"github.com/moveleads/partnerapi/scripts/bench/report"
	"github.com/moveleads/partnerapi/shared/local/dynamolocal"
	"github.com/moveleads/partnerapi/shared/spec/manifest"

	"github.com/moveleads/partnerapi/shared/local/repo"
	"github.com/moveleads/partnerapi/shared/local/s3local"
	"github.com/moveleads/partnerapi/shared/local/stripelocal"
)

// Defaults of Options.
const (
	DefaultRuns    = 25
	DefaultWarmup  = 2
	DefaultTimeout = 30 * time.Second
)

// Options configure Run. The zero value measures 25 cold starts per binary
// against a DynamoDB Local, a MinIO and a stripe-mock that Run starts
// itself.
type Options struct {
	// Runs is how many cold starts of each binary are measured (default 25).
	Runs int
	// Warmup is how many rounds run first and are discarded (default 2;
	// negative for none).
	Warmup int
	// Endpoint is a running DynamoDB Local (http://127.0.0.1:PORT). Empty:
	// Run starts one and stops it when done.
	Endpoint string
	// S3 is a running MinIO, the clip bucket's stand-in. Nil: Run starts
	// one and stops it when done.
	S3 *s3local.Server
	// Stripe is a running stripe-mock, the Stripe API of the deposit
	// functions. Nil: Run starts one and stops it when done.
	Stripe *stripelocal.Server
	// Dir is the module root. Empty: the nearest go.mod at or above the
	// working directory.
	Dir string
	// Timeout bounds one cold start, exec to response (default 30 s).
	Timeout time.Duration
	// Log receives build commands and progress; nil discards them.
	Log io.Writer
	// Only, when not empty, measures the function with this slug alone
	// beside the baseline: the shape test's tiny input (make bench
	// measures every function).
	Only string
	// HostSizes reports the sizes of the host binaries instead of building
	// every binary again for arm64, so that one architecture is built
	// (the shape test's; make bench reports arm64 sizes).
	HostSizes bool
	// Functions, when not empty, are the slugs measured (with the
	// baseline): to compare a few functions' init quickly. Empty: all.
	Functions []string
}

func (o Options) withDefaults() Options {
	if o.Runs == 0 {
		o.Runs = DefaultRuns
	}
	switch {
	case o.Warmup == 0:
		o.Warmup = DefaultWarmup
	case o.Warmup < 0:
		o.Warmup = 0
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
	return o
}

// Run measures the cold start of every function of manifest.Functions and
// of the hello-world baseline, and returns the report rows (section "Cold
// start").
//
// It builds every binary twice into a temporary directory that it removes:
// for the host architecture to run, and for arm64 to report sizes; both
// with the release build (scripts/build). It seeds a fresh table on
// DynamoDB Local and a fresh clip bucket on MinIO (the deposit functions
// call stripe-mock as the Stripe API), then cold-starts the
// binaries Runs times each after the warm-up rounds, round-robin. A cold
// start is a fresh process with its own Runtime API on loopback and
// Lambda's environment; it is timed from just before exec to its first GET
// next (init) and to its POST response (first response) for one real
// event: an HTTP request, which must answer 200 (route-not-found: 404), or
// for the S3-triggered function an object-created event of a real clip,
// which must succeed and leave the clip decided playable.
//
// Any failure — a build, DynamoDB, MinIO, a function reporting an init or
// invocation error, exiting, an unexpected answer, a timeout — ends Run
// with an error and no rows. Rows that exceed a budget are returned with
// OK false and a Note; that is not an error. Run needs Linux (it executes
// linux binaries) on amd64 or arm64.
func Run(ctx context.Context, opts Options) ([]report.Row, error) {
	o := opts.withDefaults()
	if o.Runs < 1 {
		return nil, errors.New("coldstart: Runs must be at least 1")
	}
	if runtime.GOOS != "linux" {
		return nil, fmt.Errorf("coldstart: runs Lambda's linux binaries, so it needs linux, not %s", runtime.GOOS)
	}
	root := o.Dir
	if root == "" {
		var err error
		if root, err = repo.Root(); err != nil {
			return nil, err
		}
	}
	fns, err := selected(o.Functions)
	if err != nil {
		return nil, err
	}
	if o.Only != "" {
		f, ok := manifest.BySlug(o.Only)
		if !ok {
			return nil, fmt.Errorf("coldstart: Only %q: no such function", o.Only)
		}
		fns = []manifest.Function{f}
	}
	tmp, err := os.MkdirTemp("", "coldstart-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	host, sizes, zips, sizeArch, err := buildBinaries(ctx, root, tmp, o.Log, fns, o.Only, o.HostSizes)
	if err != nil {
		return nil, err
	}

	endpoint := o.Endpoint
	if endpoint == "" {
		srv, err := dynamolocal.Start(ctx)
		if err != nil {
			return nil, fmt.Errorf("coldstart: %w", err)
		}
		defer srv.Stop()
		endpoint = srv.Endpoint
	}
	s3srv := o.S3
	if s3srv == nil {
		if s3srv, err = s3local.Start(ctx); err != nil {
			return nil, fmt.Errorf("coldstart: %w", err)
		}
		defer s3srv.Stop()
	}
	stripeSrv := o.Stripe
	if stripeSrv == nil {
		if stripeSrv, err = stripelocal.Start(ctx); err != nil {
			return nil, fmt.Errorf("coldstart: %w", err)
		}
		defer stripeSrv.Stop()
	}
	fx, err := newFixture(ctx, endpoint, s3srv, stripeSrv.URL, root)
	if err != nil {
		return nil, err
	}
	defer fx.Close(context.WithoutCancel(ctx))

	var targets []target
	for _, fn := range fns {
		tg, err := fx.Target(fn, host[fn.Slug])
		if err != nil {
			return nil, err
		}
		targets = append(targets, tg)
	}
	// The baseline gets the variables every function gets, so that little
	// but the code differs.
	targets = append(targets, target{Name: helloWorld, Bin: host[helloWorld], Env: fx.Env(nil), Event: helloEvent})

	fmt.Fprintf(o.Log, "coldstart: %d binaries × (%d warm-up + %d measured) cold starts\n", len(targets), o.Warmup, o.Runs)
	samples, err := measureAll(ctx, targets, o.Runs, o.Warmup, o.Timeout, o.Log)
	if err != nil {
		return nil, fmt.Errorf("coldstart: %w", err)
	}
	var functions []result
	for i, fn := range fns {
		functions = append(functions, result{name: fn.Slug, samples: samples[i], size: sizes[fn.Slug], zipSize: zips[fn.Slug]})
	}
	hello := result{name: helloWorld, samples: samples[len(targets)-1], size: sizes[helloWorld]}
	return rows(hello, functions, sizeArch), nil
}

// selected returns the functions of manifest.Functions that slugs name,
// in the manifest's order, or all of them when slugs is empty; an unknown
// slug is an error.
func selected(slugs []string) ([]manifest.Function, error) {
	if len(slugs) == 0 {
		return manifest.Functions, nil
	}
	var out []manifest.Function
	for _, s := range slugs {
		if _, ok := manifest.BySlug(s); !ok {
			return nil, fmt.Errorf("coldstart: no function %q in the manifest", s)
		}
	}
	for _, f := range manifest.Functions {
		if slices.Contains(slugs, f.Slug) {
			out = append(out, f)
		}
	}
	return out, nil
}

// buildBinaries builds the baseline and fns (all of the manifest's, or
// the one named only) under dir for the host architecture, to run, and
// for arm64 (once, when that is the host's, or not at all with hostSizes),
// to report sizes. It returns the host binaries, the sizes and the
// functions' zip sizes (scripts/build's zips; the baseline has none), by
// name, and the architecture of those sizes.
func buildBinaries(ctx context.Context, root, dir string, log io.Writer, fns []manifest.Function, only string, hostSizes bool) (host map[string]string, sizes, zips map[string]int64, sizeArch string, err error) {
	host, err = buildAll(ctx, root, runtime.GOARCH, filepath.Join(dir, runtime.GOARCH), log, fns, only)
	if err != nil {
		return nil, nil, nil, "", err
	}
	release, sizeArch := host, runtime.GOARCH
	if runtime.GOARCH != "arm64" && !hostSizes {
		if release, err = buildAll(ctx, root, "arm64", filepath.Join(dir, "arm64"), log, fns, only); err != nil {
			return nil, nil, nil, "", err
		}
		sizeArch = "arm64"
	}
	sizes, zips = map[string]int64{}, map[string]int64{}
	for name, bin := range release {
		fi, err := os.Stat(bin)
		if err != nil {
			return nil, nil, nil, "", err
		}
		sizes[name] = fi.Size()
		if name == helloWorld {
			continue
		}
		// scripts/build writes <out>/<slug>/bootstrap and <out>/<slug>.zip.
		zi, err := os.Stat(filepath.Dir(bin) + ".zip")
		if err != nil {
			return nil, nil, nil, "", fmt.Errorf("zip of %s: %w", name, err)
		}
		zips[name] = zi.Size()
	}
	return host, sizes, zips, sizeArch, nil
}
