package architecture

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// TestExamplesHaveOutput: every Example of shared/, functions/ and
// scripts/ has an Output comment, without which go test compiles it but
// never runs it.
func TestExamplesHaveOutput(t *testing.T) {
	root := moduleRoot(t)
	fset := token.NewFileSet()
	n := 0
	for _, dir := range []string{"shared", "functions", "scripts"} {
		err := filepath.WalkDir(filepath.Join(root, dir), func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, "_test.go") {
				return err
			}
			f, err := parser.ParseFile(fset, path, nil, parser.ParseComments|parser.SkipObjectResolution)
			if err != nil {
				return err
			}
			for _, decl := range f.Decls {
				fd, ok := decl.(*ast.FuncDecl)
				if !ok || fd.Recv != nil || !strings.HasPrefix(fd.Name.Name, "Example") {
					continue
				}
				n++
				if !hasOutput(f, fd) {
					t.Errorf("%s at %s has no // Output: comment, so go test never runs it: give it one that checks what it prints",
						fd.Name.Name, fset.Position(fd.Pos()))
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if n == 0 {
		t.Fatal("found no Example functions")
	}
}

// hasOutput reports whether fd's body holds an output comment.
func hasOutput(f *ast.File, fd *ast.FuncDecl) bool {
	for _, cg := range f.Comments {
		if cg.Pos() < fd.Body.Lbrace || cg.End() > fd.Body.Rbrace {
			continue
		}
		text := strings.ToLower(cg.Text())
		if strings.HasPrefix(text, "output:") || strings.HasPrefix(text, "unordered output:") {
			return true
		}
	}
	return false
}
