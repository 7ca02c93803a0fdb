package awsenv

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/moveleads/partnerapi/shared/spec/manifest"
	"github.com/moveleads/partnerapi/shared/spec/table"
)

func envOf(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

var lambdaVars = map[string]string{
	"TABLE_NAME": "t", "AWS_REGION": "us-east-1", "AWS_ACCESS_KEY_ID": "id", "AWS_SECRET_ACCESS_KEY": "secret",
}

func withVars(extra map[string]string) map[string]string {
	m := map[string]string{}
	for k, v := range lambdaVars {
		m[k] = v
	}
	for k, v := range extra {
		m[k] = v
	}
	return m
}

func TestLoadNeedsTableAndLambdaVariables(t *testing.T) {
	if _, err := load(envOf(withVars(nil))); err != nil {
		t.Fatalf("load with Lambda's variables: %v", err)
	}
	for _, missing := range []string{"TABLE_NAME", "AWS_REGION", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"} {
		m := withVars(nil)
		delete(m, missing)
		if _, err := load(envOf(m)); err == nil {
			t.Errorf("load without %s: nil error; want one", missing)
		}
	}
}

// The events table's name is its own setting where the stack gives it,
// else the local name derived from the table's.
func TestLoadEventsTable(t *testing.T) {
	for _, tc := range []struct {
		vars map[string]string
		want string
	}{
		{nil, table.EventsName("t")},
		{map[string]string{"EVENTS_TABLE_NAME": "Stack-EventsTable-X1"}, "Stack-EventsTable-X1"},
	} {
		e, err := load(envOf(withVars(tc.vars)))
		if err != nil {
			t.Fatal(err)
		}
		if got := e.Store.EventsTable(); got != tc.want {
			t.Errorf("events table with %v = %q; want %q", tc.vars, got, tc.want)
		}
	}
}

const cursorARN = "arn:aws:secretsmanager:us-east-1:1:secret:cursor-AbCdEf"

// secretsStandIn serves GetSecretValue of cursorARN (a hex key) as Secrets
// Manager's JSON 1.1 protocol does, and ResourceNotFoundException for any
// other id (secrets_test.go's stand-in checks the wire more closely).
func secretsStandIn(t *testing.T) string {
	return countingStandIn(t, new(atomic.Int32))
}

// countingStandIn is secretsStandIn counting the GetSecretValue calls it
// answers in reads.
func countingStandIn(t *testing.T, reads *atomic.Int32) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reads.Add(1)
		var in struct{ SecretId string }
		_ = json.NewDecoder(r.Body).Decode(&in)
		w.Header().Set("Content-Type", "application/x-amz-json-1.1")
		if r.Header.Get("X-Amz-Target") != "secretsmanager.GetSecretValue" || in.SecretId != cursorARN {
			w.WriteHeader(http.StatusBadRequest)
			_, _ = io.WriteString(w, `{"__type":"ResourceNotFoundException","message":"Secrets Manager can't find the specified secret."}`)
			return
		}
		_ = json.NewEncoder(w).Encode(map[string]string{"ARN": in.SecretId, "SecretString": strings.Repeat("ab", 32)})
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

func TestSecretFromEnvironment(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name    string
		vars    map[string]string
		want    string // hex of the key, or "" for an error
		errText string
	}{
		{"hex value", map[string]string{"CURSOR_SECRET": strings.Repeat("ab", 32)}, strings.Repeat("ab", 32), ""},
		// Before, a malformed hex secret was silently taken as raw bytes.
		{"malformed hex", map[string]string{"CURSOR_SECRET": "not-hex!"}, "", "not hex"},
		{"odd length", map[string]string{"CURSOR_SECRET": "abc"}, "", "not hex"},
		{"none", nil, "", "neither"},
		{"ARN, read from Secrets Manager", map[string]string{"CURSOR_SECRET_ARN": cursorARN, "AWS_ENDPOINT_URL_SECRETS_MANAGER": secretsStandIn(t)}, strings.Repeat("ab", 32), ""},
		{"ARN of a missing secret", map[string]string{"CURSOR_SECRET_ARN": cursorARN + "-gone", "AWS_ENDPOINT_URL_SECRETS_MANAGER": secretsStandIn(t)}, "", "ResourceNotFoundException"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e, err := load(envOf(withVars(c.vars)))
			if err != nil {
				t.Fatal(err)
			}
			b, err := e.Secret(manifest.SecretCursor)(ctx)
			if c.errText != "" {
				if err == nil || !strings.Contains(err.Error(), c.errText) {
					t.Errorf("error %v; want one mentioning %q", err, c.errText)
				}
				return
			}
			if err != nil || len(b) != 32 || b[0] != 0xab {
				t.Errorf("got %x, %v; want the decoded key", b, err)
			}
		})
	}
}

