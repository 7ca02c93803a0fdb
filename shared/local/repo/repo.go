// Package repo finds this repository's root from the working directory, for
// the local tools (make dev, make build, make bench, the DynamoDB Local
// installer) that work with its files and its git-ignored caches.
package repo

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// ModulePath is the main module's path, which identifies the root's go.mod.
const ModulePath = "github.com/moveleads/partnerapi"

// Root returns the nearest directory at or above the working directory
// whose go.mod declares ModulePath or sits beside .git (a checkout). It
// fails outside the repository.
func Root() (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("find repository root: %w", err)
	}
	for dir := wd; ; dir = filepath.Dir(dir) {
		if isRoot(dir) {
			return dir, nil
		}
		if filepath.Dir(dir) == dir {
			return "", fmt.Errorf("find repository root: no go.mod of %s (or beside .git) at or above %s", ModulePath, wd)
		}
	}
}

func isRoot(dir string) bool {
	data, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		return false
	}
	if _, err := os.Stat(filepath.Join(dir, ".git")); err == nil {
		return true
	}
	return declaresModule(data, ModulePath)
}

// declaresModule reports whether a go.mod's module directive names module.
func declaresModule(gomod []byte, module string) bool {
	sc := bufio.NewScanner(bytes.NewReader(gomod))
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) >= 2 && fields[0] == "module" {
			return strings.Trim(fields[1], `"`) == module
		}
	}
	return false
}
