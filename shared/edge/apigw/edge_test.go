package apigw_test

import (
	"context"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/edge/apigw"
	"github.com/moveleads/partnerapi/shared/spec/manifest"
	"github.com/moveleads/partnerapi/shared/testkit/apitest"
)

// TestQueryParsedStrictly: a query string that does not parse answers 422
// naming what is wrong, the same under API Gateway and make dev (the
// handler parses the raw query itself). Before, `?limit=5;foo=bar` answered
// 200 with 25 leads and `?a=%zz` answered 200.
func TestQueryParsedStrictly(t *testing.T) {
	env := apitest.New(t)
	p := newPartner(t, env)
	tests := []struct{ name, query, field, reason string }{
		{"semicolon", "limit=5;foo=bar", "limit", "';'"},
		{"bad escape in a value", "limit=%zz", "limit", "percent-encoding"},
		{"bad escape in a name", "a%zz=1", "query", "percent-encoded"},
		{"given twice", "limit=5&limit=6", "limit", "given more than once"},
		{"cursor twice", "cursor=a&cursor=a", "cursor", "given more than once"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := wantError(t, env.DoRaw(t, "GET", "/v1/leads?"+tc.query, p.key, ""), 422, "validation_failed")
			f, _ := e.Error.Details["fields"].(map[string]any)
			reason, _ := f[tc.field].(string)
			if !strings.Contains(reason, tc.reason) {
				t.Errorf("details.fields %v; want %s to say %q", f, tc.field, tc.reason)
			}
		})
	}
	// Queries still need a valid key first: an anonymous caller learns nothing.
	wantError(t, env.DoRaw(t, "GET", "/v1/leads?a=%zz", "", ""), 401, "invalid_api_key")
}

func TestParseQuery(t *testing.T) {
	got, err := apigw.ParseQuery("limit=5&updated_since=2026-01-01T00%3A00%3A00Z&cursor=a+b&&empty=")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"limit": "5", "updated_since": "2026-01-01T00:00:00Z", "cursor": "a b", "empty": ""}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q; want %q", k, got[k], v)
		}
	}
	if len(got) != len(want) {
		t.Errorf("got %v; want %v", got, want)
	}
}

func FuzzParseQuery(f *testing.F) {
	for _, s := range []string{"", "limit=5", "a=%zz", "a;b", "a=1&a=2", "%", "=&=", "a=b=c"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		q, err := apigw.ParseQuery(raw)
		if err != nil {
			if q != nil {
				t.Errorf("%q: error %v with parameters %v", raw, err, q)
			}
			return
		}
		if q == nil {
			t.Errorf("%q: nil map without error", raw)
		}
	})
}

// TestBodyMediaType: a Content-Encoding the API does not decode and a
// Content-Type that is not JSON answer 415; a missing Content-Type is
// accepted (form tools omit it).
func TestBodyMediaType(t *testing.T) {
	env := apitest.New(t)
	p := newPartner(t, env)
	body := `{"email":"ada@example.com"}`
	for _, c := range []struct {
		name    string
		headers []string
	}{
		{"gzip", []string{"Content-Encoding: gzip"}},
		{"text/plain", []string{"Content-Type: text/plain"}},
		{"form", []string{"Content-Type: application/x-www-form-urlencoded"}},
		{"garbage type", []string{"Content-Type: ;;;"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			wantError(t, env.Do(t, "POST", "/v1-leads", p.key, body, c.headers...), 415, "unsupported_media_type")
		})
	}
	for _, ct := range []string{"application/json; charset=utf-8", "application/vnd.api+json"} {
		if r := env.Do(t, "POST", "/v1-leads", p.key, body, "Content-Type: "+ct); r.Status != 200 {
			t.Errorf("Content-Type %s: %d %s; want 200", ct, r.Status, r.Body)
		}
	}
	// No Content-Type at all: accepted.
	r := env.DoRaw(t, "POST", "/v1-leads", p.key, body, "Content-Type:")
	if r.Status != 200 {
		t.Errorf("no Content-Type: %d %s; want 200", r.Status, r.Body)
	}
}

// TestKeyErrorsSayTheSame: an unknown key, a revoked key and a key of the
// other mode answer with the same words, so a leaked string does not
// reveal that it once was a key.
func TestKeyErrorsSayTheSame(t *testing.T) {
	env := apitest.New(t)
	p := newPartner(t, env)
	revoked, revokedID := env.NewKey(t, p.id, auth.Test)
	if _, err := env.Store.RevokeKey(context.Background(), revokedID, time.Now()); err != nil {
		t.Fatal(err)
	}
	unknown, _, _ := auth.NewKey(auth.Test)
	var msgs []string
	for _, k := range []string{unknown, revoked} {
		e := wantError(t, env.Do(t, "GET", "/v1/leads", k, ""), 401, "invalid_api_key")
		msgs = append(msgs, e.Error.Message)
	}
	if msgs[0] != msgs[1] || msgs[0] != auth.InvalidKeyMessage {
		t.Errorf("messages %q; want both %q", msgs, auth.InvalidKeyMessage)
	}
}

