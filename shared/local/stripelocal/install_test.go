package stripelocal

import (
	"strings"
	"testing"

	"github.com/moveleads/partnerapi/shared/testkit/childproctest"
)

// TestDir checks this package's directory and installer; the lookup
// itself is childproc.InstallDir's, tested there.
func TestDir(t *testing.T) {
	childproctest.InstallDirIsCache(t, Dir, dirEnv, "stripe-mock", installScript)
}

// TestInstallScriptWarm checks the installer's contract once installed: it
// does nothing (no go needed) and its stdout is exactly the binary's path.
func TestInstallScriptWarm(t *testing.T) {
	if testing.Short() {
		t.Skip("installs stripe-mock")
	}
	childproctest.GoInstallerWarm(t, forTestsTimeout, Install, installScript, dirEnv)
}

// TestInstallScriptNeedsGo runs the installer for an empty directory
// without go on PATH: it must fail at once, say why, and create nothing.
func TestInstallScriptNeedsGo(t *testing.T) {
	childproctest.GoInstallerNeedsGo(t, installScript, dirEnv, "stripe-mock")
}

// TestInstallChecksTheVersion points Install at directories that hold the
// installed binary under a marker of the pinned version or of another
// one, with no go on PATH: the first is used as it is, the second needs a
// new build, which fails here for want of go.
func TestInstallChecksTheVersion(t *testing.T) {
	if testing.Short() {
		t.Skip("installs stripe-mock")
	}
	pinned := childproctest.GoInstallChecksTheVersion(t, forTestsTimeout, Install, dirEnv, binaryName, "github.com/stripe/stripe-mock@v0.1.0\n")
	if got := strings.TrimSpace(pinned); got != "github.com/stripe/stripe-mock@v0.203.0" {
		t.Errorf("installed %q; want github.com/stripe/stripe-mock@v0.203.0 (ENVIRONMENT.md's verified version)", got)
	}
}
