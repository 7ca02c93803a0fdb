package s3local

import (
	"os"
	"testing"

	"github.com/moveleads/partnerapi/shared/testkit/childproctest"
)

// helperEnv makes the test binary act as a parent that starts a server and
// then waits to be killed.
const helperEnv = "S3LOCAL_TEST_PARENT"

// TestHelperParent is not a test on its own: TestServerDiesWithKilledParent
// runs it in a child test binary.
func TestHelperParent(t *testing.T) {
	childproctest.HelperParent(t, helperEnv, func(t *testing.T) (int, string, []string) {
		s := startServer(t)
		return s.proc.Pid(), s.Endpoint, []string{s.dir}
	})
}

func TestServerDiesWithKilledParent(t *testing.T) {
	if testing.Short() {
		t.Skip("starts MinIO")
	}
	childproctest.DiesWithKilledParent(t, "MinIO", "TestHelperParent", helperEnv, func(extra []string) {
		// The killed parent cannot remove the server's data.
		if len(extra) == 1 {
			dir := extra[0]
			t.Cleanup(func() { os.RemoveAll(dir) })
		}
	})
}