// TestUpdatedSinceIsRFC3339AtStoredPrecision: only RFC 3339 is accepted (a
// comma before the fraction is not), and a finer instant than the stored
// microseconds compares as the next microsecond.
func TestUpdatedSinceIsRFC3339AtStoredPrecision(t *testing.T) {
	env := apitest.New(t)
	p := newPartner(t, env)
	at := time.Date(2026, 4, 1, 10, 0, 0, 1000, time.UTC) // .000001
	ids := seedLeads(t, env, p, auth.Test, 1, at)
	for _, bad := range []string{"2026-04-01T10:00:00,000001Z", "2026-04-01 10:00:00Z", "2026-04-01T10:00:00", "2026-04-01T10:00Z"} {
		wantError(t, env.Do(t, "GET", "/v1/leads?updated_since="+escape(bad), p.key, ""), 422, "validation_failed")
	}
	for _, c := range []struct {
		since string
		found bool
	}{
		{"2026-04-01T10:00:00.000001Z", true},
		{"2026-04-01T10:00:00.0000005Z", true},     // rounds up to .000001
		{"2026-04-01T10:00:00.0000010001Z", false}, // rounds up to .000002
		{"2026-04-01T12:00:00.000001+02:00", true},
	} {
		l := decode[listResp](t, env.Do(t, "GET", "/v1/leads?updated_since="+escape(c.since), p.key, "").Body)
		if got := len(l.Data) == 1 && l.Data[0].LeadID == ids[0]; got != c.found {
			t.Errorf("updated_since %s: found %v; want %v", c.since, got, c.found)
		}
	}
}

// TestTokenPathsAreRedactedInLogs: a route whose path carries a token logs
// its template, never the token; unknown paths log long segments redacted.
func TestTokenPathsAreRedactedInLogs(t *testing.T) {
	token := "tok_" + strings.Repeat("Q", 30)
	capture := manifest.Route{Operation: "capturePage", Method: "GET", PilotPath: "/v1-capture/{token}", Auth: manifest.AuthCaptureToken}
	ev := &events.APIGatewayV2HTTPRequest{RouteKey: "GET /v1-capture/{token}", RawPath: "/v1-capture/" + token}
	if got := apigw.LogPath(capture, ev); strings.Contains(got, token) || got != "/v1-capture/{token}" {
		t.Errorf("capture route logs %q; want the template", got)
	}
	dflt := manifest.ByOperation(manifest.RouteNotFound)
	ev = &events.APIGatewayV2HTTPRequest{RouteKey: "$default", RawPath: "/v1-capture/" + token + "/x"}
	if got := apigw.LogPath(dflt, ev); strings.Contains(got, token) || got != "/v1-capture/{redacted}/x" {
		t.Errorf("$default logs %q; want the token redacted", got)
	}
	get := manifest.ByOperation(manifest.GetLead)
	ev = &events.APIGatewayV2HTTPRequest{RawPath: "/v1/leads/abc"}
	if got := apigw.LogPath(get, ev); got != "/v1/leads/abc" {
		t.Errorf("getLead logs %q; want the raw path", got)
	}
	// Through the stack: a mistyped token link that reaches $default.
	env := apitest.New(t)
	env.DoRaw(t, "GET", "/v1-capture/"+token+"/", "", "")
	if strings.Contains(env.Logs.String(), token) {
		t.Errorf("the log holds the token: %s", env.Logs.String())
	}
}

func escape(s string) string { return url.QueryEscape(s) }

// TestEventOfAnotherRouteIs500: a function whose main serves the wrong
// endpoint (or a stack out of step with the manifest) answers 500 to every
// request, so the cold-start test, which runs each built binary on its own
// route's event, fails instead of a wrong operation answering 200.
func TestEventOfAnotherRouteIs500(t *testing.T) {
	env := apitest.New(t)
	p := newPartner(t, env)
	h := env.Stack.Route(manifest.ListLeads)
	ev := events.APIGatewayV2HTTPRequest{RouteKey: "GET /v1-lead-get/{lead_id}", RawPath: "/v1-lead-get/x",
		Headers: map[string]string{"authorization": "Bearer " + p.key}}
	resp, err := h(context.Background(), ev)
	if err != nil || resp.StatusCode != 500 {
		t.Fatalf("getLead's event at listLeads: %d, %v; want 500", resp.StatusCode, err)
	}
	ev.RouteKey, ev.RawPath = "GET /v1/leads", "/v1/leads"
	if resp, _ := h(context.Background(), ev); resp.StatusCode != 200 {
		t.Errorf("its own event: %d %s; want 200", resp.StatusCode, resp.Body)
	}
}
