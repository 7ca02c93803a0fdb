package agenttools

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/moveleads/partnerapi/shared/app/pipeline"
	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/domain/errcode"
	"github.com/moveleads/partnerapi/shared/domain/lead"
	"github.com/moveleads/partnerapi/shared/domain/partner"
	"github.com/moveleads/partnerapi/shared/spec/manifest"
)

// pathParams are the arguments that become the operation's path parameter.
var pathParams = []string{"lead_id", "survey_id", "deposit_id", "event_id"}

// TestToolsCoverTheOperations: one tool per operation of
// manifest.AgentToolOperations, in that order, with distinct names.
func TestToolsCoverTheOperations(t *testing.T) {
	var ops []manifest.Operation
	names := map[string]bool{}
	for _, tl := range Tools {
		ops = append(ops, tl.Operation)
		if names[tl.Name] || tl.Description == "" {
			t.Errorf("tool %q: a second tool of that name, or no description", tl.Name)
		}
		names[tl.Name] = true
	}
	if !slices.Equal(ops, manifest.AgentToolOperations) {
		t.Errorf("tools run %v; want manifest.AgentToolOperations %v", ops, manifest.AgentToolOperations)
	}
}

// TestInputSchemas: every tool's input schema is an object that admits no
// other properties (nested objects included), requires the path
// parameter, and offers idempotency_key exactly on the writes whose route
// honours an Idempotency-Key.
func TestInputSchemas(t *testing.T) {
	for _, tl := range Tools {
		t.Run(tl.Name, func(t *testing.T) {
			s := tl.InputSchema()
			if s.Type != "object" {
				t.Fatalf("input schema type %q; want object", s.Type)
			}
			checkClosed(t, "", s)
			// The argument that becomes the route's path parameter is
			// required; a lead_id elsewhere (createDeposit's body,
			// listEvents' filter) need not be.
			if p := manifest.ParamName(tl.Route().PilotPath); p != "" && !slices.Contains(s.Required, p) {
				t.Errorf("%s is not required", p)
			}
			_, hasKey := s.Properties["idempotency_key"]
			if want := tl.Route().Idempotent && !tl.ReadOnly; hasKey != want {
				t.Errorf("idempotency_key offered: %v; want %v (route idempotent %v, read-only %v)", hasKey, want, tl.Route().Idempotent, tl.ReadOnly)
			}
			if hasKey && s.Properties["idempotency_key"].Description != idempotencyDoc {
				t.Error("idempotency_key is not described")
			}
			for name, p := range s.Properties {
				if name != "idempotency_key" && p.Description == "" {
					t.Errorf("property %s has no description for the model", name)
				}
			}
			if tl.OutputSchema() == nil || tl.OutputSchema().Type != "object" {
				t.Errorf("output schema %+v; want an object", tl.OutputSchema())
			}
		})
	}
}

// checkClosed fails unless s and every object schema under it refuse
// additional properties.
func checkClosed(t *testing.T, path string, s *jsonschema.Schema) {
	t.Helper()
	if s == nil {
		return
	}
	if s.Type == "object" || len(s.Properties) > 0 {
		if s.AdditionalProperties == nil || s.AdditionalProperties.Not == nil {
			t.Errorf("object %q admits additional properties", path)
		}
	}
	for name, p := range s.Properties {
		checkClosed(t, path+"."+name, p)
	}
	checkClosed(t, path+"[]", s.Items)
}

// stubbed is a server whose tools record their calls instead of running
// them, answering each with answer.
type stubbed struct {
	mu     sync.Mutex
	calls  []recorded
	answer func(op manifest.Operation) (int, []byte)
	sess   *mcp.ClientSession
}

type recorded struct {
	op manifest.Operation
	c  call
}

func newStubbed(t testing.TB, answer func(manifest.Operation) (int, []byte)) *stubbed {
	t.Helper()
	st := &stubbed{answer: answer}
	s := mcp.NewServer(Implementation, nil)
	for _, tl := range Tools {
		tl.register(s, tl, func(_ context.Context, op manifest.Operation, c call) (int, []byte) {
			st.mu.Lock()
			st.calls = append(st.calls, recorded{op, c})
			st.mu.Unlock()
			return st.answer(op)
		})
	}
	ct, srvT := mcp.NewInMemoryTransports()
	ctx := context.Background()
	if _, err := s.Connect(ctx, srvT, nil); err != nil {
		t.Fatal(err)
	}
	sess, err := mcp.NewClient(&mcp.Implementation{Name: "stub", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	st.sess = sess
	return st
}

func (st *stubbed) take() []recorded {
	st.mu.Lock()
	defer st.mu.Unlock()
	out := st.calls
	st.calls = nil
	return out
}

func (st *stubbed) call(t testing.TB, name string, args any) *mcp.CallToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err := st.sess.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("call %s: %v", name, err)
	}
	return res
}

