package main

import (
	"bytes"
	"cmp"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// Longest first. go test runs the packages of its command line in that
// order when it can (its action queue prefers what comes first), so with
// `./...` a long test binary whose path sorts late starts late and ends
// the run alone on one core. teststack lists the packages longest first,
// by the durations the last run recorded, and records this run's. go test
// then prints its results in that order too. A package the record does
// not know (new) goes first: it may be long.

// DurationsVar names the file of recorded durations; by default
// .cache/teststack-durations.json under the working directory (the
// repository root, where make runs teststack). Git-ignored, like .cache.
const DurationsVar = "TESTSTACK_DURATIONS"

// durationsFile returns where the durations are recorded.
func durationsFile(getenv func(string) string) string {
	if f := getenv(DurationsVar); f != "" {
		return f
	}
	return filepath.Join(".cache", "teststack-durations.json")
}

// readDurations reads the recorded seconds per import path; a missing or
// unreadable record is an empty one (the first run keeps go's order).
func readDurations(file string) map[string]float64 {
	d := map[string]float64{}
	if b, err := os.ReadFile(file); err == nil {
		_ = json.Unmarshal(b, &d)
	}
	return d
}

// writeDurations records got over the record in file (packages this run
// did not test keep their old figure).
func writeDurations(file string, got map[string]float64) error {
	if len(got) == 0 {
		return nil
	}
	all := readDurations(file)
	for p, s := range got {
		all[p] = s
	}
	b, err := json.MarshalIndent(all, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return err
	}
	tmp := file + ".tmp"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, file)
}

// packageArgs splits go test's arguments into the flags before the
// package patterns and the patterns: the trailing arguments that start
// with "." (./..., ./shared/x). It returns no patterns when there are
// none or when -args passes the rest to the test binaries.
func packageArgs(args []string) (flags, patterns []string) {
	if slices.Contains(args, "-args") {
		return args, nil
	}
	i := len(args)
	for i > 0 && strings.HasPrefix(args[i-1], ".") {
		i--
	}
	return args[:i], args[i:]
}

// longestFirst returns the packages ordered by their recorded durations,
// longest first, the unknown ones before all (in their given order).
func longestFirst(pkgs []string, d map[string]float64) []string {
	out := slices.Clone(pkgs)
	slices.SortStableFunc(out, func(a, b string) int {
		da, oka := d[a]
		db, okb := d[b]
		switch {
		case !oka && !okb:
			return 0
		case !oka:
			return -1
		case !okb:
			return 1
		}
		return cmp.Compare(db, da)
	})
	return out
}

// orderedArgs returns args with its package patterns replaced by their
// packages, longest first by the record in file; args unchanged when
// there is no record or listing the packages fails.
func orderedArgs(goCmd string, args []string, file string) []string {
	d := readDurations(file)
	flags, patterns := packageArgs(args)
	if len(d) == 0 || len(patterns) == 0 {
		return args
	}
	var out bytes.Buffer
	cmd := exec.Command(goCmd, append([]string{"list", "-e"}, patterns...)...)
	cmd.Stdout = &out
	if err := cmd.Run(); err != nil {
		return args
	}
	pkgs := strings.Fields(out.String())
	if len(pkgs) == 0 {
		return args
	}
	return append(slices.Clone(flags), longestFirst(pkgs, d)...)
}

// resultLine is go test's summary line of a package: "ok  \tpath\t1.234s"
// or "FAIL\tpath\t1.234s", maybe followed by a remark.
var resultLine = regexp.MustCompile(`^(?:ok|FAIL)\s+(\S+)\s+([0-9.]+)s\b`)

// durationRecorder passes go test's output through and keeps each
// package's duration from its summary line.
type durationRecorder struct {
	mu   sync.Mutex
	line []byte
	got  map[string]float64
}

func (r *durationRecorder) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.line = append(r.line, p...)
	for {
		i := bytes.IndexByte(r.line, '\n')
		if i < 0 {
			break
		}
		if m := resultLine.FindSubmatch(r.line[:i]); m != nil {
			if s, err := strconv.ParseFloat(string(m[2]), 64); err == nil {
				if r.got == nil {
					r.got = map[string]float64{}
				}
				r.got[string(m[1])] = s
			}
		}
		r.line = r.line[i+1:]
	}
	return len(p), nil
}

// durations returns what was recorded.
func (r *durationRecorder) durations() map[string]float64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.got
}

// recordTo returns a writer that passes to w and records into r.
func recordTo(w io.Writer, r *durationRecorder) io.Writer {
	return io.MultiWriter(w, r)
}
