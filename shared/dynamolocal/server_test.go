package dynamolocal

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/moveleads/partnerapi/shared/childproc"
	"github.com/moveleads/partnerapi/shared/childproc/childproctest"
)

// startServer starts a server for one test and stops it at the end.
func startServer(t *testing.T) *Server {
	t.Helper()
	if testing.Short() {
		t.Skip("starts DynamoDB Local (a JVM)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), forTestsTimeout)
	defer cancel()
	began := time.Now()
	s, err := Start(ctx)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Logf("DynamoDB Local ready at %s after %v", s.Endpoint, time.Since(began))
	t.Cleanup(func() { _ = s.Stop() })
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

func TestStartAnswersLikeDynamoDBAndStopCloses(t *testing.T) {
	s := startServer(t)
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

	if err := s.Stop(); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	host := strings.TrimPrefix(s.Endpoint, "http://")
	if conn, err := net.DialTimeout("tcp", host, time.Second); err == nil {
		conn.Close()
		t.Errorf("dial %s after Stop succeeded; want connection refused", host)
	}
	if err := s.Stop(); err != nil {
		t.Errorf("second Stop = %v; want nil", err)
	}
}

func TestStopReportsServerThatDiedFirst(t *testing.T) {
	s := startServer(t)
	p, err := os.FindProcess(s.proc.Pid())
	if err != nil {
		t.Fatal(err)
	}
	if err := childproc.KillGroup(p); err != nil {
		t.Fatalf("kill: %v", err)
	}
	<-s.proc.Done()
	if err := s.Stop(); err == nil {
		t.Error("Stop after the server died = nil; want an error")
	}
}

func TestStartHonoursCanceledContext(t *testing.T) {
	if testing.Short() {
		t.Skip("may install DynamoDB Local")
	}
	ctx, cancel := context.WithTimeout(context.Background(), forTestsTimeout)
	defer cancel()
	if _, err := Install(ctx); err != nil {
		t.Fatalf("Install: %v", err)
	}
	canceled, cancelNow := context.WithCancel(context.Background())
	cancelNow()
	s, err := Start(canceled)
	if err == nil {
		_ = s.Stop()
		t.Fatal("Start(canceled ctx) = nil error; want context.Canceled")
	}
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Start(canceled ctx) = %v; want context.Canceled", err)
	}
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
	first, stop, err := ForTests()
	if err != nil {
		t.Fatalf("ForTests: %v", err)
	}
	second, _, err := ForTests()
	if err != nil || second != first {
		t.Errorf("second ForTests() = %q, %v; want %q, nil", second, err, first)
	}
	if status, _ := listTables(t, first, ""); status != http.StatusBadRequest {
		t.Errorf("unsigned ListTables status = %d; want 400", status)
	}
	stop()
	host := strings.TrimPrefix(first, "http://")
	if conn, err := net.DialTimeout("tcp", host, time.Second); err == nil {
		conn.Close()
		t.Errorf("dial %s after stop succeeded; want connection refused", host)
	}
}

// TestStartRetriesWhenPortIsTaken gives the first attempt a port that
// another listener holds: the JVM cannot bind it, and the listener must not
// pass for the server.
func TestStartRetriesWhenPortIsTaken(t *testing.T) {
	if testing.Short() {
		t.Skip("starts DynamoDB Local (a JVM)")
	}
	takenPort, pick, calls := childproctest.TakenPortFirst(t)
	pickPorts = pick
	t.Cleanup(func() { pickPorts = childproc.FreePorts })

	s := startServer(t)
	if *calls != 2 {
		t.Errorf("Start picked %d ports; want 2", *calls)
	}
	if want := fmt.Sprintf("http://127.0.0.1:%d", takenPort); s.Endpoint == want {
		t.Errorf("Endpoint = %q, the taken port", s.Endpoint)
	}
	if status, _ := listTables(t, s.Endpoint, ""); status != http.StatusBadRequest {
		t.Errorf("unsigned ListTables status = %d; want 400", status)
	}
}
