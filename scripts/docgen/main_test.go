package main

import (
	"os"
	"strings"
	"testing"

	"github.com/moveleads/partnerapi/shared/domain/errcode"
	"github.com/moveleads/partnerapi/shared/spec/manifest"
)

// TestReadmeIsCurrent fails when README.md's generated tables differ from
// the manifest, the error-code table or the key builders.
func TestReadmeIsCurrent(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	got, err := Render(string(b))
	if err != nil {
		t.Fatal(err)
	}
	if got != string(b) {
		t.Fatal("README.md is stale: run `make docs`")
	}
	for _, r := range manifest.Routes() {
		for _, p := range r.Paths() {
			if !strings.Contains(got, "`"+p+"`") {
				t.Errorf("README does not show %s", p)
			}
		}
	}
	for _, f := range manifest.Functions {
		if !strings.Contains(got, "| `functions/"+f.Slug+"` |") {
			t.Errorf("README's functions table does not show %s", f.Slug)
		}
	}
	for _, e := range errcode.Table {
		if !strings.Contains(got, "`"+string(e.Code)+"`") {
			t.Errorf("README does not show error code %s", e.Code)
		}
	}
}

// TestEveryAuthKindHasALabel: each auth kind a route of the manifest uses
// has a label in the docs, not its bare name.
func TestEveryAuthKindHasALabel(t *testing.T) {
	for _, r := range manifest.Routes() {
		if _, ok := authNames[r.Auth]; !ok {
			t.Errorf("%s: auth kind %q has no label in authNames", r.Operation, r.Auth)
		}
	}
}

func TestRenderNeedsEveryBlock(t *testing.T) {
	if _, err := Render("no blocks here"); err == nil {
		t.Error("Render of a document without blocks succeeded; want an error")
	}
}

// row returns the line of table whose cells include cell.
func row(t *testing.T, table, cell string) string {
	t.Helper()
	for line := range strings.Lines(table) {
		if strings.Contains(line, "| "+cell+" |") {
			return strings.TrimSpace(line)
		}
	}
	t.Fatalf("no row with cell %q in\n%s", cell, table)
	return ""
}

