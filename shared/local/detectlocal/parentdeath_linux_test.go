package detectlocal

import (
	"testing"

	"github.com/moveleads/partnerapi/shared/testkit/childproctest"
)

// helperEnv makes the test binary act as a parent that starts a sidecar
// and then waits to be killed.
const helperEnv = "DETECTLOCAL_TEST_PARENT"

// TestHelperParent is not a test on its own: TestSidecarDiesWithKilledParent
// runs it in a child test binary.
func TestHelperParent(t *testing.T) {
	childproctest.HelperParent(t, helperEnv, func(t *testing.T) (int, string, []string) {
		s, _ := childproctest.StartServer(t, forTestsTimeout, Start)
		return s.proc.Pid(), s.Endpoint, nil
	})
}

func TestSidecarDiesWithKilledParent(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the detector sidecar (Node.js, CenterNet)")
	}
	childproctest.DiesWithKilledParent(t, "the detector", "TestHelperParent", helperEnv, nil)
}
