package dynamolocal

import (
	"testing"

	"github.com/moveleads/partnerapi/shared/testkit/childproctest"
)

// helperEnv makes the test binary act as a parent that starts a server and
// then waits to be killed.
const helperEnv = "DYNAMOLOCAL_TEST_PARENT"

// TestHelperParent is not a test on its own: TestServerDiesWithKilledParent
// runs it in a child test binary.
func TestHelperParent(t *testing.T) {
	childproctest.HelperParent(t, helperEnv, func(t *testing.T) (int, string, []string) {
		s, _ := childproctest.StartServer(t, forTestsTimeout, startShortLived)
		return s.proc.Pid(), s.Endpoint, nil
	})
}

func TestServerDiesWithKilledParent(t *testing.T) {
	if testing.Short() {
		t.Skip("starts DynamoDB Local (a JVM)")
	}
	childproctest.DiesWithKilledParent(t, "DynamoDB Local", "TestHelperParent", helperEnv, nil)
}