func refused(op manifest.Operation) (int, []byte) {
	return pipeline.Render(errcode.New(errcode.ValidationFailed, "stub"))
}

// TestUnknownArgumentsAreRefused: an argument the schema does not name is
// refused before the operation runs.
func TestUnknownArgumentsAreRefused(t *testing.T) {
	st := newStubbed(t, refused)
	for _, tl := range Tools {
		args := map[string]any{"not_a_field": 1}
		for _, p := range pathParams {
			if _, ok := tl.InputSchema().Properties[p]; ok {
				args[p] = "6f1c1b0e-8f59-4d7e-9a39-2f7f6c8b8f11"
			}
		}
		res := st.call(t, tl.Name, args)
		text := res.Content[0].(*mcp.TextContent).Text
		if !res.IsError || !strings.Contains(text, "not_a_field") {
			t.Errorf("%s with an unknown argument: isError %v, %q; want refused, naming it", tl.Name, res.IsError, text)
		}
	}
	if c := st.take(); len(c) != 0 {
		t.Errorf("operations ran for refused arguments: %v", c)
	}
}

// TestArgumentsBecomeTheRequest: a tool's arguments become its
// operation's path parameter, query, body and Idempotency-Key, under the
// API's field names.
func TestArgumentsBecomeTheRequest(t *testing.T) {
	st := newStubbed(t, refused)
	const id = "6f1c1b0e-8f59-4d7e-9a39-2f7f6c8b8f11"
	st.call(t, "create_quote", map[string]any{"lead_id": id, "estimate_type": "binding", "price_cents": 245000, "idempotency_key": "k1"})
	st.call(t, "list_leads", map[string]any{"limit": 5, "cursor": "abc"})
	st.call(t, "create_deposit", map[string]any{"lead_id": id, "quote_share_link_id": id})
	c := st.take()
	if len(c) != 3 {
		t.Fatalf("%d calls; want 3", len(c))
	}
	body, _ := json.Marshal(c[0].c.Body)
	if c[0].op != manifest.CreateQuote || c[0].c.PathParam != id || c[0].c.IdempotencyKey != "k1" ||
		string(body) != `{"estimate_type":"binding","price_cents":245000}` {
		t.Errorf("create_quote made %+v with body %s", c[0], body)
	}
	if c[1].op != manifest.ListLeads || c[1].c.Body != nil || c[1].c.Query["limit"] != "5" || c[1].c.Query["cursor"] != "abc" || len(c[1].c.Query) != 2 {
		t.Errorf("list_leads made %+v", c[1])
	}
	body, _ = json.Marshal(c[2].c.Body)
	if c[2].c.PathParam != "" || string(body) != `{"lead_id":"`+id+`","quote_share_link_id":"`+id+`"}` {
		t.Errorf("create_deposit made %+v with body %s", c[2], body)
	}
}

// TestErrorsAreTheAPIs: a failed operation is a tool error whose text is
// the API's error body, and an internal error's text never reaches the
// client.
func TestErrorsAreTheAPIs(t *testing.T) {
	st := newStubbed(t, func(manifest.Operation) (int, []byte) {
		return pipeline.Render(errors.New("dynamodb: table t-secret-123 throttled"))
	})
	res := st.call(t, "get_lead", map[string]any{"lead_id": "6f1c1b0e-8f59-4d7e-9a39-2f7f6c8b8f11"})
	text := res.Content[0].(*mcp.TextContent).Text
	if !res.IsError || text != string(internalBody()) || strings.Contains(text, "secret") {
		t.Errorf("internal error: isError %v, %q; want the API's internal_error body", res.IsError, text)
	}
	st.answer = func(manifest.Operation) (int, []byte) {
		return pipeline.Render(errcode.New(errcode.NotFound, "No lead %s.", "x").WithDetail("lead_id", "x"))
	}
	res = st.call(t, "get_lead", map[string]any{"lead_id": "6f1c1b0e-8f59-4d7e-9a39-2f7f6c8b8f11"})
	if text := res.Content[0].(*mcp.TextContent).Text; !res.IsError || text != `{"error":{"code":"not_found","message":"No lead x.","details":{"lead_id":"x"}}}` {
		t.Errorf("not found: isError %v, %q", res.IsError, text)
	}
}

