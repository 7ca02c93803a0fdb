package childproctest

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

// ListensOnLoopbackOnly checks every listening TCP socket of process pid:
// there must be one on port, each must be bound to a loopback address, and
// no non-loopback IPv4 address of this machine may accept a connection on
// any of their ports. It fails t otherwise; what names the server in
// messages.
func ListensOnLoopbackOnly(t *testing.T, what string, pid, port int) {
	t.Helper()
	socks := listeners(t, pid)
	if len(socks) == 0 {
		t.Fatalf("no listening socket of pid %d in /proc/net/tcp{,6}", pid)
	}
	sawPort := false
	for _, l := range socks {
		sawPort = sawPort || l.port == port
		if !l.ip.IsLoopback() {
			t.Errorf("listening on %s port %d; want loopback only", l.ip, l.port)
		}
	}
	if !sawPort {
		t.Errorf("listeners %v do not include port %d", socks, port)
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
		for _, l := range socks {
			tried++
			addr := net.JoinHostPort(ipnet.IP.String(), strconv.Itoa(l.port))
			if c, err := net.DialTimeout("tcp", addr, 2*time.Second); err == nil {
				c.Close()
				t.Errorf("connected to %s; want %s unreachable on non-loopback addresses", addr, what)
			}
		}
	}
	t.Logf("listening on %v; %d connection(s) to non-loopback IPv4 addresses refused", socks, tried)
}

// listener is one listening TCP socket.
type listener struct {
	ip   net.IP
	port int
}

// listeners returns the TCP sockets in the LISTEN state that process pid
// holds open, from /proc/<pid>/net/tcp{,6} and /proc/<pid>/fd.
func listeners(t *testing.T, pid int) []listener {
	t.Helper()
	proc := "/proc/" + strconv.Itoa(pid)
	owned := make(map[string]bool)
	fds, err := os.ReadDir(proc + "/fd")
	if err != nil {
		t.Fatalf("read %s/fd: %v", proc, err)
	}
	for _, fd := range fds {
		link, err := os.Readlink(proc + "/fd/" + fd.Name())
		if inode, ok := strings.CutPrefix(link, "socket:["); err == nil && ok {
			owned[strings.TrimSuffix(inode, "]")] = true
		}
	}
	var out []listener
	for _, table := range []string{"/net/tcp", "/net/tcp6"} {
		f, err := os.Open(proc + table)
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(f)
		sc.Scan() // header
		for sc.Scan() {
			fields := strings.Fields(sc.Text())
			if len(fields) < 10 || fields[3] != "0A" || !owned[fields[9]] {
				continue
			}
			hexIP, hexPort, _ := strings.Cut(fields[1], ":")
			port, err := strconv.ParseUint(hexPort, 16, 16)
			if err != nil {
				t.Fatalf("%s: port %q: %v", table, hexPort, err)
			}
			ip, err := procIP(hexIP)
			if err != nil {
				t.Fatalf("%s: address %q: %v", table, hexIP, err)
			}
			out = append(out, listener{ip: ip, port: int(port)})
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