func TestCheckSecretsAgainstManifest(t *testing.T) {
	list, _ := manifest.BySlug("v1-leads-list")
	get, _ := manifest.BySlug("v1-lead-get")
	e := ForTools(nil, nil, func(string) func(context.Context) ([]byte, error) { return nil }, aws.Config{})
	if err := e.Check(get); err != nil {
		t.Errorf("no secrets read, none listed: %v", err)
	}
	if err := e.Check(list); err == nil {
		t.Error("list lists the cursor secret but nothing read it: nil error; want one")
	}
	e.Secret(manifest.SecretCursor)
	if err := e.Check(list); err != nil {
		t.Errorf("cursor read and listed: %v", err)
	}
	if err := e.Check(get); err == nil {
		t.Error("cursor read by a function that does not list it: nil error; want one")
	}
}

// TestSecretReadOncePerTTL: every loader of a secret shares one value,
// read from Secrets Manager once per instance per SecretTTL; a failed
// read is not kept. Before the cache, each use was a paid GetSecretValue.
func TestSecretReadOncePerTTL(t *testing.T) {
	ctx := context.Background()
	var reads atomic.Int32
	url := countingStandIn(t, &reads)
	e, err := load(envOf(withVars(map[string]string{"CURSOR_SECRET_ARN": cursorARN, "AWS_ENDPOINT_URL_SECRETS_MANAGER": url})))
	if err != nil {
		t.Fatal(err)
	}
	clock := time.Date(2026, 3, 1, 8, 0, 0, 0, time.UTC)
	e.now = func() time.Time { return clock }
	a, b := e.Secret(manifest.SecretCursor), e.Secret(manifest.SecretCursor)
	for range 5 {
		for _, load := range []func(context.Context) ([]byte, error){a, b} {
			if v, err := load(ctx); err != nil || len(v) != 32 {
				t.Fatalf("load = %x, %v; want the key", v, err)
			}
		}
	}
	if n := reads.Load(); n != 1 {
		t.Errorf("10 uses of two loaders made %d reads; want 1", n)
	}
	clock = clock.Add(SecretTTL - time.Second)
	if _, err := a(ctx); err != nil || reads.Load() != 1 {
		t.Errorf("just before SecretTTL: %v, %d reads; want the kept value, 1 read", err, reads.Load())
	}
	clock = clock.Add(time.Second)
	if _, err := b(ctx); err != nil || reads.Load() != 2 {
		t.Errorf("at SecretTTL: %v, %d reads; want a second read", err, reads.Load())
	}

	var missReads atomic.Int32
	miss, err := load(envOf(withVars(map[string]string{"CURSOR_SECRET_ARN": cursorARN + "-gone", "AWS_ENDPOINT_URL_SECRETS_MANAGER": countingStandIn(t, &missReads)})))
	if err != nil {
		t.Fatal(err)
	}
	gone := miss.Secret(manifest.SecretCursor)
	for range 2 {
		if _, err := gone(ctx); err == nil {
			t.Fatal("a missing secret: nil error")
		}
	}
	if n := missReads.Load(); n != 2 {
		t.Errorf("two uses of a missing secret made %d reads; want 2 (a failure is not kept)", n)
	}
}
