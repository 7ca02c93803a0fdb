package agenttools_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/moveleads/partnerapi/shared/app/pipeline"
	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/edge/agenttools"
	"github.com/moveleads/partnerapi/shared/spec/manifest"
	"github.com/moveleads/partnerapi/shared/testkit/apitest"
)

// echoMarker is put where the request must not be quoted back.
const echoMarker = "Zq9xEcho"

// goInternals are texts that show Go's types or reflection to a client.
var goInternals = []string{"Go struct field", "Go value", "reflect", "interface {}", "map[string]", "json: "}

// batch is a JSON-RPC batch of n tools/call messages of tool with args.
func batch(n int, tool string, args map[string]any) string {
	msgs := make([]map[string]any, n)
	for i := range msgs {
		msgs[i] = map[string]any{"jsonrpc": "2.0", "id": i + 1, "method": "tools/call", "params": map[string]any{"name": tool, "arguments": args}}
	}
	b, _ := json.Marshal(msgs)
	return string(b)
}

// leadCount is how many leads the key's partner has, through the API.
func (w *world) leadCount(t *testing.T) int {
	t.Helper()
	r := w.env.Do(t, "GET", "/v1/leads?limit=100", w.key, "")
	var page struct{ Data []any }
	if r.Status != 200 || json.Unmarshal(r.Body, &page) != nil {
		t.Fatalf("list leads: %d %s", r.Status, r.Body)
	}
	return len(page.Data)
}

// TestBatchesAreRefused: a JSON-RPC batch (sent without
// MCP-Protocol-Version, which once let the SDK run it) runs none of its
// calls and counts once against the key, with the API's error body; the
// 200 x list_leads batch that answered 9.6 MB is refused in a few hundred
// bytes.
func TestBatchesAreRefused(t *testing.T) {
	w := newWorld(t)
	w.env.Clock.Set(time.Date(2026, 11, 23, 10, 0, 5, 0, time.UTC))
	key := "X-Partner-Key: " + w.key
	status, h, body := w.post(t, batch(1000, "create_lead", map[string]any{"customer_name": "Ada"}), key)
	apiError(t, status, body, 422, "invalid_json")
	if !strings.Contains(string(body), "batch") {
		t.Errorf("the refusal %s does not say batches are not taken", body)
	}
	if n := w.leadCount(t); n != 0 {
		t.Errorf("a refused batch of 1,000 create_lead created %d leads; want 0", n)
	}
	if got := h.Get("X-RateLimit-Remaining"); got != strconv.Itoa(auth.RateLimit-1) {
		t.Errorf("X-RateLimit-Remaining %q after one request; want %d (the batch counts once)", got, auth.RateLimit-1)
	}

	status, h, body = w.post(t, batch(200, "list_leads", map[string]any{"limit": 100}), key)
	apiError(t, status, body, 422, "invalid_json")
	if len(body) > 1024 || h.Get("Content-Type") != "application/json" {
		t.Errorf("200 x list_leads answered %d bytes as %q; want a short JSON refusal", len(body), h.Get("Content-Type"))
	}
}

// TestAnswerLimit: an answer over the transport's limit is refused with
// a JSON-RPC error that says to ask for less, never truncated; one under
// it is sent whole.
func TestAnswerLimit(t *testing.T) {
	w := newWorld(t)
	for i := range 10 {
		if r := w.env.Do(t, "POST", "/v1-leads", w.key, fmt.Sprintf(`{"customer_name":"Customer %d"}`, i)); r.Status != 200 {
			t.Fatalf("create lead: %d %s", r.Status, r.Body)
		}
	}
	var eps []pipeline.Endpoint
	for _, op := range manifest.AgentToolOperations {
		ep, _ := w.env.Stack.Endpoint(op)
		eps = append(eps, ep)
	}
	b, err := agenttools.NewBackend(w.env.Stack.Pipeline, eps, nil)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(b.HTTPHandler(agenttools.HTTPOptions{AnswerLimit: 2000}))
	defer srv.Close()
	call := func(args map[string]any) (int, http.Header, []byte) {
		msg, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": map[string]any{"name": "list_leads", "arguments": args}})
		req, _ := http.NewRequest("POST", srv.URL, bytes.NewReader(msg))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set(manifest.AgentKeyHeader, w.key)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var buf bytes.Buffer
		_, _ = buf.ReadFrom(resp.Body)
		return resp.StatusCode, resp.Header, buf.Bytes()
	}

	status, h, body := call(map[string]any{"limit": 10})
	var e struct {
		ID    int
		Error *struct {
			Code    int
			Message string
			Data    struct {
				MaxBytes int `json:"max_bytes"`
			}
		}
	}
	if status != 200 || h.Get("Content-Type") != "application/json" || json.Unmarshal(body, &e) != nil || e.Error == nil ||
		e.ID != 7 || e.Error.Data.MaxBytes != 2000 || !strings.Contains(e.Error.Message, "smaller limit") {
		t.Errorf("ten leads over a 2,000-byte limit: %d %q %s; want a JSON-RPC error saying to ask for less", status, h.Get("Content-Type"), body)
	}
	status, _, body = call(map[string]any{"limit": 1})
	if r := decodeCall(t, status, body); r.Error != nil || r.Result.IsError || len(r.Result.StructuredContent["data"].([]any)) != 1 {
		t.Errorf("one lead, under the limit: %s", body)
	}
}

