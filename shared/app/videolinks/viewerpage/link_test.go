package viewerpage

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestPagesLinkNoTemplateExecutor builds a program that renders the pages
// and checks it links no text/template executor: its field lookup calls
// reflect.Value.MethodByName, which makes the linker keep every exported
// method of every linked type (17-18 MiB functions instead of ~10, and a
// slower cold start).
func TestPagesLinkNoTemplateExecutor(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a program")
	}
	bin := filepath.Join(t.TempDir(), "linkcheck")
	if out, err := exec.Command("go", "build", "-o", bin, "./testdata/linkcheck").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command("go", "tool", "nm", bin).Output()
	if err != nil {
		t.Fatalf("go tool nm: %v", err)
	}
	if !strings.Contains(string(out), "viewerpage.Render") {
		t.Fatal("the program does not link viewerpage.Render; the check proves nothing")
	}
	for _, sym := range []string{"text/template.(*state).evalField", "reflect.Value.MethodByName"} {
		if strings.Contains(string(out), " "+sym+"\n") {
			t.Errorf("rendering the viewer pages links %s", sym)
		}
	}
}
