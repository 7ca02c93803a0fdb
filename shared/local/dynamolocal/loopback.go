package dynamolocal

import (
	"bytes"
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// launcherSource is the Java class that starts DynamoDB Local with its
// listener bound to 127.0.0.1 (DynamoDB Local itself binds every
// interface and has no option to choose; see the file's comment).
//
//go:embed launcher/LoopbackServerRunner.java
var launcherSource []byte

// launcherClass is the launcher's class name, which is also its file name.
const launcherClass = "LoopbackServerRunner"

// errNoJavac reports that no Java compiler was found to build the
// launcher: the Java runtime alone (a JRE) has none.
var errNoJavac = errors.New("no javac found beside java or on PATH (a JRE has none; install a JDK, e.g. apt-get install -y openjdk-17-jdk-headless)")

// launcher returns the directory holding the compiled launcher class for
// the DynamoDB Local installed in dir, compiling it on first use into
// dir/launcher-<hash of the source>/ with the javac beside java (else the
// one on PATH). The compile goes to a temporary directory that is renamed
// into place, so concurrent callers never see half a class. It fails with
// errNoJavac when there is no compiler, or with javac's output when the
// compile fails (for example because the installed DynamoDB Local no
// longer has the classes the launcher uses).
func launcher(ctx context.Context, java, dir string) (string, error) {
	sum := sha256.Sum256(launcherSource)
	out := filepath.Join(dir, "launcher-"+hex.EncodeToString(sum[:6]))
	if _, err := os.Stat(filepath.Join(out, launcherClass+".class")); err == nil {
		return out, nil
	}
	javac, err := findCompiler(java)
	if err != nil {
		return "", err
	}
	tmp, err := os.MkdirTemp(dir, ".launcher-")
	if err != nil {
		return "", fmt.Errorf("compile launcher: %w", err)
	}
	defer os.RemoveAll(tmp)
	src := filepath.Join(tmp, launcherClass+".java")
	if err := os.WriteFile(src, launcherSource, 0o644); err != nil {
		return "", fmt.Errorf("compile launcher: %w", err)
	}
	classes := filepath.Join(tmp, "classes")
	cmd := exec.CommandContext(ctx, javac, "--release", "17",
		"-cp", classPath(filepath.Join(dir, jarName), filepath.Join(dir, libDirName, "*")),
		"-d", classes, src)
	var log bytes.Buffer
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("compile launcher with %s: %w\n%s", javac, err, strings.TrimSpace(log.String()))
	}
	if err := os.Rename(classes, out); err != nil {
		// Another process compiled the same source first: use its class.
		if _, statErr := os.Stat(filepath.Join(out, launcherClass+".class")); statErr == nil {
			return out, nil
		}
		return "", fmt.Errorf("compile launcher: %w", err)
	}
	return out, nil
}

// findCompiler finds javac for java; tests replace it.
var findCompiler = findJavac

// findJavac returns the javac of the same JDK as java when there is one,
// else the javac on PATH, else errNoJavac.
func findJavac(java string) (string, error) {
	if real, err := filepath.EvalSymlinks(java); err == nil {
		beside := filepath.Join(filepath.Dir(real), "javac")
		if fi, err := os.Stat(beside); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return beside, nil
		}
	}
	if javac, err := exec.LookPath("javac"); err == nil {
		return javac, nil
	}
	return "", errNoJavac
}

// classPath joins entries with the platform's class-path separator.
func classPath(entries ...string) string {
	return strings.Join(entries, string(os.PathListSeparator))
}