// TestTransportErrorsAreTheAPIs: every refusal of the HTTP transport is
// the API's error body (transport level) or a JSON-RPC error object
// (JSON-RPC level), application/json with X-Request-Id, never plain text,
// Go type names or the request quoted back.
func TestTransportErrorsAreTheAPIs(t *testing.T) {
	w := newWorld(t)
	key := "X-Partner-Key: " + w.key
	msg := func(v map[string]any) string { b, _ := json.Marshal(v); return string(b) }
	call := func(name string, args any) string {
		return msg(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": map[string]any{"name": name, "arguments": args}})
	}
	list := msg(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": map[string]any{}})
	type want struct {
		status int
		code   string // the API's error code, or
		rpc    int    // a JSON-RPC error code, or
		field  string // a tool error naming this argument, or none: served
	}
	for _, c := range []struct {
		name    string
		body    string
		headers []string
		want    want
	}{
		{"empty body", "", nil, want{status: 422, code: "invalid_json"}},
		{"open brace", "{", nil, want{status: 422, code: "invalid_json"}},
		{"null", "null", nil, want{status: 422, code: "invalid_json"}},
		{"byte order mark", "\xef\xbb\xbf" + list, nil, want{status: 422, code: "invalid_json"}},
		{"bad jsonrpc version", msg(map[string]any{"jsonrpc": echoMarker, "id": 1, "method": "tools/list"}), nil, want{status: 400, rpc: -32600}},
		{"unknown method", msg(map[string]any{"jsonrpc": "2.0", "id": 1, "method": echoMarker}), nil, want{status: 400, rpc: -32601}},
		{"tools/call without params", msg(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call"}), nil, want{status: 400, rpc: -32602}},
		{"initialize without params", msg(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "initialize"}), nil, want{status: 400, rpc: -32602}},
		{"params not an object", msg(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": echoMarker}), nil, want{status: 400, rpc: -32602}},
		{"unknown tool", call(echoMarker, map[string]any{}), nil, want{status: 200, rpc: -32602}},
		{"limit overflows", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_leads","arguments":{"limit":1e100}}}`, nil, want{status: 200, field: "limit"}},
		{"limit a string", call("list_leads", map[string]any{"limit": echoMarker}), nil, want{status: 200, field: "limit"}},
		{"arguments not an object", call("list_leads", echoMarker), nil, want{status: 200, field: "arguments"}},
		{"arguments an array", call("list_leads", []any{echoMarker}), nil, want{status: 200, field: "arguments"}},
		{"required argument missing", call("get_lead", map[string]any{}), nil, want{status: 200, field: "lead_id"}},
		{"Content-Type text/plain", list, []string{"Content-Type: text/plain"}, want{status: 415, code: "unsupported_media_type"}},
		{"Content-Encoding gzip", list, []string{"Content-Encoding: gzip"}, want{status: 415, code: "unsupported_media_type"}},
		{"Accept without JSON", list, []string{"Accept: text/html"}, want{status: 400, code: "bad_request"}},
		{"Accept missing", list, []string{"Accept: "}, want{status: 200}},
		{"Host not loopback", list, []string{"Host: " + echoMarker + ".example"}, want{status: 200}},
		{"protocol version unknown", list, []string{"MCP-Protocol-Version: 1999-" + echoMarker}, want{status: 400, code: "bad_request"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			status, h, body := w.post(t, c.body, append([]string{key}, c.headers...)...)
			if status != c.want.status || h.Get("Content-Type") != "application/json" || h.Get("X-Request-Id") == "" {
				t.Fatalf("answer %d %q (X-Request-Id %q) %s; want %d application/json", status, h.Get("Content-Type"), h.Get("X-Request-Id"), body, c.want.status)
			}
			for _, s := range append(goInternals, echoMarker, "\xef\xbb\xbf", "ï") {
				if strings.Contains(string(body), s) {
					t.Errorf("answer %s has %q", body, s)
				}
			}
			switch {
			case c.want.code != "":
				apiError(t, status, body, c.want.status, c.want.code)
			case c.want.rpc != 0:
				var e struct {
					JSONRPC string
					ID      json.RawMessage
					Error   *struct {
						Code    int
						Message string
					}
				}
				if json.Unmarshal(body, &e) != nil || e.JSONRPC != "2.0" || e.ID == nil || e.Error == nil || e.Error.Code != c.want.rpc || e.Error.Message == "" {
					t.Errorf("answer %s; want a JSON-RPC error object with code %d", body, c.want.rpc)
				}
			case c.want.field != "":
				r := decodeCall(t, status, body)
				var e struct {
					Error struct {
						Code    string
						Details struct{ Fields map[string]string }
					}
				}
				if !r.Result.IsError || len(r.Result.Content) == 0 || json.Unmarshal([]byte(r.Result.Content[0].Text), &e) != nil ||
					e.Error.Code != "validation_failed" || e.Error.Details.Fields[c.want.field] == "" {
					t.Errorf("answer %s; want a validation_failed tool error naming %s", body, c.want.field)
				}
			default:
				if r := decodeCall(t, status, body); r.Error != nil {
					t.Errorf("answer %s; want served", body)
				}
			}
		})
	}
}

// FuzzHTTPBody: any body to the HTTP transport, from a key that can only
// read (so nothing it sends is stored to be read back), answers below 500,
// as JSON (or, for a notification, 202 without a body), and never quotes
// the marker back unless the body sent it as an id or a property name.
func FuzzHTTPBody(f *testing.F) {
	for _, s := range []string{
		``, `{`, `null`, `[]`, `"x"`, "\xef\xbb\xbf{}", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
		`{"jsonrpc":"1.0","id":1,"method":"Zq9xEcho"}`,
		`{"jsonrpc":"2.0","id":1,"method":"Zq9xEcho","params":{}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"Zq9xEcho","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"Zq9xEcho","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_leads","arguments":{"limit":"Zq9xEcho"}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_lead","arguments":{"lead_id":"Zq9xEcho"}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_leads","arguments":["Zq9xEcho"]}}`,
		`[{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_leads","arguments":{}}}]`,
	} {
		f.Add([]byte(s))
	}
	env := apitest.New(f)
	partner := env.NewPartner(f, "Fuzz Movers")
	key, _ := env.NewKey(f, partner, auth.Test, auth.LeadsRead)
	env.Clock.Set(time.Date(2026, 11, 23, 10, 0, 5, 0, time.UTC))
	f.Fuzz(func(t *testing.T, body []byte) {
		env.Clock.Advance(time.Minute) // a fresh rate-limit window each time
		req, err := http.NewRequest("POST", env.Server.URL+"/v1-mcp", bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set(manifest.AgentKeyHeader, key)
		resp, err := env.Client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var buf bytes.Buffer
		_, _ = buf.ReadFrom(resp.Body)
		out, ct := buf.Bytes(), resp.Header.Get("Content-Type")
		if resp.StatusCode >= 500 {
			t.Fatalf("%q answered %d %s", body, resp.StatusCode, out)
		}
		if ct != "application/json" && !(resp.StatusCode == 202 && len(out) == 0) {
			t.Fatalf("%q answered %d as %q: %s", body, resp.StatusCode, ct, out)
		}
		var id struct{ ID json.RawMessage }
		_ = json.Unmarshal(body, &id)
		if bytes.Contains(out, []byte(echoMarker)) && !bytes.Contains(id.ID, []byte(echoMarker)) && !bytes.Contains(body, []byte(echoMarker+`"`+":")) {
			t.Fatalf("%q was quoted back: %s", body, out)
		}
		for _, s := range goInternals {
			if bytes.Contains(out, []byte(s)) {
				t.Fatalf("%q answered Go internals %q: %s", body, s, out)
			}
		}
	})
}
