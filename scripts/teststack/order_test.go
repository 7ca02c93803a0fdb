package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestPackageArgs(t *testing.T) {
	for _, tt := range []struct {
		args, flags, patterns []string
	}{
		{[]string{"-race", "-p", "3", "./..."}, []string{"-race", "-p", "3"}, []string{"./..."}},
		{[]string{"-count=1", "./shared/...", "./scripts/x"}, []string{"-count=1"}, []string{"./shared/...", "./scripts/x"}},
		{[]string{"-run", "X"}, []string{"-run", "X"}, []string{}},
		{[]string{"./...", "-args", "-v"}, []string{"./...", "-args", "-v"}, nil},
	} {
		flags, patterns := packageArgs(tt.args)
		if !slices.Equal(flags, tt.flags) || !slices.Equal(patterns, tt.patterns) {
			t.Errorf("packageArgs(%q) = %q, %q; want %q, %q", tt.args, flags, patterns, tt.flags, tt.patterns)
		}
	}
}

// TestLongestFirst: the longest recorded first, a package the record does
// not know before all of them, ties in the given order.
func TestLongestFirst(t *testing.T) {
	d := map[string]float64{"a": 1, "b": 30, "c": 5, "e": 5}
	got := longestFirst([]string{"a", "b", "c", "new", "e"}, d)
	if want := []string{"new", "b", "c", "e", "a"}; !slices.Equal(got, want) {
		t.Errorf("longestFirst = %q; want %q", got, want)
	}
}

// TestOrderedArgs lists two real packages through go list and orders them
// by a record; without a record the arguments stay as given.
func TestOrderedArgs(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	const lead, clip = "github.com/moveleads/partnerapi/shared/domain/lead", "github.com/moveleads/partnerapi/shared/domain/clip"
	args := []string{"-count=1", "-p", "3", "../../shared/domain/clip", "../../shared/domain/lead"}
	file := filepath.Join(t.TempDir(), "durations.json")
	if got := orderedArgs("go", args, file); !slices.Equal(got, args) {
		t.Errorf("without a record: %q; want the arguments as given", got)
	}
	if err := writeDurations(file, map[string]float64{lead: 9, clip: 2}); err != nil {
		t.Fatal(err)
	}
	want := []string{"-count=1", "-p", "3", lead, clip}
	if got := orderedArgs("go", args, file); !slices.Equal(got, want) {
		t.Errorf("orderedArgs = %q; want %q", got, want)
	}
}

// TestDurationRecorder reads go test's summary lines, split across writes
// anywhere, and keeps earlier packages' figures when it records.
func TestDurationRecorder(t *testing.T) {
	out := "=== RUN   TestX\n--- FAIL: TestX (0.50s)\nFAIL\nFAIL\texample.com/a\t3.250s\n" +
		"?   \texample.com/none\t[no test files]\n" +
		"ok  \texample.com/b\t0.042s [no tests to run]\n" +
		"ok  \texample.com/c\t(cached)\n" +
		"ok  \texample.com/d\t120.5s\n"
	var r durationRecorder
	var passed strings.Builder
	w := recordTo(&passed, &r)
	for chunk := range slices.Chunk([]byte(out), 7) {
		if _, err := w.Write(chunk); err != nil {
			t.Fatal(err)
		}
	}
	if passed.String() != out {
		t.Errorf("passed on %q; want go test's output unchanged", passed.String())
	}
	want := map[string]float64{"example.com/a": 3.25, "example.com/b": 0.042, "example.com/d": 120.5}
	got := r.durations()
	if len(got) != len(want) {
		t.Errorf("recorded %v; want %v", got, want)
	}
	for p, s := range want {
		if got[p] != s {
			t.Errorf("recorded %s = %v; want %v", p, got[p], s)
		}
	}
	file := filepath.Join(t.TempDir(), "sub", "durations.json")
	if err := writeDurations(file, map[string]float64{"example.com/old": 7, "example.com/a": 1}); err != nil {
		t.Fatal(err)
	}
	if err := writeDurations(file, got); err != nil {
		t.Fatal(err)
	}
	if d := readDurations(file); d["example.com/old"] != 7 || d["example.com/a"] != 3.25 || len(d) != 4 {
		t.Errorf("record %v; want old kept, a updated to 3.25, 4 packages", d)
	}
	if _, err := os.Stat(file + ".tmp"); !os.IsNotExist(err) {
		t.Errorf("temporary file left: %v", err)
	}
}
