package quotepage

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestPageLinksNoTemplateExecutor builds a program that renders the pages
// (testdata/linkcheck) and fails when it links text/template's executor
// or reflect's MethodByName: with either, the linker keeps every exported
// method of every linked type, and the function that serves the page
// grows by megabytes and starts slower.
func TestPageLinksNoTemplateExecutor(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a program")
	}
	bin := filepath.Join(t.TempDir(), "linkcheck")
	build := exec.Command("go", "build", "-o", bin, "./shared/app/quotes/quotepage/testdata/linkcheck")
	build.Dir = "../../../.."
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command("go", "tool", "nm", bin).Output()
	if err != nil {
		t.Fatalf("go tool nm: %v", err)
	}
	if !strings.Contains(string(out), "quotepage.Render") {
		t.Fatal("no quotepage.Render among the symbols: the check looks at the wrong program")
	}
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		if len(f) < 3 || f[1] != "T" {
			continue
		}
		if sym := f[2]; sym == "text/template.(*state).evalField" || sym == "reflect.Value.MethodByName" {
			t.Errorf("the page links %s", sym)
		}
	}
}
