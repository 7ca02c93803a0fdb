package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"testing"

	"github.com/moveleads/partnerapi/scripts/screenshots"
)

// shotRef matches a reference to a screenshot in a Markdown file.
// (docs/dashboard-screenshots/ is the dashboard's own folder: not matched).
var shotRef = regexp.MustCompile(`(?:^|[^a-z-])screenshots/([a-z0-9-]+\.png)`)

// TestScreenshotsAreListedAndShown: docs/screenshots holds exactly the
// files make screenshots writes (scripts/screenshots.Files), each shown
// by a doc, and every screenshot a doc shows exists. No PNG is left
// directly in docs/ but the signature example (the stale page shots were).
func TestScreenshotsAreListedAndShown(t *testing.T) {
	root := filepath.Join("..", "..")
	entries, err := os.ReadDir(filepath.Join(root, screenshots.Dir))
	if err != nil {
		t.Fatal(err)
	}
	var have []string
	for _, e := range entries {
		have = append(have, e.Name())
	}
	want := screenshots.Files()
	slices.Sort(want)
	if !slices.Equal(have, want) {
		t.Errorf("%s holds %v; want %v (run make screenshots)", screenshots.Dir, have, want)
	}
	shown := map[string]bool{}
	docs, _ := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	docs = append(docs, filepath.Join(root, "README.md"))
	for _, d := range docs {
		b, err := os.ReadFile(d)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range shotRef.FindAllStringSubmatch(string(b), -1) {
			shown[m[1]] = true
			if !slices.Contains(want, m[1]) {
				t.Errorf("%s shows screenshots/%s, which make screenshots does not write", filepath.Base(d), m[1])
			}
		}
	}
	for _, f := range want {
		if !shown[f] {
			t.Errorf("no doc shows screenshots/%s", f)
		}
	}
	pngs, _ := filepath.Glob(filepath.Join(root, "docs", "*.png"))
	for _, p := range pngs {
		if name := filepath.Base(p); name != "signature-example.png" {
			t.Errorf("docs/%s is a page screenshot outside %s: make screenshots does not keep it current", name, screenshots.Dir)
		}
	}
}
