package htmlpage_test

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestTemplGeneratedCodeIsCurrent fails when a page's generated Go code
// (x_templ.go) is not what templ (the go.mod tool) makes of its x.templ
// source today: `make generate` rewrites them. templ's own -check compares
// them: -stdout prints nothing when the file is already current (templ
// writes only what changed), so it cannot tell current from missing.
func TestTemplGeneratedCodeIsCurrent(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	var sources []string
	err = filepath.WalkDir(filepath.Join(root, "shared"), func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(path, ".templ") {
			sources = append(sources, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(sources) == 0 {
		t.Fatal("no .templ source under shared/: the pages are templ components")
	}
	for _, src := range sources {
		rel, _ := filepath.Rel(root, src)
		t.Run(rel, func(t *testing.T) {
			// -check, not -stdout: templ writes to stdout only what differs
			// from the file on disk, so -stdout prints nothing for a
			// current file.
			if _, err := os.Stat(strings.TrimSuffix(src, ".templ") + "_templ.go"); err != nil {
				t.Fatalf("%v: run make generate", err)
			}
			cmd := exec.Command("go", "tool", "templ", "generate", "-check", "-f", src)
			cmd.Dir = root
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Errorf("%s_templ.go is stale: run make generate (%v)\n%s", strings.TrimSuffix(rel, ".templ"), err, out)
			}
		})
	}
}
