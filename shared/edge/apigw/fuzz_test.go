package apigw_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/google/uuid"

	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/domain/lead"
	"github.com/moveleads/partnerapi/shared/spec/manifest"
	"github.com/moveleads/partnerapi/shared/testkit/apitest"
)

// fuzzTarget is one stack, partner and key shared by every input of a fuzz
// target. The clock moves a minute every 100 calls so the key never reaches
// its limit of 120 requests per minute.
type fuzzTarget struct {
	env     *apitest.Env
	partner string
	key     string
	calls   atomic.Int64
	start   time.Time
}

func newFuzzTarget(f *testing.F) *fuzzTarget {
	f.Helper()
	env := apitest.New(f)
	id := env.NewPartner(f, "Fuzz Movers")
	key, _ := env.NewKey(f, id, auth.Test)
	ft := &fuzzTarget{env: env, partner: id, key: key, start: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
	env.Clock.Set(ft.start)
	return ft
}

// invoke calls op's handler directly with ev, after authorising it and
// moving the clock; it fails the test when the handler returns an error.
func (ft *fuzzTarget) invoke(t *testing.T, op manifest.Operation, ev events.APIGatewayV2HTTPRequest) events.APIGatewayV2HTTPResponse {
	t.Helper()
	n := ft.calls.Add(1)
	ft.env.Clock.Set(ft.start.Add(time.Duration(n/100) * time.Minute))
	rt := manifest.ByOperation(op)
	if ev.Headers == nil {
		ev.Headers = map[string]string{}
	}
	ev.Headers["authorization"] = "Bearer " + ft.key
	ev.Version, ev.RouteKey, ev.RawPath = "2.0", rt.Method+" "+rt.LogicalPath, rt.LogicalPath
	ev.RequestContext.RequestID = uuid.NewString()
	ev.RequestContext.HTTP.Method, ev.RequestContext.HTTP.Path = rt.Method, rt.LogicalPath
	resp, err := ft.env.Stack.Route(op)(context.Background(), ev)
	if err != nil {
		t.Fatalf("%s handler returned error %v; want nil (errors are responses)", op, err)
	}
	if got := resp.Headers["Content-Type"]; got != "application/json" {
		t.Errorf("Content-Type %q; want application/json", got)
	}
	if resp.StatusCode == 429 {
		t.Fatalf("status 429 after %d calls: the fuzz harness let the rate limit trip", n)
	}
	return resp
}

// fuzzErrorBody is the spec's error body, decoded strictly.
type fuzzErrorBody struct {
	Error *struct {
		Code    string          `json:"code"`
		Message string          `json:"message"`
		Details *map[string]any `json:"details"`
	} `json:"error"`
}

// checkErrorBody fails unless body is the spec's error body with one of codes.
func checkErrorBody(t *testing.T, status int, body string, codes ...string) map[string]any {
	t.Helper()
	var e fuzzErrorBody
	if err := json.Unmarshal([]byte(body), &e); err != nil || e.Error == nil {
		t.Fatalf("status %d body %.300q is not the error body: %v", status, body, err)
	}
	if !slices.Contains(codes, e.Error.Code) {
		t.Errorf("status %d error.code %q; want one of %q", status, e.Error.Code, codes)
	}
	if e.Error.Message == "" || e.Error.Details == nil {
		t.Errorf("status %d error body lacks message or details: %.300s", status, body)
		return nil
	}
	return *e.Error.Details
}

// Body encodings the fuzzer chooses between.
const (
	bodyRaw       = iota // sent as is
	bodyBase64           // base64-encoded, IsBase64Encoded set (as API Gateway sends binary)
	bodyBadBase64        // IsBase64Encoded set but the body sent as is
	bodyEncodings
)

func FuzzCreateLeadBody(f *testing.F) {
	ft := newFuzzTarget(f)
	seeds := []string{
		`{"customer_name":"Ada Lovelace","email":"ada@example.com","phone":"+15551234567","from_address":"1 Main St, New York, NY 10001","to_address":"2 Elm St, Boston, MA 02108","home_size":"2 bedroom","move_date":"2027-01-15","special_items":["piano"],"source":"fuzz"}`,
		`{"email":"ada@example.com","colour":"red","size":1}`,
		`{"email":"a@b.co","x":` + strings.Repeat("[", 20000) + strings.Repeat("]", 20000) + `}`,
		`{"email":"a@b.co","special_items":` + strings.Repeat("[", 100) + strings.Repeat("]", 100) + `}`,
		`{"email":"a@b.co","customer_name":1e999999,"phone":123456789012345678901234567890}`,
		"{\"customer_name\":\"Ada\xff\xfe\",\"from_address\":\"\xc3\x28\"}",
		"{\"customer_name\":\"Ada\\u0000\",\"email\":\"a@b.co\"}",
		"{\"customer_name\":\"Ada\x00\"}",
		"{\"email\":\"a@b.co\"}\x00",
		`{"email":"x","email":"a@b.co","name":"A","name":"B","customer_name":"B"}`,
		`{"email":"a@b.co","customer_name":"` + strings.Repeat("x", 70<<10) + `"}`,
		`{"email":"a@b.co"}` + strings.Repeat(" ", 64<<10-len(`{"email":"a@b.co"}`)),
		`{"customer_name":"\ud800\udc00\ud800"}`,
		`[]`, `null`, `""`, `1`, ``, `{"email":"a@b.co"} {}`,
	}
	for _, s := range seeds {
		f.Add([]byte(s), uint8(bodyRaw))
	}
	// The same bodies through API Gateway's base64 path, and a body flagged
	// as base64 that is not.
	for _, i := range []int{0, 5, 7, 11} {
		f.Add([]byte(seeds[i]), uint8(bodyBase64))
	}
	f.Add([]byte(seeds[0]), uint8(bodyBadBase64))
	f.Fuzz(func(t *testing.T, body []byte, encoding uint8) {
		ev := events.APIGatewayV2HTTPRequest{Headers: map[string]string{"content-type": "application/json"}}
		switch encoding % bodyEncodings {
		case bodyRaw:
			ev.Body = string(body)
		case bodyBase64:
			ev.Body, ev.IsBase64Encoded = base64.StdEncoding.EncodeToString(body), true
		case bodyBadBase64:
			ev.Body, ev.IsBase64Encoded = string(body), true
		}
		resp := ft.invoke(t, manifest.CreateLead, ev)
		switch resp.StatusCode {
		case 200:
			var c struct {
				LeadID string `json:"lead_id"`
				Status string `json:"status"`
			}
			if err := json.Unmarshal([]byte(resp.Body), &c); err != nil || c.LeadID == "" || c.Status != string(lead.New) {
				t.Errorf("200 body %.300s: want lead_id and status new (%v)", resp.Body, err)
			}
		case 413:
			checkErrorBody(t, resp.StatusCode, resp.Body, "payload_too_large")
		case 422:
			checkErrorBody(t, resp.StatusCode, resp.Body, "validation_failed", "invalid_json")
		default:
			t.Errorf("body %.300q (encoding %d): status %d; want 200, 413 or 422 (body %.300s)", body, encoding%bodyEncodings, resp.StatusCode, resp.Body)
		}
	})
}

// Bits of FuzzListLeadsQuery's flags.
const (
	sendLimit        = 1 << iota
	sendSince        // updated_since
	sendCursor       // cursor as fuzzed
	sendValidCursor  // cursor: one the API issued (overrides sendCursor)
	mutateCursor     // cursor: the issued one with the fuzzed text spliced in
	sendUnknownParam // an unknown parameter named by the fuzzed cursor text
)

func FuzzListLeadsQuery(f *testing.F) {
	ft := newFuzzTarget(f)
	tenant := auth.Tenant{PartnerID: ft.partner, Mode: auth.Test}
	for i := range 5 {
		at := ft.start.Add(time.Duration(i) * time.Millisecond)
		l := lead.Lead{ID: uuid.NewString(), Status: lead.New, Details: lead.Details{Email: fmt.Sprintf("c%d@example.com", i)}, CreatedAt: at, UpdatedAt: at}
		if err := ft.env.Store.PutLead(context.Background(), tenant, l, false); err != nil {
			f.Fatalf("seed lead: %v", err)
		}
	}
	// A cursor this stack issued, to reach the store with a real position.
	first := ft.env.Stack.Route(manifest.ListLeads)
	resp, err := first(context.Background(), events.APIGatewayV2HTTPRequest{
		Headers:        map[string]string{"authorization": "Bearer " + ft.key},
		RawQueryString: "limit=2",
	})
	var page struct {
		NextCursor *string `json:"next_cursor"`
	}
	if err != nil || resp.StatusCode != 200 || json.Unmarshal([]byte(resp.Body), &page) != nil || page.NextCursor == nil {
		f.Fatalf("first page: %d %s, %v; want 200 with next_cursor", resp.StatusCode, resp.Body, err)
	}
	issued := *page.NextCursor

	f.Add("25", "2026-01-31T09:00:00Z", "", uint8(sendLimit|sendSince))
	f.Add("1", "", "", uint8(sendLimit|sendValidCursor))
	f.Add("100", "2026-03-01T12:00:00.000000001+14:00", "", uint8(sendLimit|sendSince|sendValidCursor))
	f.Add("0", "yesterday", "abc.def", uint8(sendLimit|sendSince|sendCursor))
	f.Add("101", "2026-01-01", "", uint8(sendLimit|sendSince))
	f.Add("+5", "0000-01-01T00:00:00Z", "\n", uint8(sendLimit|sendSince|mutateCursor))
	f.Add("05", "9999-12-31T23:59:59.999999999-23:59", "page", uint8(sendLimit|sendSince|sendUnknownParam))
	f.Add("-1", "2026-02-30T00:00:00Z", ".", uint8(sendLimit|sendSince|sendCursor))
	f.Add("99999999999999999999", "", "", uint8(sendLimit))
	f.Add("", "", "", uint8(sendLimit|sendSince|sendCursor))
	f.Add("", "", "", uint8(0))
	// Found by fuzzing: an invalid UTF-8 parameter name comes back as U+FFFD.
	f.Add("0", "0", "\xc7", uint8(sendLimit|sendSince|sendUnknownParam))
	f.Fuzz(func(t *testing.T, limit, since, cur string, flags uint8) {
		q := map[string]string{}
		if flags&sendLimit != 0 {
			q["limit"] = limit
		}
		if flags&sendSince != 0 {
			q["updated_since"] = since
		}
		if flags&sendCursor != 0 {
			q["cursor"] = cur
		}
		if flags&sendValidCursor != 0 {
			q["cursor"] = issued
		}
		if flags&mutateCursor != 0 {
			i := len(cur) % (len(issued) + 1)
			q["cursor"] = issued[:i] + cur + issued[i:]
		}
		if flags&sendUnknownParam != 0 {
			q[cur] = limit
		}
		raw := url.Values{}
		for k, v := range q {
			raw.Set(k, v)
		}
		resp := ft.invoke(t, manifest.ListLeads, events.APIGatewayV2HTTPRequest{RawQueryString: raw.Encode()})
		switch resp.StatusCode {
		case 200:
			var page struct {
				Data       []json.RawMessage `json:"data"`
				NextCursor *string           `json:"next_cursor"`
				HasMore    *bool             `json:"has_more"`
			}
			if err := json.Unmarshal([]byte(resp.Body), &page); err != nil || page.Data == nil || page.HasMore == nil {
				t.Fatalf("query %q: 200 body %.300s is not a page: %v", q, resp.Body, err)
			}
			if *page.HasMore != (page.NextCursor != nil) {
				t.Errorf("query %q: has_more %v with next_cursor %v; want next_cursor exactly when has_more", q, *page.HasMore, page.NextCursor)
			}
			if n, err := strconv.Atoi(q["limit"]); err == nil && len(page.Data) > n {
				t.Errorf("query %q: %d leads; want at most limit %d", q, len(page.Data), n)
			}
		case 422:
			fields, _ := checkErrorBody(t, resp.StatusCode, resp.Body, "validation_failed")["fields"].(map[string]any)
			if len(fields) == 0 {
				t.Errorf("query %q: 422 without details.fields (%s)", q, resp.Body)
			}
			sent := map[string]bool{}
			for name := range q {
				sent[jsonRoundTrip(name)] = true // as the body can carry it
			}
			for name := range fields {
				if !sent[name] {
					t.Errorf("query %q: details.fields names %q, which was not sent", q, name)
				}
			}
		default:
			t.Errorf("query %q: status %d; want 200 or 422 (body %.300s)", q, resp.StatusCode, resp.Body)
		}
	})
}

// jsonRoundTrip returns s as it reads back from a JSON string: invalid UTF-8
// becomes U+FFFD.
func jsonRoundTrip(s string) string {
	b, _ := json.Marshal(s)
	var out string
	_ = json.Unmarshal(b, &out)
	return out
}
