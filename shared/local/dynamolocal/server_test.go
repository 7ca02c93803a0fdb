package dynamolocal

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/moveleads/partnerapi/shared/testkit/childproctest"
)

// startServer starts a server for one test and stops it at the end.
func startServer(t *testing.T) *Server {
	t.Helper()
	if testing.Short() {
		t.Skip("starts DynamoDB Local (a JVM)")
	}
	s, took := childproctest.StartServer(t, forTestsTimeout, startShortLived)
	t.Logf("DynamoDB Local ready at %s after %v", s.Endpoint, took)
	return s
}

// listTables sends a ListTables call, with a dummy SigV4 Authorization
// header when authorization is set (DynamoDB Local does not check
// signatures), and returns the status and the decoded JSON body.
func listTables(t *testing.T, endpoint, authorization string) (int, map[string]any) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, endpoint+"/", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("X-Amz-Target", "DynamoDB_20120810.ListTables")
	req.Header.Set("Content-Type", "application/x-amz-json-1.0")
	if authorization != "" {
		req.Header.Set("Authorization", authorization)
	}
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("ListTables: %v", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("read ListTables response: %v", err)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "application/x-amz-json-1.0" {
		t.Errorf("ListTables Content-Type = %q; want application/x-amz-json-1.0", ct)
	}
	var doc map[string]any
	if err := json.Unmarshal(body, &doc); err != nil {
		t.Fatalf("ListTables body %q is not JSON: %v", body, err)
	}
	return resp.StatusCode, doc
}

// TestStartAnswersLikeDynamoDBAndStopCloses gives the first attempt a port
// that another listener holds: the JVM cannot bind it, and the listener
// must not pass for the server. The server of the retry is then the one
// checked and stopped (each JVM start costs seconds; a start without a
// taken port is every other test's).
func TestStartAnswersLikeDynamoDBAndStopCloses(t *testing.T) {
	if testing.Short() {
		t.Skip("starts DynamoDB Local (a JVM)")
	}
	var s *Server
	childproctest.RetriesPastTakenPort(t, &pickPorts, func() string { s = startServer(t); return s.Endpoint })
	if !strings.HasPrefix(s.Endpoint, "http://127.0.0.1:") {
		t.Errorf("Endpoint = %q; want http://127.0.0.1:PORT", s.Endpoint)
	}

	t.Run("unsigned request is refused DynamoDB-style", func(t *testing.T) {
		status, doc := listTables(t, s.Endpoint, "")
		typ, _ := doc["__type"].(string)
		if status != http.StatusBadRequest || !strings.HasSuffix(typ, "#MissingAuthenticationToken") {
			t.Errorf("unsigned ListTables = %d %v; want 400 with __type ...#MissingAuthenticationToken", status, doc)
		}
	})
	t.Run("signed request lists no tables", func(t *testing.T) {
		const auth = "AWS4-HMAC-SHA256 Credential=local/20260101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=00"
		status, doc := listTables(t, s.Endpoint, auth)
		names, ok := doc["TableNames"].([]any)
		if status != http.StatusOK || !ok || len(names) != 0 {
			t.Errorf("ListTables = %d %v; want 200 {\"TableNames\":[]}", status, doc)
		}
	})
	t.Run("listens on loopback only", func(t *testing.T) { checkListensOnLoopbackOnly(t, s) })
	t.Run("a test's server runs the short-lived JVM flags", func(t *testing.T) {
		cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", s.Pid()))
		if err != nil {
			t.Skipf("no /proc here: %v", err)
		}
		args := strings.Split(string(cmdline), "\x00")
		for _, f := range shortLivedJVM {
			if !slices.Contains(args, f) {
				t.Errorf("the JVM of a test binary's server runs with %q; want %s (ShortLived)", args, f)
			}
		}
	})

	childproctest.StopCloses(t, s.Stop, strings.TrimPrefix(s.Endpoint, "http://"), nil)
}

func TestStopReportsServerThatDiedFirst(t *testing.T) {
	s := startServer(t)
	childproctest.StopReportsDeath(t, s.proc.Pid(), s.proc.Done(), s.Stop)
}

func TestStartHonoursCanceledContext(t *testing.T) {
	if testing.Short() {
		t.Skip("may install DynamoDB Local")
	}
	childproctest.StartHonoursCanceledContext(t, forTestsTimeout, installOnly, startShortLived)
}

func TestForTestsPrefersRunningStack(t *testing.T) {
	const endpoint = "http://127.0.0.1:1"
	t.Setenv("AWS_ENDPOINT_URL_DYNAMODB", endpoint)
	got, stop, err := ForTests()
	if err != nil || got != endpoint {
		t.Fatalf("ForTests() = %q, %v; want %q, nil", got, err, endpoint)
	}
	stop()
}

func TestForTestsSharesOneServer(t *testing.T) {
	if testing.Short() {
		t.Skip("starts DynamoDB Local (a JVM)")
	}
	t.Setenv("AWS_ENDPOINT_URL_DYNAMODB", "")
	childproctest.SharesOneServer(t, ForTests, func(endpoint string) string { return endpoint }, func(t *testing.T, endpoint string) {
		if status, _ := listTables(t, endpoint, ""); status != http.StatusBadRequest {
			t.Errorf("unsigned ListTables status = %d; want 400", status)
		}
	})
}

// installOnly installs the server (for StartHonoursCanceledContext).
func installOnly(ctx context.Context) error {
	_, err := Install(ctx)
	return err
}

// TestShortLivedOnlyAddsItsFlags: make dev and make bench's load sections
// (no option) keep the JVM's optimising compiler and default collector,
// which set a server's steady throughput; ShortLived adds only its flags.
func TestShortLivedOnlyAddsItsFlags(t *testing.T) {
	main := mainClass{classPath: "DynamoDBLocal.jar", name: defaultMainClass}
	args := func(o options) []string {
		cmd, _, err := command("java", "/opt/ddb", main, o)([]int{8000})
		if err != nil {
			t.Fatal(err)
		}
		return cmd.Args[1:]
	}
	long, short := args(options{}), args(options{shortLived: true})
	for _, f := range shortLivedJVM {
		if slices.Contains(long, f) {
			t.Errorf("the default server runs %v; want the JVM's defaults (no %s)", long, f)
		}
	}
	if want := slices.Insert(slices.Clone(long), 1, shortLivedJVM...); !slices.Equal(short, want) {
		t.Errorf("ShortLived runs %v; want %v", short, want)
	}
}
