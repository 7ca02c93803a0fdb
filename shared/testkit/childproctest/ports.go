package childproctest

import (
	"net"
	"testing"

	"github.com/moveleads/partnerapi/shared/local/childproc"
)

// TakenPortFirst returns a loopback port that a listener holds until the
// test ends (it accepts connections but never answers, so it must not pass
// for a server), and a picker for childproc.Spec.PickPorts whose first call
// puts that port first and whose later calls return childproc.FreePorts;
// *calls counts the calls. It fails t when it cannot listen.
func TakenPortFirst(t *testing.T) (taken int, pick func(n int) ([]int, error), calls *int) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	taken = l.Addr().(*net.TCPAddr).Port
	calls = new(int)
	pick = func(n int) ([]int, error) {
		*calls++
		ports, err := childproc.FreePorts(n)
		if *calls == 1 && err == nil {
			ports[0] = taken
		}
		return ports, err
	}
	return taken, pick, calls
}
