package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/moveleads/partnerapi/events/sample"
)

// TestRunWritesExactlyTheCases runs genevents into an empty folder that
// holds a stray event and a file of another kind: afterwards the folder
// holds every case's file with its content, the stray event is gone, the
// other file is kept, and a second run changes nothing.
func TestRunWritesExactlyTheCases(t *testing.T) {
	dir := t.TempDir()
	stray := filepath.Join(dir, "v1-leads.old-case.200.json")
	other := filepath.Join(dir, "README.md")
	for _, p := range []string{stray, other} {
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := run(dir); err != nil {
		t.Fatal(err)
	}
	want, err := sample.Files()
	if err != nil {
		t.Fatal(err)
	}
	got, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Errorf("%d event files; want %d", len(got), len(want))
	}
	for name, content := range want {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || !bytes.Equal(b, content) {
			t.Errorf("%s: %v, content equal %v; want the case's file", name, err, bytes.Equal(b, content))
		}
	}
	if _, err := os.Stat(stray); !os.IsNotExist(err) {
		t.Errorf("stray event %s still there (%v)", stray, err)
	}
	if _, err := os.Stat(other); err != nil {
		t.Errorf("%s was removed: %v", other, err)
	}

	before := map[string]int64{}
	for name := range want {
		fi, _ := os.Stat(filepath.Join(dir, name))
		before[name] = fi.ModTime().UnixNano()
	}
	if err := run(dir); err != nil {
		t.Fatal(err)
	}
	for name, mod := range before {
		if fi, _ := os.Stat(filepath.Join(dir, name)); fi.ModTime().UnixNano() != mod {
			t.Errorf("second run rewrote %s", name)
		}
	}
}
