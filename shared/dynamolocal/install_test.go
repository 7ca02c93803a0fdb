package dynamolocal

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/moveleads/partnerapi/shared/repo"
)

func TestEnv(t *testing.T) {
	got := Env("http://127.0.0.1:1234")
	want := []string{
		"AWS_ENDPOINT_URL_DYNAMODB=http://127.0.0.1:1234",
		"AWS_REGION=us-east-1",
		"AWS_ACCESS_KEY_ID=local",
		"AWS_SECRET_ACCESS_KEY=local",
		"AWS_EC2_METADATA_DISABLED=true",
	}
	if !slices.Equal(got, want) {
		t.Errorf("Env() = %q; want %q", got, want)
	}
}

func TestSetEnv(t *testing.T) {
	for _, kv := range Env("") {
		k, _, _ := strings.Cut(kv, "=")
		t.Setenv(k, "before") // restores the variable after the test
	}
	SetEnv("http://127.0.0.1:1234")
	for _, kv := range Env("http://127.0.0.1:1234") {
		k, want, _ := strings.Cut(kv, "=")
		if got := os.Getenv(k); got != want {
			t.Errorf("%s = %q; want %q", k, got, want)
		}
	}
}

// TestDir checks this package's directory and installer; the lookup
// itself is childproc.InstallDir's, tested there.
func TestDir(t *testing.T) {
	t.Setenv(dirEnv, "")
	got, err := Dir()
	if err != nil {
		t.Fatalf("Dir() error: %v", err)
	}
	if filepath.Base(got) != "dynamodb-local" || filepath.Base(filepath.Dir(got)) != ".cache" {
		t.Errorf("Dir() = %q; want <root>/.cache/dynamodb-local", got)
	}
	root := filepath.Dir(filepath.Dir(got))
	if _, err := os.Stat(filepath.Join(root, installScript)); err != nil {
		t.Errorf("Dir() = %q: root %q has no %s: %v", got, root, installScript, err)
	}
}

// TestInstallScriptWarm checks the installer's contract once installed: it
// does nothing and its stdout is exactly the install directory.
func TestInstallScriptWarm(t *testing.T) {
	if testing.Short() {
		t.Skip("installs DynamoDB Local (about 50 MB on a cold cache)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), forTestsTimeout)
	defer cancel()
	dir, err := Install(ctx)
	if err != nil {
		t.Fatalf("Install: %v", err)
	}
	root, err := repo.Root()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(ctx, "bash", filepath.Join(root, installScript))
	cmd.Env = append(os.Environ(), dirEnv+"="+dir)
	start := time.Now()
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v", installScript, err)
	}
	if got := string(out); got != dir+"\n" {
		t.Errorf("%s printed %q; want %q", installScript, got, dir+"\n")
	}
	t.Logf("warm install took %v", time.Since(start))
}
