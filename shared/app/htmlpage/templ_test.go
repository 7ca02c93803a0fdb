package htmlpage_test

import (
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestTemplGeneratedCodeIsCurrent fails when a page's generated Go code
// (x_templ.go) is not what templ (the go.mod tool) makes of its x.templ
// source today: `make generate` rewrites them.
func TestTemplGeneratedCodeIsCurrent(t *testing.T) {
	root, err := filepath.Abs("../../..")
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
			// templ generate -stdout prints nothing when the x_templ.go
			// beside x.templ already holds its output, so it runs on a
			// copy, at the same path under -path as make generate's
			// (-path shared): error positions name the file by that path.
			inShared, _ := filepath.Rel(filepath.Join(root, "shared"), src)
			tmp := t.TempDir()
			copied := filepath.Join(tmp, inShared)
			text, err := os.ReadFile(src)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.MkdirAll(filepath.Dir(copied), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(copied, text, 0o644); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command("go", "tool", "templ", "generate", "-path", tmp, "-stdout", "-f", copied)
			cmd.Dir = root
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			want, err := cmd.Output()
			if err != nil {
				t.Fatalf("templ generate -f %s: %v\n%s", rel, err, stderr.String())
			}
			got, err := os.ReadFile(strings.TrimSuffix(src, ".templ") + "_templ.go")
			if err != nil {
				t.Fatalf("%v: run make generate", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s_templ.go is stale: run make generate", strings.TrimSuffix(rel, ".templ"))
			}
		})
	}
}
