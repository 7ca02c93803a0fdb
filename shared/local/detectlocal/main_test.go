package detectlocal

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// testServer is the sidecar of this test binary; nil under -short.
var testServer *Server

func TestMain(m *testing.M) {
	flag.Parse()
	// The helper parent of the parent-death test starts its own sidecar.
	if testing.Short() || os.Getenv(helperEnv) == "1" {
		os.Exit(m.Run())
	}
	srv, stop, err := ForTests()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	testServer = srv
	code := m.Run()
	stop()
	os.Exit(code)
}

// sidecar returns the test binary's sidecar; it skips the test under -short.
func sidecar(t *testing.T) *Server {
	t.Helper()
	if testing.Short() {
		t.Skip("runs the detector sidecar (Node.js, CenterNet)")
	}
	return testServer
}

// frame reads a test frame from testdata.
func frame(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}