func TestRoutesTable(t *testing.T) {
	tbl := routes()
	tests := []struct{ name, cell, want string }{
		{"createLead is idempotent", "createLead",
			"| createLead | POST | `/v1-leads` | `/v1/leads` | API key (Bearer) | `leads:write` |  | yes (`Idempotency-Key`) | `functions/v1-leads` |"},
		{"getLead is not", "getLead",
			"| getLead | GET | `/v1-lead-get/{lead_id}` | `/v1/leads/{id}` | API key (Bearer) | `leads:read` |  |  | `functions/v1-lead-get` |"},
		{"beta, quote token", "quotePage",
			"| quotePage | GET | `/v1-quote/{token}` | — | quote token (in the path) | — |  |  | `functions/v1-quote` |"},
		{"beta partner route", "createDeposit",
			"| createDeposit | POST | `/v1-deposits` | `/v1/deposits` | API key (Bearer) | `deposits:write` | beta `deposits` | yes (`Idempotency-Key`) | `functions/v1-deposits` |"},
		{"processor signature", "stripeWebhook",
			"| stripeWebhook | POST | `/stripe-webhook/{mode}` | — | Stripe signature (`Stripe-Signature`) | — |  |  | `functions/stripe-webhook` |"},
		{"$default route", "routeNotFound",
			"| routeNotFound | any | `$default`: any path and method no route matches | — | none | — |  |  | `functions/route-not-found` |"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := row(t, tbl, tt.cell); got != tt.want {
				t.Errorf("row\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
	if got, want := strings.Count(tbl, "\n"), 2+len(manifest.Routes()); got != want {
		t.Errorf("routes table has %d lines; want %d (header, rule, one per route)", got, want)
	}
	lines := strings.Split(strings.TrimSpace(tbl), "\n")
	if last := lines[len(lines)-1]; !strings.Contains(last, "$default") {
		t.Errorf("last row %q; want the $default route last", last)
	}
}

func TestFunctionsTable(t *testing.T) {
	clipProcessor, ok := manifest.BySlug("clip-processor")
	if !ok {
		t.Fatal("no clip-processor in the manifest")
	}
	tbl := functions()
	tests := []struct{ name, cell, want string }{
		{"writes show their leading keys", "`functions/v1-leads`",
			"| `functions/v1-leads` | HTTP: createLead | " + manifest.FunctionOf(manifest.CreateLead).Summary +
				" | UpdateItem `APIKEY#*` (authenticate and count); GetItem; PutItem, UpdateItem, ConditionCheckItem `PARTNER#*#MODE#*#LEAD#*`, `PARTNER#*#MODE#*#IDEM#*` | — | — |"},
		{"secrets", "`functions/v1-leads-list`",
			"| `functions/v1-leads-list` | HTTP: listLeads | " + manifest.FunctionOf(manifest.ListLeads).Summary +
				" | UpdateItem `APIKEY#*` (authenticate and count); Query `gsi1` | — | `cursor-signing-key` |"},
		{"no table access", "`functions/route-not-found`",
			"| `functions/route-not-found` | HTTP: `$default` route | " + manifest.FunctionOf(manifest.RouteNotFound).Summary + " | — | — | — |"},
		{"S3 trigger, query items, bucket read", "`functions/clip-processor`",
			"| `functions/clip-processor` | S3: object created under `clips/` | " + clipProcessor.Summary +
				" | GetItem; Query (table: one partition); PutItem, UpdateItem, ConditionCheckItem `PARTNER#*#MODE#*#SURVEY#*`, `PARTNER#*#MODE#*#LEAD#*`; events table: PutItem, UpdateItem, ConditionCheckItem `PARTNER#*#MODE#*#EVENT#*` | GetObject `clips/*` | Rekognition DetectLabels (`*`: no resource type) |"},
		{"Stripe webhook secret, no key record", "`functions/stripe-webhook`",
			"| `functions/stripe-webhook` | HTTP: stripeWebhook | " + manifest.FunctionOf(manifest.StripeWebhook).Summary +
				" | GetItem; PutItem, UpdateItem, ConditionCheckItem `PARTNER#*#MODE#*#DEPOSIT#*`, `PARTNER#*#MODE#*#LEAD#*`, `STRIPE#*`; events table: PutItem, UpdateItem, ConditionCheckItem `PARTNER#*#MODE#*#EVENT#*` | — | `stripe-webhook-secrets` |"},
		{"signatures written", "`functions/v1-accept`",
			"| `functions/v1-accept` | HTTP: acceptQuote | " + manifest.FunctionOf(manifest.AcceptQuote).Summary +
				" | UpdateItem `APIKEY#*` (authenticate and count); GetItem; PutItem, UpdateItem, ConditionCheckItem `PARTNER#*#MODE#*#LEAD#*`, `PARTNER#*#MODE#*#IDEM#*` | PutObject `signatures/*` | — |"},
		{"bucket read and write", "`functions/v1-capture`",
			"| `functions/v1-capture` | HTTP: capturePage, captureClip, captureClips, captureChecklist, captureFrames, captureFinish | " + manifest.FunctionOf(manifest.CapturePage).Summary +
				" | GetItem; Query (table: one partition); PutItem, UpdateItem, ConditionCheckItem `CAPTURE#*`, `PARTNER#*#MODE#*#SURVEY#*`, `PARTNER#*#MODE#*#LEAD#*`; events table: PutItem, UpdateItem, ConditionCheckItem `PARTNER#*#MODE#*#EVENT#*` | GetObject `clips/*`; PutObject `clips/*` | — |"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := row(t, tbl, tt.cell); got != tt.want {
				t.Errorf("row\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}

func TestBucketAccess(t *testing.T) {
	for _, tt := range []struct {
		name string
		b    manifest.BucketAccess
		want string
	}{
		{"none", manifest.BucketAccess{}, ""},
		{"read", manifest.BucketAccess{Read: []string{"clips/"}}, "GetObject `clips/*`"},
		{"write two prefixes", manifest.BucketAccess{Write: []string{"a/", "b/"}}, "PutObject `a/*`, `b/*`"},
		{"both", manifest.BucketAccess{Read: []string{"clips/"}, Write: []string{"clips/"}}, "GetObject `clips/*`; PutObject `clips/*`"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := bucketAccess(manifest.Function{Bucket: tt.b}); got != tt.want {
				t.Errorf("bucketAccess = %q; want %q", got, tt.want)
			}
		})
	}
}

func TestTrigger(t *testing.T) {
	tests := []struct {
		name string
		f    manifest.Function
		want string
	}{
		{"s3", manifest.Function{S3: &manifest.S3Trigger{Prefix: "clips/", Suffix: ".webm"}}, "S3: object created under `clips/`, ending `.webm`"},
		{"stream", manifest.Function{Stream: &manifest.StreamTrigger{BatchSize: 10}}, "DynamoDB stream (batches of 10)"},
		{"schedule", manifest.Function{Schedule: &manifest.ScheduleTrigger{Expression: "rate(1 minute)"}}, "schedule `rate(1 minute)`"},
		{"queue", manifest.Function{Queue: &manifest.QueueTrigger{Name: "webhooks", BatchSize: 5}}, "SQS `webhooks` (batches of 5)"},
		{"none", manifest.Function{}, "**none or several (manifest error)**"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := trigger(tt.f); got != tt.want {
				t.Errorf("trigger = %q; want %q", got, tt.want)
			}
		})
	}
}
