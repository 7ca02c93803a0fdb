package dynamolocal

import (
	"bufio"
	"encoding/hex"
	"net"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestServerListensOnLoopbackOnly checks every listening socket on the
// server's port: each must be bound to a loopback address (DynamoDB Local's
// own main class binds the wildcard address), and no non-loopback IPv4
// address of this machine may accept a connection on that port.
func TestServerListensOnLoopbackOnly(t *testing.T) {
	s := startServer(t)
	if !s.Loopback {
		t.Fatalf("Loopback = false (warning %q); want the launcher bound to 127.0.0.1", s.Warning)
	}
	if s.Warning != "" {
		t.Errorf("Warning = %q; want none when listening on loopback", s.Warning)
	}
	port, err := strconv.Atoi(s.Endpoint[strings.LastIndex(s.Endpoint, ":")+1:])
	if err != nil {
		t.Fatalf("port of %s: %v", s.Endpoint, err)
	}
	addrs := listenAddrs(t, port)
	if len(addrs) == 0 {
		t.Fatalf("no listening socket on port %d in /proc/net/tcp{,6}", port)
	}
	for _, a := range addrs {
		if !a.IsLoopback() {
			t.Errorf("listening on %s port %d; want loopback only", a, port)
		}
	}

	ifaddrs, err := net.InterfaceAddrs()
	if err != nil {
		t.Fatalf("InterfaceAddrs: %v", err)
	}
	tried := 0
	for _, ia := range ifaddrs {
		ipnet, ok := ia.(*net.IPNet)
		if !ok || ipnet.IP.IsLoopback() || ipnet.IP.To4() == nil {
			continue
		}
		tried++
		addr := net.JoinHostPort(ipnet.IP.String(), strconv.Itoa(port))
		if c, err := net.DialTimeout("tcp", addr, 2*time.Second); err == nil {
			c.Close()
			t.Errorf("connected to %s; want DynamoDB Local unreachable on non-loopback addresses", addr)
		}
	}
	t.Logf("listening on %v; %d non-loopback IPv4 address(es) refused", addrs, tried)
}

// listenAddrs returns the local addresses of the sockets in the LISTEN
// state on port, from /proc/net/tcp and /proc/net/tcp6.
func listenAddrs(t *testing.T, port int) []net.IP {
	t.Helper()
	var out []net.IP
	for _, table := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		f, err := os.Open(table)
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(f)
		sc.Scan() // header
		for sc.Scan() {
			fields := strings.Fields(sc.Text())
			if len(fields) < 4 || fields[3] != "0A" {
				continue
			}
			hexIP, hexPort, ok := strings.Cut(fields[1], ":")
			if p, err := strconv.ParseUint(hexPort, 16, 16); !ok || err != nil || int(p) != port {
				continue
			}
			ip, err := procIP(hexIP)
			if err != nil {
				t.Fatalf("%s: address %q: %v", table, hexIP, err)
			}
			out = append(out, ip)
		}
		f.Close()
	}
	return out
}

// procIP decodes an address of /proc/net/tcp{,6}: the bytes of each 32-bit
// word in host (little-endian here) order.
func procIP(s string) (net.IP, error) {
	b, err := hex.DecodeString(s)
	if err != nil {
		return nil, err
	}
	for i := 0; i+4 <= len(b); i += 4 {
		b[i], b[i+1], b[i+2], b[i+3] = b[i+3], b[i+2], b[i+1], b[i]
	}
	return net.IP(b), nil
}

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
