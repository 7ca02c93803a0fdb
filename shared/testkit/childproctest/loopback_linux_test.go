package childproctest

import (
	"net"
	"os"
	"testing"
)

func TestProcIP(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"ipv4 loopback", "0100007F", "127.0.0.1"},
		{"ipv4 wildcard", "00000000", "0.0.0.0"},
		{"ipv4-mapped loopback", "0000000000000000FFFF00000100007F", "127.0.0.1"},
		{"ipv6 wildcard", "00000000000000000000000000000000", "::"},
		{"ipv6 loopback", "00000000000000000000000001000000", "::1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ip, err := procIP(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if got := ip.String(); got != tt.want {
				t.Errorf("procIP(%q) = %s; want %s", tt.in, got, tt.want)
			}
		})
	}
}

func TestListenersSeesOwnSocket(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	port := l.Addr().(*net.TCPAddr).Port
	for _, s := range listeners(t, os.Getpid()) {
		if s.port == port {
			if !s.ip.IsLoopback() {
				t.Errorf("listener on port %d at %s; want 127.0.0.1", port, s.ip)
			}
			return
		}
	}
	t.Errorf("listeners(self) has no socket on port %d", port)
}
