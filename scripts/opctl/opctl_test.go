package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/moveleads/partnerapi/scripts/devstack/devfile"
	"github.com/moveleads/partnerapi/shared/adapter/dynamo"
	"github.com/moveleads/partnerapi/shared/domain/errcode"
	"github.com/moveleads/partnerapi/shared/domain/estimate"
	"github.com/moveleads/partnerapi/shared/domain/partner"
	"github.com/moveleads/partnerapi/shared/testkit/apitest"
)

func TestMain(m *testing.M) { apitest.Main(m) }

var tableSeq atomic.Int64

// newStore returns a Store over a fresh table on the DynamoDB Local that
// TestMain configured, deleted when the test ends.
func newStore(t *testing.T) *dynamo.Store {
	t.Helper()
	ctx := context.Background()
	cfg, err := config.LoadDefaultConfig(ctx)
	if err != nil {
		t.Fatalf("load AWS config: %v", err)
	}
	db := dynamodb.NewFromConfig(cfg)
	name := fmt.Sprintf("opctl-%d-%d", time.Now().UnixNano(), tableSeq.Add(1))
	if err := dynamo.CreateTables(ctx, db, name); err != nil {
		t.Fatalf("create table: %v", err)
	}
	t.Cleanup(func() { _ = dynamo.DeleteTables(context.Background(), db, name) })
	return dynamo.New(db, name)
}

// result is one run of opctl. using is the line naming the table ("" when
// none was printed); stderr is the rest of stderr.
type result struct {
	args                  []string
	code                  int
	stdout, stderr, using string
}

// split separates the line naming the table from the rest of stderr.
func split(args []string, code int, stdout, stderr string) result {
	r := result{args: args, code: code, stdout: stdout, stderr: stderr}
	if strings.HasPrefix(stderr, usingPrefix) {
		line, rest, _ := strings.Cut(stderr, "\n")
		r.using, r.stderr = line, rest
	}
	return r
}

// opctl runs the CLI in-process against table (TABLE_NAME unset when ""),
// with the rest of the AWS configuration from the process environment.
func opctl(t *testing.T, table string, args ...string) result {
	t.Helper()
	return opctlEnv(t, map[string]string{"TABLE_NAME": table}, args...)
}

// opctlEnv runs the CLI in-process with the variables vars (every other
// variable of the environment opctl chooses unset), and the rest of the
// AWS configuration from the process environment.
func opctlEnv(t *testing.T, vars map[string]string, args ...string) result {
	t.Helper()
	var stdout, stderr bytes.Buffer
	env := func(k string) string { return vars[k] }
	resolve := func(context.Context) devfile.Choice { return devfile.Choice{Getenv: env} }
	code := run(context.Background(), args, &stdout, &stderr, resolve)
	return split(args, code, stdout.String(), stderr.String())
}

// ok asserts that r succeeded with a JSON object on stdout and only the
// line naming the table on stderr, and decodes stdout into a T.
func ok[T any](t *testing.T, r result) T {
	t.Helper()
	if r.code != 0 || r.stderr != "" || r.using == "" {
		t.Fatalf("opctl %q: exit %d, stderr %q after %q; want exit 0 and only the line naming the table", r.args, r.code, r.stderr, r.using)
	}
	var v T
	dec := json.NewDecoder(strings.NewReader(r.stdout))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("opctl %q: decode stdout %q: %v", r.args, r.stdout, err)
	}
	return v
}

// fields returns the top-level field names of the JSON object in s.
func fields(t *testing.T, s string) []string {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatalf("stdout %q is not a JSON object: %v", s, err)
	}
	return slices.Sorted(maps.Keys(m))
}

