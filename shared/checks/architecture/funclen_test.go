package architecture

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// maxFuncLines is the longest a function may be, counted from its func
// line to its closing brace. The house style asks at ~60 whether a
// function does two things; past this it always does.
const maxFuncLines = 100

// longFuncAllowed are functions that may be longer, each with its reason
// (key: "file:Func", file relative to the module). A test fails when one
// is back within maxFuncLines: delete it then.
var longFuncAllowed = map[string]string{}

// funcLen is one function's length.
type funcLen struct {
	name  string // Func or (Recv).Func
	pos   string // file:line, file relative to the root
	lines int
}

func (f funcLen) key() string {
	file, _, _ := strings.Cut(f.pos, ":")
	return file + ":" + f.name
}

// funcLengths measures every function of the non-test, non-generated Go
// files under root's dirs (testdata and dot folders skipped).
func funcLengths(root string, dirs ...string) ([]funcLen, error) {
	var out []funcLen
	fset := token.NewFileSet()
	for _, dir := range dirs {
		err := filepath.WalkDir(filepath.Join(root, dir), func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				if name := d.Name(); name == "testdata" || strings.HasPrefix(name, ".") {
					return filepath.SkipDir
				}
				return nil
			}
			if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") || strings.HasSuffix(path, "_templ.go") {
				return nil
			}
			f, err := parser.ParseFile(fset, path, nil, parser.ParseComments|parser.SkipObjectResolution)
			if err != nil {
				return err
			}
			if ast.IsGenerated(f) {
				return nil
			}
			rel, err := filepath.Rel(root, path)
			if err != nil {
				return err
			}
			out = append(out, fileFuncLengths(fset, f, filepath.ToSlash(rel))...)
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// fileFuncLengths measures f's function declarations (not literals: a
// closure counts in the function that holds it).
func fileFuncLengths(fset *token.FileSet, f *ast.File, rel string) []funcLen {
	var out []funcLen
	for _, decl := range f.Decls {
		fd, ok := decl.(*ast.FuncDecl)
		if !ok || fd.Body == nil {
			continue
		}
		name := fd.Name.Name
		if fd.Recv != nil && len(fd.Recv.List) == 1 {
			name = "(" + recvName(fd.Recv.List[0].Type) + ")." + name
		}
		start := fset.Position(fd.Type.Func).Line
		out = append(out, funcLen{
			name:  name,
			pos:   fmt.Sprintf("%s:%d", rel, start),
			lines: fset.Position(fd.Body.Rbrace).Line - start + 1,
		})
	}
	return out
}

func recvName(e ast.Expr) string {
	switch t := e.(type) {
	case *ast.StarExpr:
		return "*" + recvName(t.X)
	case *ast.IndexExpr:
		return recvName(t.X)
	case *ast.IndexListExpr:
		return recvName(t.X)
	case *ast.Ident:
		return t.Name
	}
	return "?"
}

// funcLenViolations are the sentences of the functions over max and not
// allowed, and of the allowed ones back within max.
func funcLenViolations(fns []funcLen, max int, allowed map[string]string) []string {
	var out []string
	for _, f := range fns {
		_, ok := allowed[f.key()]
		switch {
		case f.lines > max && !ok:
			out = append(out, fmt.Sprintf("%s at %s is %d lines, over %d: split it into named steps", f.name, f.pos, f.lines, max))
		case f.lines <= max && ok:
			out = append(out, fmt.Sprintf("%s at %s is %d lines, within %d: delete its entry in longFuncAllowed", f.name, f.pos, f.lines, max))
		}
	}
	return out
}

// TestFunctionLength: no function of shared/, functions/ or scripts/ is
// longer than maxFuncLines.
func TestFunctionLength(t *testing.T) {
	fns, err := funcLengths(moduleRoot(t), "shared", "functions", "scripts")
	if err != nil {
		t.Fatal(err)
	}
	if len(fns) < 1000 {
		t.Fatalf("measured %d functions; want the module's thousands", len(fns))
	}
	seen := map[string]bool{}
	for _, f := range fns {
		seen[f.key()] = true
	}
	for _, v := range funcLenViolations(fns, maxFuncLines, longFuncAllowed) {
		t.Error(v)
	}
	for k := range longFuncAllowed {
		if !seen[k] {
			t.Errorf("longFuncAllowed names %s, which no longer exists: delete it", k)
		}
	}
}

// TestFunctionLengthOnSyntheticSource proves the measure and both
// sentences.
func TestFunctionLengthOnSyntheticSource(t *testing.T) {
	const src = `// Code in a test.
package p

type T[K any] struct{}

func short() {}

func (t *T[K]) long() {
	_ = 1
	_ = func() {
		_ = 2
	}
}

func allowed() {
	_ = 1
}
`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	fns := fileFuncLengths(fset, f, "x/p.go")
	want := []funcLen{
		{"short", "x/p.go:6", 1},
		{"(*T).long", "x/p.go:8", 6},
		{"allowed", "x/p.go:15", 3},
	}
	if fmt.Sprint(fns) != fmt.Sprint(want) {
		t.Fatalf("got %v; want %v", fns, want)
	}
	got := funcLenViolations(fns, 5, map[string]string{"x/p.go:allowed": "a reason"})
	wantV := []string{
		"(*T).long at x/p.go:8 is 6 lines, over 5: split it into named steps",
		"allowed at x/p.go:15 is 3 lines, within 5: delete its entry in longFuncAllowed",
	}
	if strings.Join(got, "\n") != strings.Join(wantV, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(wantV, "\n"))
	}
}
