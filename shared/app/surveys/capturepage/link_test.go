package capturepage

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestRenderLinksNoReflectiveTemplateExecutor builds a program that links
// only Render and ErrorPage and reads its symbols: html/template's executor
// (text/template's evalField) calls reflect.Value.MethodByName, which makes
// the linker keep every exported method of every linked type (17-18 MiB
// page functions instead of ~10, and a slower cold start). The pages are
// templ components, whose runtime calls neither.
func TestRenderLinksNoReflectiveTemplateExecutor(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a binary")
	}
	bin := filepath.Join(t.TempDir(), "renderonly")
	build := exec.Command("go", "build", "-trimpath", "-o", bin, "./testdata/renderonly")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command("go", "tool", "nm", bin).Output()
	if err != nil {
		t.Fatalf("go tool nm: %v", err)
	}
	syms := string(out)
	if !strings.Contains(syms, "capturepage.Render") {
		t.Fatal("the program does not link capturepage.Render: the test reads the wrong binary")
	}
	for _, sym := range []string{"text/template.(*state).evalField", "reflect.Value.MethodByName"} {
		if strings.Contains(syms, " "+sym+"\n") {
			t.Errorf("the capture page links %s", sym)
		}
	}
}
