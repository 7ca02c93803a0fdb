package childproc

import (
	"bufio"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
)

// SetParentDeathSignal has the kernel SIGKILL the child when the thread
// that started it dies, so a killed test binary leaves no server (JVM, MinIO) behind. Go
// keeps its threads for the life of the process unless a goroutine exits
// while locked to one, which this package never does.
func SetParentDeathSignal(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
}

// OwnsListener reports whether process pid holds a TCP socket listening on
// port. When /proc cannot be read it answers true and leaves the verdict to
// the HTTP probe.
func OwnsListener(pid, port int) bool {
	proc := "/proc/" + strconv.Itoa(pid)
	inodes := make(map[string]bool)
	readable := false
	for _, table := range []string{"/net/tcp", "/net/tcp6"} {
		f, err := os.Open(proc + table)
		if err != nil {
			continue
		}
		readable = true
		listeningInodes(f, port, inodes)
		f.Close()
	}
	if !readable {
		return true
	}
	if len(inodes) == 0 {
		return false
	}
	fds, err := os.ReadDir(proc + "/fd")
	if err != nil {
		return false
	}
	for _, fd := range fds {
		link, err := os.Readlink(proc + "/fd/" + fd.Name())
		if err != nil {
			continue
		}
		inode, ok := strings.CutPrefix(link, "socket:[")
		if ok && inodes[strings.TrimSuffix(inode, "]")] {
			return true
		}
	}
	return false
}

// listeningInodes adds to inodes the socket inodes of the rows of a
// /proc/net/tcp{,6} table that listen on port.
func listeningInodes(f *os.File, port int, inodes map[string]bool) {
	const listen = "0A"
	sc := bufio.NewScanner(f)
	sc.Scan() // header
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 10 || fields[3] != listen {
			continue
		}
		_, hexPort, ok := strings.Cut(fields[1], ":")
		if !ok {
			continue
		}
		if p, err := strconv.ParseUint(hexPort, 16, 16); err == nil && int(p) == port {
			inodes[fields[9]] = true
		}
	}
}
