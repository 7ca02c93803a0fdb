package childproc

import (
	"net"
	"os"
	"os/exec"
	"testing"
)

func TestOwnsListener(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	other := exec.Command("sleep", "30")
	if err := other.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = other.Process.Kill()
		_ = other.Wait()
	}()

	if !OwnsListener(os.Getpid(), port) {
		t.Errorf("OwnsListener(self, %d) = false while listening; want true", port)
	}
	if OwnsListener(other.Process.Pid, port) {
		t.Errorf("OwnsListener(other process, %d) = true; want false", port)
	}
	l.Close()
	if OwnsListener(os.Getpid(), port) {
		t.Errorf("OwnsListener(self, %d) = true after Close; want false", port)
	}
}
