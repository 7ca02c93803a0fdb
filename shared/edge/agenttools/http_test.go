package agenttools_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/spec/manifest"
	"github.com/moveleads/partnerapi/shared/spec/settings"
	"github.com/moveleads/partnerapi/shared/testkit/apitest"
)

// rpc posts one JSON-RPC message to the HTTP transport with the given
// headers ("Name: value"; the key header among them, or not) and returns
// the status, headers and body.
func (w *world) rpc(t *testing.T, method string, params any, headers ...string) (int, http.Header, []byte) {
	t.Helper()
	msg, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	if err != nil {
		t.Fatal(err)
	}
	return w.post(t, string(msg), headers...)
}

func (w *world) post(t *testing.T, body string, headers ...string) (int, http.Header, []byte) {
	t.Helper()
	req, err := http.NewRequest("POST", w.env.Server.URL+"/v1-mcp", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for _, h := range headers {
		k, v, _ := strings.Cut(h, ": ")
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	resp, err := w.env.Client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, b
}

// apiError decodes the API's error body and fails unless it has code.
func apiError(t *testing.T, status int, body []byte, wantStatus int, code string) {
	t.Helper()
	var e struct {
		Error struct {
			Code, Message string
		}
	}
	if status != wantStatus || json.Unmarshal(body, &e) != nil || e.Error.Code != code || e.Error.Message == "" {
		t.Errorf("answer %d %s; want %d with the API's error body, code %s", status, body, wantStatus, code)
	}
}

// callResult is a tools/call answer as sent.
type callResult struct {
	Result struct {
		IsError           bool
		Content           []struct{ Text string }
		StructuredContent map[string]any
	}
	Error *struct{ Message string }
}

func decodeCall(t *testing.T, status int, body []byte) callResult {
	t.Helper()
	var r callResult
	if status != 200 || json.Unmarshal(body, &r) != nil {
		t.Fatalf("tools/call answered %d %s", status, body)
	}
	return r
}

// TestKeyOnEveryRequest: the HTTP transport answers 401 with the API's
// error body, before any MCP handling, without a key, with a malformed,
// unknown or revoked one, or with the key in Authorization instead of
// X-Partner-Key; a request with a valid key is served.
func TestKeyOnEveryRequest(t *testing.T) {
	w := newWorld(t)
	list := map[string]any{}
	revoked, keyID := w.env.NewKey(t, w.partner, auth.Test)
	if _, err := w.env.Store.RevokeKey(context.Background(), keyID, time.Now()); err != nil {
		t.Fatal(err)
	}
	unknown, _, err := auth.NewKey(auth.Test)
	if err != nil {
		t.Fatal(err)
	}
	for name, headers := range map[string][]string{
		"no key":               nil,
		"empty key":            {"X-Partner-Key: "},
		"malformed key":        {"X-Partner-Key: not-a-key"},
		"unknown key":          {"X-Partner-Key: " + unknown},
		"revoked key":          {"X-Partner-Key: " + revoked},
		"key in Authorization": {"Authorization: Bearer " + w.key},
	} {
		t.Run(name, func(t *testing.T) {
			status, h, body := w.rpc(t, "tools/list", list, headers...)
			apiError(t, status, body, 401, "invalid_api_key")
			if h.Get("Content-Type") != "application/json" || h.Get("X-Request-Id") == "" {
				t.Errorf("headers %v; want the API's", h)
			}
		})
	}
	status, _, body := w.rpc(t, "tools/list", list, "X-Partner-Key: "+w.key, "Authorization: Bearer client-own-token")
	if status != 200 || !strings.Contains(string(body), `"create_lead"`) {
		t.Errorf("with the key (and the client's own Authorization): %d %s", status, body)
	}
}

// TestOriginIsChecked: a browser page of another origin (cross-site or
// DNS rebinding) is refused even with a valid key; one of the allowed
// origins is served.
func TestOriginIsChecked(t *testing.T) {
	t.Setenv(settings.AgentToolsAllowedOrigins, "https://console.example.com, https://agents.example.com")
	w := newWorld(t)
	status, _, body := w.rpc(t, "tools/list", map[string]any{}, "X-Partner-Key: "+w.key, "Origin: http://attacker.example")
	apiError(t, status, body, 403, "origin_not_allowed")
	status, _, body = w.rpc(t, "tools/list", map[string]any{}, "X-Partner-Key: "+w.key, "Origin: https://agents.example.com")
	if status != 200 {
		t.Errorf("an allowed origin: %d %s", status, body)
	}
}

// TestBodyLimit: a request over the transport's limit is refused with 413
// before its key is even counted.
func TestBodyLimit(t *testing.T) {
	w := newWorld(t)
	big := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"create_lead","arguments":{"customer_name":%q}}}`,
		strings.Repeat("a", manifest.AgentToolsBodyLimit))
	status, _, body := w.post(t, big, "X-Partner-Key: "+w.key)
	apiError(t, status, body, 413, "payload_too_large")
}

// TestTenancyAndMode: a tool sees only its key's partner's data, in its
// key's mode.
func TestTenancyAndMode(t *testing.T) {
	w := newWorld(t)
	other := w.env.NewPartner(t, "Other Movers")
	otherKey, _ := w.env.NewKey(t, other, auth.Test)
	liveKey, _ := w.env.NewKey(t, w.partner, auth.Live)
	mine := w.connectHTTP(t, "/v1-mcp", w.key)
	lead := ok(t, mine, "create_lead", map[string]any{"customer_name": "Ada"})
	id := lead["lead_id"].(string)

	theirs := w.connectHTTP(t, "/v1-mcp", otherKey)
	fails(t, theirs, "get_lead", map[string]any{"lead_id": id}, "not_found")
	fails(t, theirs, "get_survey_link", map[string]any{"lead_id": id}, "not_found")
	if page := ok(t, theirs, "list_leads", map[string]any{}); len(page["data"].([]any)) != 0 {
		t.Errorf("another partner lists %v", page["data"])
	}
	// Another partner's tools/list has no beta tools: it has no beta.
	if names := toolNames(t, theirs); slices.Contains(names, "create_quote") || !slices.Contains(names, "create_lead") {
		t.Errorf("a partner without the beta sees %v", names)
	}

	live := w.connectHTTP(t, "/v1-mcp", liveKey)
	fails(t, live, "get_lead", map[string]any{"lead_id": id}, "not_found")
	if page := ok(t, live, "list_leads", map[string]any{}); len(page["data"].([]any)) != 0 {
		t.Errorf("the live key lists test leads %v", page["data"])
	}
	if page := ok(t, mine, "list_leads", map[string]any{}); len(page["data"].([]any)) != 1 {
		t.Errorf("the test key lists %v; want its lead", page["data"])
	}
}

// TestScopesHideTools: a key sees only the tools its scopes allow, and a
// hidden tool cannot be called.
func TestScopesHideTools(t *testing.T) {
	w := newWorld(t)
	readOnly, _ := w.env.NewKey(t, w.partner, auth.Test, auth.LeadsRead)
	s := w.connectHTTP(t, "/v1-mcp", readOnly)
	if names := toolNames(t, s); !slices.Equal(names, []string{"get_lead", "list_leads"}) {
		t.Errorf("a leads:read key sees %v; want get_lead, list_leads", names)
	}
	status, _, body := w.rpc(t, "tools/call", map[string]any{"name": "create_lead", "arguments": map[string]any{"customer_name": "Ada"}}, "X-Partner-Key: "+readOnly)
	if r := decodeCall(t, status, body); r.Error == nil && !r.Result.IsError {
		t.Errorf("a hidden tool ran: %s", body)
	}
	if page := ok(t, w.connectHTTP(t, "/v1-mcp", w.key), "list_leads", map[string]any{}); len(page["data"].([]any)) != 0 {
		t.Errorf("the hidden create_lead created %v", page["data"])
	}
}

// TestRateLimitIsShared: API requests and agent tool requests count
// against the same 120 a minute of a key, both ways.
func TestRateLimitIsShared(t *testing.T) {
	w := newWorld(t)
	w.env.Clock.Set(time.Date(2026, 11, 23, 10, 0, 5, 0, time.UTC)) // well inside one window
	call := map[string]any{"name": "list_leads", "arguments": map[string]any{}}
	key := "X-Partner-Key: " + w.key
	for i := range auth.RateLimit - 1 {
		if r := w.env.Do(t, "GET", "/v1/leads", w.key, ""); r.Status != 200 {
			t.Fatalf("API request %d: %d %s", i+1, r.Status, r.Body)
		}
	}
	status, h, body := w.rpc(t, "tools/call", call, key)
	if r := decodeCall(t, status, body); r.Result.IsError || h.Get("X-RateLimit-Remaining") != "0" {
		t.Fatalf("the 120th request, a tool call: %s (remaining %q)", body, h.Get("X-RateLimit-Remaining"))
	}
	apitest.Want(t, w.env.Do(t, "GET", "/v1/leads", w.key, ""), 429, "rate_limited")
	status, h, body = w.rpc(t, "tools/call", call, key)
	apiError(t, status, body, 429, "rate_limited")
	if h.Get("Retry-After") == "" {
		t.Errorf("429 without Retry-After: %v", h)
	}

	// And the other way: tool calls first, then the API.
	other, _ := w.env.NewKey(t, w.partner, auth.Test)
	for i := range auth.RateLimit {
		status, _, body := w.rpc(t, "tools/call", call, "X-Partner-Key: "+other)
		if r := decodeCall(t, status, body); r.Result.IsError {
			t.Fatalf("tool call %d: %s", i+1, body)
		}
	}
	apitest.Want(t, w.env.Do(t, "GET", "/v1/leads", other, ""), 429, "rate_limited")
}
