package dashboardapp

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestFunctionLinksNoTemplateExecutor builds the dashboard function as it
// ships (-tags lambda.norpc) and checks it links no text/template
// executor: its field lookup calls reflect.Value.MethodByName, which makes
// the linker keep every exported method of every linked type (the AWS
// SDK's too: a 20 MiB function instead of ~12, and a slower cold start).
// It builds the function, not this package alone, so that nothing else in
// the dashboard's import graph brings the executor back.
func TestFunctionLinksNoTemplateExecutor(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the dashboard function")
	}
	bin := filepath.Join(t.TempDir(), "bootstrap")
	build := exec.Command("go", "build", "-tags", "lambda.norpc", "-o", bin, "./functions/dashboard")
	build.Dir = "../../.."
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command("go", "tool", "nm", bin).Output()
	if err != nil {
		t.Fatalf("go tool nm: %v", err)
	}
	if !strings.Contains(string(out), "dashboardapp.page\n") {
		t.Fatal("the function does not link dashboardapp.page; the check proves nothing")
	}
	for _, sym := range []string{"text/template.(*state).evalField", "reflect.Value.MethodByName"} {
		if strings.Contains(string(out), " "+sym+"\n") {
			t.Errorf("the dashboard function links %s", sym)
		}
	}
}
