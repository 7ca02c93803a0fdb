// Command bench is `make bench`: it measures cold starts, DynamoDB cost per
// operation, clip validation over S3, video links (mint, open of a live
// link and of an unknown token), behaviour under load, the
// handlers' own overhead and presigning, prints one table of metric, value, budget
// and verdict, and writes it with the machine's description to
// docs/BENCHMARKS.md (never edit that file by hand). Everything runs on
// this machine against DynamoDB Local and MinIO on loopback; the run is
// bounded (about three minutes here, 15 at most).
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"time"

	"github.com/moveleads/partnerapi/scripts/bench/clipprobe"
	"github.com/moveleads/partnerapi/scripts/bench/coldstart"
	"github.com/moveleads/partnerapi/scripts/bench/cost"
	"github.com/moveleads/partnerapi/scripts/bench/hooklatency"
	"github.com/moveleads/partnerapi/scripts/bench/load"
	"github.com/moveleads/partnerapi/scripts/bench/overhead"
	"github.com/moveleads/partnerapi/scripts/bench/presign"
	"github.com/moveleads/partnerapi/scripts/bench/report"
	"github.com/moveleads/partnerapi/scripts/bench/viewtiming"
	"github.com/moveleads/partnerapi/shared/local/dynamolocal"
	"github.com/moveleads/partnerapi/shared/local/s3local"
)

func main() {
	out := flag.String("out", "docs/BENCHMARKS.md", "where to write the table")
	runs := flag.Int("coldstarts", 60, "cold starts per function")
	loadFor := flag.Duration("load", 20*time.Second, "length of each load run")
	soakN := flag.Int("soak-requests", 50_000, "requests of the soak")
	only := flag.String("only", "", `run one section alone and print its rows, writing no file: "webhooks", "coldstart", "load", "soak", "events-cost" (listEvents' rows of the DynamoDB cost section) or "dashboard-cost" (the dashboard leads page's rows)`)
	functions := flag.String("functions", "", "with -only coldstart: comma-separated slugs to measure (default all)")
	flag.Parse()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	if *only != "" {
		if err := runOnly(ctx, *only, *runs, *functions, *loadFor, *soakN); err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			os.Exit(1)
		}
		return
	}
	if err := run(ctx, *out, *runs, *loadFor, *soakN); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

// runOnly runs the section name alone (on its own local servers, or make
// dev's stack for the soak) and prints its rows; runs is the cold starts
// per function, functions the comma-separated slugs coldstart measures
// (empty: all).
func runOnly(ctx context.Context, name string, runs int, functions string, loadFor time.Duration, soakN int) error {
	var rows []report.Row
	var err error
	switch name {
	case "webhooks":
		var db *dynamolocal.Server
		if db, err = dynamolocal.Start(ctx); err != nil {
			return err
		}
		defer db.Stop()
		rows, err = hooklatency.Run(ctx, hooklatency.Options{Endpoint: db.Endpoint, Log: os.Stderr})
	case "coldstart":
		rows, err = coldstart.Run(ctx, coldstart.Options{Runs: runs, Log: os.Stderr, Functions: splitList(functions)})
	case "load":
		rows, err = load.Run(ctx, loadOptions(nil, loadFor))
	case "soak":
		rows, err = load.Soak(ctx, load.SoakOptions{Requests: soakN, Progress: os.Stderr})
	case "events-cost":
		var db *dynamolocal.Server
		if db, err = dynamolocal.Start(ctx); err != nil {
			return err
		}
		defer db.Stop()
		rows, err = cost.RunEvents(ctx, cost.Options{Endpoint: db.Endpoint})
	case "dashboard-cost":
		var db *dynamolocal.Server
		if db, err = dynamolocal.Start(ctx); err != nil {
			return err
		}
		defer db.Stop()
		rows, err = cost.RunDashboard(ctx, cost.Options{Endpoint: db.Endpoint})
	default:
		return fmt.Errorf("-only %q: want webhooks, coldstart, load, soak, events-cost or dashboard-cost", name)
	}
	if err != nil {
		return err
	}
	fmt.Println(report.Markdown(rows))
	return nil
}

// loadOptions are the load section's: on db when given, else on a
// DynamoDB Local of its own; both compare with a fresh one.
func loadOptions(db *dynamolocal.Server, d time.Duration) load.Options {
	o := load.Options{Duration: d, SingleKeyDuration: d, Progress: os.Stderr, Reference: true}
	if db != nil {
		o.DynamoDBEndpoint, o.DynamoDBPID = db.Endpoint, db.Pid()
	}
	return o
}