// TestVisible: a tool shows only to keys with its operation's scope, and
// a beta tool only to partners with the beta.
func TestVisible(t *testing.T) {
	names := func(ts []*Tool) []string {
		var out []string
		for _, tl := range ts {
			out = append(out, tl.Name)
		}
		return out
	}
	beta := partner.Partner{Beta: []partner.Feature{partner.Deposits}}
	all := auth.Principal{Scopes: auth.AllScopes}
	if got := names(Visible(all, beta)); len(got) != len(Tools) {
		t.Errorf("every scope, beta: %v; want every tool", got)
	}
	if got := names(Visible(all, partner.Partner{})); slices.Contains(got, "create_quote") || slices.Contains(got, "get_deposit") || !slices.Contains(got, "create_lead") {
		t.Errorf("no beta: %v; want no quote or deposit tool", got)
	}
	readOnly := auth.Principal{Scopes: []auth.Scope{auth.LeadsRead}}
	if got := names(Visible(readOnly, beta)); !slices.Equal(got, []string{"list_leads", "get_lead"}) {
		t.Errorf("leads:read: %v; want list_leads, get_lead", got)
	}
}

// FuzzToolArguments: tool arguments are outside input. Any bytes as any
// tool's arguments either are refused (a tool error, no operation run) or
// run the tool's operation with a request made only of the fields its
// schema names: the path parameter as given, a body that is a JSON object
// of the schema's other properties.
func FuzzToolArguments(f *testing.F) {
	f.Add(0, []byte(`{"customer_name":"Ada","idempotency_key":"k"}`))
	f.Add(1, []byte(`{"limit":2,"cursor":"x","updated_since":"2026-01-01T00:00:00Z"}`))
	f.Add(6, []byte(`{"lead_id":"6f1c1b0e-8f59-4d7e-9a39-2f7f6c8b8f11","estimate_type":"binding","price_cents":1,"deposit_cents":null}`))
	f.Add(7, []byte(`{"lead_id":"x","esign_consent_checked":true,"extra":1}`))
	f.Add(8, []byte(`[1,2]`))
	f.Add(4, []byte(`{"survey_id":"s","ttl_hours":1e308}`))
	st := newStubbed(f, refused)
	f.Fuzz(func(t *testing.T, n int, args []byte) {
		if n < 0 || !json.Valid(args) {
			return
		}
		tl := Tools[n%len(Tools)]
		res := st.call(t, tl.Name, json.RawMessage(args))
		calls := st.take()
		if len(calls) == 0 {
			if !res.IsError {
				t.Fatalf("%s(%s): no operation ran and no error", tl.Name, args)
			}
			return
		}
		c := calls[0].c
		if len(calls) != 1 || calls[0].op != tl.Operation {
			t.Fatalf("%s(%s) ran %v", tl.Name, args, calls)
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(args, &m); err != nil {
			t.Fatalf("%s ran on arguments that are not an object: %s", tl.Name, args)
		}
		for _, p := range pathParams {
			if raw, ok := m[p]; ok && p == manifest.ParamName(tl.Route().PilotPath) {
				var v string
				if json.Unmarshal(raw, &v) != nil || v != c.PathParam {
					t.Fatalf("%s(%s): path parameter %q; want %s", tl.Name, args, c.PathParam, raw)
				}
			}
		}
		if c.Body != nil {
			b, err := json.Marshal(c.Body)
			var body map[string]json.RawMessage
			if err != nil || json.Unmarshal(b, &body) != nil {
				t.Fatalf("%s(%s): body %s is not an object (%v)", tl.Name, args, b, err)
			}
			for k := range body {
				if _, ok := tl.InputSchema().Properties[k]; !ok || k == "idempotency_key" {
					t.Fatalf("%s(%s): body field %q is not an argument of the schema", tl.Name, args, k)
				}
			}
		}
	})
}

// TestLeadFieldsAreTheAPIs: create_lead's arguments are createLead's body
// fields (lead.Details), no more, no fewer.
func TestLeadFieldsAreTheAPIs(t *testing.T) {
	names := func(typ reflect.Type) []string {
		var out []string
		for f := range typ.Fields() {
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			out = append(out, name)
		}
		slices.Sort(out)
		return out
	}
	if got, want := names(reflect.TypeFor[LeadFields]()), names(reflect.TypeFor[lead.Details]()); !slices.Equal(got, want) {
		t.Errorf("create_lead's fields %v; createLead's %v", got, want)
	}
}