// fails asserts that r exited with code, printed nothing on stdout and one
// line "opctl: ..." containing want on stderr.
func fails(t *testing.T, r result, code int, want string) {
	t.Helper()
	if r.code != code {
		t.Errorf("opctl %q: exit %d; want %d (stderr %q)", r.args, r.code, code, r.stderr)
	}
	if r.stdout != "" {
		t.Errorf("opctl %q: stdout %q; want none", r.args, r.stdout)
	}
	if !strings.HasPrefix(r.stderr, "opctl: ") || strings.Count(r.stderr, "\n") != 1 || !strings.HasSuffix(r.stderr, "\n") {
		t.Errorf("opctl %q: stderr %q; want one line starting \"opctl: \"", r.args, r.stderr)
	}
	if !strings.Contains(r.stderr, want) {
		t.Errorf("opctl %q: stderr %q; want it to contain %q", r.args, r.stderr, want)
	}
}

// createPartner runs partner create and returns the partner id.
func createPartner(t *testing.T, s *dynamo.Store, args ...string) string {
	t.Helper()
	out := ok[partnerCreated](t, opctl(t, s.Table(), append([]string{"partner", "create", "--name", "Acme Movers"}, args...)...))
	return out.PartnerID
}

// createKey runs key create and returns its output.
func createKey(t *testing.T, s *dynamo.Store, partnerID string, args ...string) keyCreated {
	t.Helper()
	return ok[keyCreated](t, opctl(t, s.Table(), append([]string{"key", "create", "--partner", partnerID}, args...)...))
}

func TestHelp(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		args      []string
		wantCode  int
		toStdout  bool   // the usage goes to stdout (help asked for) or stderr
		firstLine string // an error line before the usage on stderr
	}{
		{"help", []string{"help"}, exitOK, true, ""},
		{"-h", []string{"-h"}, exitOK, true, ""},
		{"--help", []string{"--help"}, exitOK, true, ""},
		{"-help", []string{"-help"}, exitOK, true, ""},
		{"subcommand -h", []string{"key", "create", "-h"}, exitOK, true, ""},
		{"subcommand --help", []string{"partner", "beta", "--help"}, exitOK, true, ""},
		{"no arguments", nil, exitUsage, false, ""},
		{"unknown command", []string{"lead", "delete"}, exitUsage, false, `opctl: unknown command "lead delete"; see opctl help`},
		{"group only", []string{"partner"}, exitUsage, false, `opctl: unknown command "partner"; see opctl help`},
		{"unknown verb", []string{"key", "rotate", "--partner", "ptn_x"}, exitUsage, false, `opctl: unknown command "key rotate"; see opctl help`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := opctl(t, "", tt.args...)
			if r.code != tt.wantCode {
				t.Errorf("opctl %q: exit %d; want %d", tt.args, r.code, tt.wantCode)
			}
			wantOut, wantErr := "", usage()
			if tt.toStdout {
				wantOut, wantErr = usage(), ""
			}
			if tt.firstLine != "" {
				wantErr = tt.firstLine + "\n" + wantErr
			}
			if r.stdout != wantOut {
				t.Errorf("opctl %q: stdout %q; want %q", tt.args, r.stdout, wantOut)
			}
			if r.stderr != wantErr {
				t.Errorf("opctl %q: stderr %q; want %q", tt.args, r.stderr, wantErr)
			}
			if r.using != "" {
				t.Errorf("opctl %q named a table (%q); want none without a command", tt.args, r.using)
			}
		})
	}
	for _, c := range commands {
		if !strings.Contains(usage(), c.name+" ") {
			t.Errorf("usage does not list %q", c.name)
		}
	}
	for _, f := range partner.Features {
		if !strings.Contains(usage(), string(f)) {
			t.Errorf("usage does not list beta feature %q", f)
		}
	}
}

func TestConfigAndUpstreamErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		table string
		args  []string
		want  string
	}{
		{"no TABLE_NAME", "", []string{"partner", "create", "--name", "A"}, "opctl: TABLE_NAME is not set"},
		{"blank TABLE_NAME", "  ", []string{"key", "list", "--partner", "ptn_x"}, "opctl: TABLE_NAME is not set"},
		{"missing table", "opctl-no-such-table", []string{"key", "revoke", "key_x"}, "opctl: DynamoDB request failed: get API key: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := opctl(t, tt.table, tt.args...)
			fails(t, r, exitFailure, tt.want)
			if !strings.HasPrefix(r.stderr, tt.want) {
				t.Errorf("stderr %q; want it to start %q", r.stderr, tt.want)
			}
			if strings.Contains(r.stderr, "Idempotency-Key") {
				t.Errorf("stderr %q carries the API client's message; want the operator's", r.stderr)
			}
		})
	}
}

func TestErrorLine(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"plain", fmt.Errorf("partner ptn_x not found"), "opctl: partner ptn_x not found"},
		{"joined", fmt.Errorf("bad: %w", estimate.RateCard{Currency: "usd", Crew: 0, HourlyCents: -1}.Validate()),
			"opctl: bad: hourly_cents must be between 0 and 100000 (minor units per mover per hour); got -1; crew must be between 1 and 10 movers; got 0"},
		{"carriage returns and tabs", fmt.Errorf("a\r\n\tb  c\n\n"), "opctl: a; b c"},
		{"coded", errcode.New(errcode.NotFound, "No partner with that id exists for this API key."), "opctl: No partner with that id exists for this API key."},
		{"upstream", errcode.Upstream("put partner", fmt.Errorf("operation error DynamoDB: PutItem,\nboom")), "opctl: DynamoDB request failed: put partner: operation error DynamoDB: PutItem,; boom"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := errorLine(tt.err); got != tt.want {
				t.Errorf("errorLine = %q; want %q", got, tt.want)
			}
		})
	}
}

// FuzzParse checks that no command line makes parse panic and that every
// rejected one yields a single error line.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"partner\x00create\x00--name\x00Acme",
		"partner\x00rate-card\x00--partner\x00ptn_x\x00--crew\x000",
		"key\x00create\x00--partner\x00p\x00--mode\x00live\x00--scopes\x00leads:read,,x",
		"key\x00revoke\x00key_1\x00key_2",
		"key\x00list\x00-h",
		"partner\x00beta\x00--partner\x00p\x00--enable\x00deposits,,x\x00--disable\x00deposits",
		"partner\x00capture-link\x00--partner\x00p\x00--lifetime\x001d-1h\x00--default",
		"survey\x00grants\x00--survey\x00a b",
		"survey\x00opens\x00--survey\x00s\x00--limit\x00-1",
		"webhook\x00add\x00--partner\x00p\x00--mode\x00live\x00--url\x00http://x\x00--events\x00survey.completed,,nope",
		"webhook\x00list\x00--partner\x00p\x00--mode\x00prod",
		"webhook\x00deliveries\x00--endpoint\x00we_1\x00--limit\x000",
		"webhook\x00redeliver\x00--delivery\x00msg__we_",
		"webhook\x00replay\x00--partner\x00p\x00--mode\x00test",
		"partner\x00deposits\x00--partner\x00p\x00--usdot\x00123456789\x00--checkout-ttl\x001d",
		"partner\x00deposits\x00--partner\x00p\x00--stripe-account\x00acct_\x00--default-deposit-cents\x0099",
		"quote\x00evidence\x00--partner\x00p\x00--mode\x00live\x00--lead\x00a b",
		"deposit\x00simulate\x00--partner\x00p\x00--mode\x00test\x00--deposit\x00d\x00--event\x00nope\x00--event-id\x00evt_",
		"deposit\x00simulate\x00--partner\x00p\x00--mode\x00live\x00--deposit\x00d\x00--event\x00paid\x00--url\x00ftp://x",
		"",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var args []string
		if s != "" {
			args = strings.Split(s, "\x00")
		}
		_, err := parse(args)
		if err == nil {
			return
		}
		if line := errorLine(err); strings.ContainsAny(line, "\n\r") {
			t.Errorf("errorLine(parse(%q)) = %q; want one line", args, line)
		}
	})
}