func run(ctx context.Context, out string, runs int, loadFor time.Duration, soakN int) error {
	start := time.Now()
	step := func(name string) { fmt.Fprintf(os.Stderr, "bench: %s (%.0fs)\n", name, time.Since(start).Seconds()) }

	var rows []report.Row
	// CPU-bound and in-process first, before any server competes for the cores.
	step("handler overhead")
	overheadRows, err := overhead.Run()
	if err != nil {
		return err
	}
	step("presign")
	presignRows, err := presign.Run()
	if err != nil {
		return err
	}

	step("starting DynamoDB Local")
	db, err := dynamolocal.Start(ctx)
	if err != nil {
		return err
	}
	defer db.Stop()
	step("starting MinIO")
	s3srv, err := s3local.Start(ctx)
	if err != nil {
		return err
	}
	defer s3srv.Stop()

	step("cold starts")
	r, err := coldstart.Run(ctx, coldstart.Options{Runs: runs, Endpoint: db.Endpoint, S3: s3srv, Log: os.Stderr})
	if err != nil {
		return fmt.Errorf("cold start: %w", err)
	}
	rows = append(rows, r...)

	step("DynamoDB cost")
	r, err = cost.Run(ctx, cost.Options{Endpoint: db.Endpoint})
	if err != nil {
		return fmt.Errorf("cost: %w", err)
	}
	rows = append(rows, r...)

	step("clip validation")
	r, err = clipprobe.Run(ctx, clipprobe.Options{S3: s3srv, Log: os.Stderr})
	if err != nil {
		return fmt.Errorf("clip validation: %w", err)
	}
	rows = append(rows, r...)

	step("video links")
	r, err = viewtiming.Run(ctx, viewtiming.Options{Endpoint: db.Endpoint, Log: os.Stderr})
	if err != nil {
		return fmt.Errorf("video links: %w", err)
	}
	rows = append(rows, r...)

	step("webhooks")
	r, err = hooklatency.Run(ctx, hooklatency.Options{Endpoint: db.Endpoint, Log: os.Stderr})
	if err != nil {
		return err
	}
	rows = append(rows, r...)

	step("load")
	r, err = load.Run(ctx, loadOptions(db, loadFor))
	if err != nil {
		return fmt.Errorf("load: %w", err)
	}
	rows = append(rows, r...)

	step("soak")
	r, err = load.Soak(ctx, load.SoakOptions{Requests: soakN, Progress: os.Stderr})
	if err != nil {
		return fmt.Errorf("soak: %w", err)
	}
	rows = append(rows, r...)
	rows = append(rows, overheadRows...)
	rows = append(rows, presignRows...)

	table := report.Markdown(rows)
	fmt.Println(table)
	doc := benchmarksDoc(table, start)
	if err := os.MkdirAll("docs", 0o755); err != nil {
		return err
	}
	step("done")
	return os.WriteFile(out, []byte(doc), 0o644)
}

// benchmarksDoc is docs/BENCHMARKS.md with table, of a run begun at start.
func benchmarksDoc(table string, start time.Time) string {
	return fmt.Sprintf(`# Benchmarks

Generated by `+"`make bench`"+` (scripts/bench) on %s in %.0f s. Do not edit by hand.

Machine: %s, %d cores, %s, %s/%s.

Timing rows are medians over repeated runs with min and max beside them; every
comparison is between figures measured in the same run. Cold starts run each
function binary (built as `+"`make build`"+` builds it, for this machine's
architecture) under a local Lambda Runtime API, against DynamoDB Local and
MinIO; DynamoDB figures come from DynamoDB Local through SDK middleware; clip
validation reads clips stored in MinIO by ranged GETs; load runs against the
local gateway and DynamoDB Local on loopback; handler overhead and presigning
run in process. These are benchmarks, not tests: `+"`make test`"+` never
fails on a timing.

%s`, time.Now().UTC().Format("2006-01-02 15:04 MST"), time.Since(start).Seconds(),
		cpuModel(), runtime.NumCPU(), goVersion(), runtime.GOOS, runtime.GOARCH, table)
}

func cpuModel() string {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return "unknown CPU"
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return "unknown CPU"
}

func goVersion() string {
	b, err := exec.Command("go", "version").Output()
	if err != nil {
		return runtime.Version()
	}
	return strings.TrimSpace(string(b))
}

// splitList splits a comma-separated flag value, dropping empty entries.
func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}
