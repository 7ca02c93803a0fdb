package main

import (
	"bytes"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// fakeGoEnv, when set, makes the test binary a stand-in for go test (see
// TestMain) that writes what it saw to the file the variable names.
const fakeGoEnv = "TESTSTACK_FAKE_GO"

func TestMain(m *testing.M) {
	if record := os.Getenv(fakeGoEnv); record != "" {
		os.Exit(fakeGo(record))
	}
	os.Exit(m.Run())
}

// fakeGo records its arguments and, for each server variable, the value
// and whether the server there answers HTTP, then exits 3.
func fakeGo(record string) int {
	lines := []string{strings.Join(os.Args[1:], " ")}
	for _, v := range []struct{ name, path string }{
		{"AWS_ENDPOINT_URL_DYNAMODB", "/"},
		{"AWS_ENDPOINT_URL_S3", "/minio/health/live"},
		{"STRIPE_API_URL", "/v1/balance"},
	} {
		url := os.Getenv(v.name)
		answer := "no answer"
		if resp, err := http.Get(url + v.path); err == nil {
			resp.Body.Close()
			answer = "answers"
		}
		lines = append(lines, v.name+"="+url+" "+answer)
	}
	lines = append(lines, "AWS_ACCESS_KEY_ID="+os.Getenv("AWS_ACCESS_KEY_ID"))
	if err := os.WriteFile(record, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		return 1
	}
	// go test's summary line of one package, for the durations record.
	os.Stdout.WriteString("ok  \texample.com/slow\t12.500s\n")
	return 3
}

// TestRunSharesServersAndPassesStatus runs a stand-in for go test (this
// binary, see fakeGo) that exits 3: run must pass "test" and the
// arguments, point the child at three servers that answer while it runs,
// with MinIO's credentials, and return 3. Under make test the variables
// are already set, so the servers are the run's own; alone, this test
// starts them.
func TestRunSharesServersAndPassesStatus(t *testing.T) {
	if testing.Short() {
		t.Skip("may start DynamoDB Local, MinIO and stripe-mock")
	}
	record := filepath.Join(t.TempDir(), "record")
	t.Setenv(fakeGoEnv, record)
	getenv := func(k string) string {
		if k == "GO" {
			return os.Args[0]
		}
		return os.Getenv(k)
	}
	durations := filepath.Join(t.TempDir(), "durations.json")
	t.Setenv(DurationsVar, durations)
	var out bytes.Buffer
	if code := run([]string{"-race", "-count=1", "./..."}, getenv, &out, &out); code != 3 {
		t.Fatalf("run = %d; want go test's 3 (output %q)", code, out.String())
	}
	b, err := os.ReadFile(record)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	if len(lines) != 5 || lines[0] != "test -race -count=1 ./..." {
		t.Fatalf("child got %q; want the arguments after test, then 4 variables", lines)
	}
	for _, l := range lines[1:4] {
		if !strings.Contains(l, "=http://127.0.0.1:") || !strings.HasSuffix(l, " answers") {
			t.Errorf("child saw %q; want a loopback server that answers", l)
		}
	}
	if key := strings.TrimPrefix(lines[4], "AWS_ACCESS_KEY_ID="); key == "" || key == "local" {
		t.Errorf("AWS_ACCESS_KEY_ID = %q; want MinIO's credentials, which DynamoDB Local also accepts", key)
	}
	if d := readDurations(durations); d["example.com/slow"] != 12.5 {
		t.Errorf("recorded durations %v; want example.com/slow's 12.5 s from go test's output", d)
	}
}

// TestRunChildPassesSignals: a signal run receives reaches go test, and
// run then returns 128 + the signal, as a shell would.
func TestRunChildPassesSignals(t *testing.T) {
	cmd := exec.Command("sleep", "60")
	sigs := make(chan os.Signal, 1)
	sigs <- syscall.SIGTERM
	var out bytes.Buffer
	if code := runChild(cmd, sigs, &out); code != 128+int(syscall.SIGTERM) {
		t.Errorf("runChild = %d (output %q); want %d", code, out.String(), 128+int(syscall.SIGTERM))
	}
}

func TestRunChildExitStatus(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want int
	}{
		{[]string{"-c", "exit 0"}, 0},
		{[]string{"-c", "exit 1"}, 1},
		{[]string{"-c", "exit 2"}, 2},
	} {
		var out bytes.Buffer
		if code := runChild(exec.Command("sh", tt.args...), nil, &out); code != tt.want {
			t.Errorf("sh %q: runChild = %d; want %d", tt.args, code, tt.want)
		}
	}
	if code := runChild(exec.Command(filepath.Join(t.TempDir(), "missing")), nil, &bytes.Buffer{}); code != 1 {
		t.Errorf("missing command: runChild = %d; want 1", code)
	}
}
