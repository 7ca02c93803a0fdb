package dynamolocal

import (
	"context"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/moveleads/partnerapi/shared/testkit/childproctest"
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
	childproctest.InstallDirIsCache(t, Dir, dirEnv, "dynamodb-local", installScript)
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
	childproctest.WarmInstaller(t, ctx, installScript, dir, dirEnv+"="+dir)
}
