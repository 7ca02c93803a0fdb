package repo

import (
	"os"
	"path/filepath"
	"testing"
)

func TestDeclaresModule(t *testing.T) {
	tests := []struct {
		name  string
		gomod string
		want  bool
	}{
		{"plain", "module github.com/moveleads/partnerapi\n\ngo 1.26.0\n", true},
		{"quoted", "// comment\nmodule \"github.com/moveleads/partnerapi\"\n", true},
		{"other module", "module github.com/moveleads/partnerapi/infra\n", false},
		{"no module line", "go 1.26.0\n", false},
		{"empty", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := declaresModule([]byte(tt.gomod), ModulePath); got != tt.want {
				t.Errorf("declaresModule(%q) = %v; want %v", tt.gomod, got, tt.want)
			}
		})
	}
}

func TestRoot(t *testing.T) {
	root, err := Root()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "functions")); err != nil {
		t.Errorf("Root() = %s, which has no functions/: %v", root, err)
	}
	t.Chdir(t.TempDir())
	if got, err := Root(); err == nil {
		t.Errorf("Root() outside the repository = %q; want an error", got)
	}
}
