// Package overhead measures each endpoint's full request pipeline — auth,
// rate limit, idempotency, validation, store — with DynamoDB answered by an
// in-process stub at the HTTP transport level, so that a regression in the
// service's own code shows without the network or a database in the way.
// `go test -bench . ./scripts/bench/overhead` runs the same benchmarks that
// `make bench` reports through Run.
package overhead

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/moveleads/partnerapi/scripts/bench/report"
	"github.com/moveleads/partnerapi/shared/adapter/dynamo"
	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/domain/estimate"
	"github.com/moveleads/partnerapi/shared/spec/manifest"
	"github.com/moveleads/partnerapi/shared/wire/catalog"
)

// The fixture the stub serves: one key of one partner, one lead.
const (
	partnerID = "ptn_0123456789abcdef"
	leadID    = "00000000-0000-4000-8000-000000000001"
)

var apiKey = auth.Test.Prefix() + strings.Repeat("ab", 32)

// stub answers the DynamoDB calls the handlers make with fixed, valid
// responses: the key record (admitted, count 1), an empty success for
// writes, the lead for GetItem and ten leads for Query.
type stub struct {
	keyItem, leadItem, page []byte
	calls                   atomic.Int64
}

func newStub() (*stub, error) {
	rc, err := attributevalue.Marshal(estimate.DefaultRateCard("usd"))
	if err != nil {
		return nil, err
	}
	key := map[string]types.AttributeValue{
		"pk": s("APIKEY#" + auth.Digest(apiKey)), "sk": s("APIKEY"), "type": s("api_key"),
		"key_id": s("key_0123456789abcdef"), "digest": s(auth.Digest(apiKey)), "partner_id": s(partnerID),
		"mode": s("test"), "scopes": scopes(), "rate_card": rc, "created_at": s("2026-11-01T00:00:00.000000Z"),
		"rl_window": n("1"), "rl_count": n("1"),
	}
	lead := func(id, at string) map[string]types.AttributeValue {
		return map[string]types.AttributeValue{
			"pk": s("PARTNER#" + partnerID + "#MODE#test#LEAD#" + id), "sk": s("LEAD"), "type": s("lead"),
			"lead_id": s(id), "status": s("new"), "customer_name": s("Ada Lovelace"), "email": s("ada@example.com"),
			"source": s("web-form"), "created_at": s(at), "updated_at": s(at),
			"gsi1pk": s("PARTNER#" + partnerID + "#MODE#test#LEADS"), "gsi1sk": s(at + "#" + id),
		}
	}
	st := &stub{}
	st.keyItem, _ = json.Marshal(map[string]any{"Attributes": wire(key)})
	st.leadItem, _ = json.Marshal(map[string]any{"Item": wire(lead(leadID, "2026-11-01T00:00:00.000000Z"))})
	var items []any
	for i := 0; i < 10; i++ {
		items = append(items, wire(lead(fmt.Sprintf("00000000-0000-4000-8000-%012d", i), fmt.Sprintf("2026-11-01T00:00:%02d.000000Z", i))))
	}
	st.page, _ = json.Marshal(map[string]any{"Items": items, "Count": 10, "ScannedCount": 10})
	return st, nil
}

// RoundTrip implements http.RoundTripper.
func (st *stub) RoundTrip(req *http.Request) (*http.Response, error) {
	st.calls.Add(1)
	if req.Body != nil {
		_, _ = io.Copy(io.Discard, req.Body)
		req.Body.Close()
	}
	target := req.Header.Get("X-Amz-Target")
	body := []byte(`{}`)
	switch target[strings.LastIndexByte(target, '.')+1:] {
	case "UpdateItem":
		body = st.keyItem
	case "GetItem":
		body = st.leadItem
	case "Query":
		body = st.page
	}
	return &http.Response{
		StatusCode: 200, Status: "200 OK", Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header:        http.Header{"Content-Type": {"application/x-amz-json-1.0"}, "Content-Length": {strconv.Itoa(len(body))}},
		Body:          io.NopCloser(strings.NewReader(string(body))),
		ContentLength: int64(len(body)), Request: req,
	}, nil
}

// Case is one benchmarked request.
type Case struct {
	Name string
	Op   manifest.Operation
	// Event returns the event for iteration i.
	Event func(i int) events.APIGatewayV2HTTPRequest
}

// Cases lists the benchmarked requests: every endpoint, and createLead with
// an Idempotency-Key.
func Cases() []Case {
	ev := func(method, path, body string, hdr map[string]string, q map[string]string, params map[string]string) events.APIGatewayV2HTTPRequest {
		h := map[string]string{"authorization": "Bearer " + apiKey, "content-type": "application/json"}
		for k, v := range hdr {
			h[k] = v
		}
		raw := url.Values{}
		for k, v := range q {
			raw.Set(k, v)
		}
		return events.APIGatewayV2HTTPRequest{
			Version: "2.0", RawPath: path, Headers: h, RawQueryString: raw.Encode(), PathParameters: params, Body: body,
			RequestContext: events.APIGatewayV2HTTPRequestContext{RequestID: "bench",
				HTTP: events.APIGatewayV2HTTPRequestContextHTTPDescription{Method: method, Path: path}},
		}
	}
	body := `{"customer_name":"Ada Lovelace","email":"ada@example.com","phone":"+15551234567","from_address":"1 Main St, New York, NY 10001","to_address":"9 Oak Ave, Boston, MA 02108","home_size":"2 bedroom","move_date":"2027-01-15","special_items":["piano"],"source":"web-form"}`
	return []Case{
		{"createLead", manifest.CreateLead, func(int) events.APIGatewayV2HTTPRequest {
			return ev("POST", "/v1/leads", body, nil, nil, nil)
		}},
		{"createLead with Idempotency-Key", manifest.CreateLead, func(i int) events.APIGatewayV2HTTPRequest {
			return ev("POST", "/v1/leads", body, map[string]string{"idempotency-key": "bench-" + strconv.Itoa(i)}, nil, nil)
		}},
		{"getLead", manifest.GetLead, func(int) events.APIGatewayV2HTTPRequest {
			return ev("GET", "/v1/leads/"+leadID, "", nil, nil, map[string]string{"id": leadID})
		}},
		{"listLeads (10 leads)", manifest.ListLeads, func(int) events.APIGatewayV2HTTPRequest {
			return ev("GET", "/v1/leads", "", nil, map[string]string{"limit": "10"}, nil)
		}},
	}
}

// NewHandler returns the real handler over a DynamoDB client whose HTTP
// transport is the stub.
func NewHandler() (*catalog.Stack, error) {
	st, err := newStub()
	if err != nil {
		return nil, err
	}
	db := dynamodb.New(dynamodb.Options{
		Region:       "us-east-1",
		Credentials:  credentials.NewStaticCredentialsProvider("bench", "bench", ""),
		HTTPClient:   &http.Client{Transport: st},
		BaseEndpoint: aws.String("http://dynamodb.stub"),
	})
	secret := []byte(strings.Repeat("k", 32))
	return catalog.New(catalog.Deps{Store: dynamo.New(db, "bench"), Secret: func(string) func(context.Context) ([]byte, error) {
		return func(context.Context) ([]byte, error) { return secret, nil }
	}}), nil
}

// Bench runs c b.N times against h and fails b on any non-200 answer.
func Bench(b *testing.B, h *catalog.Stack, c Case) {
	fn := h.Route(c.Op)
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		resp, _ := fn(ctx, c.Event(i))
		if resp.StatusCode != 200 {
			b.Fatalf("%s: status %d: %s", c.Name, resp.StatusCode, resp.Body)
		}
	}
}

// Run benchmarks every case and returns the rows for `make bench`.
func Run() ([]report.Row, error) {
	h, err := NewHandler()
	if err != nil {
		return nil, err
	}
	var rows []report.Row
	for _, c := range Cases() {
		var failure string
		res := testing.Benchmark(func(b *testing.B) {
			defer func() {
				if b.Failed() {
					failure = "benchmark failed"
				}
			}()
			Bench(b, h, c)
		})
		if failure != "" || res.N == 0 {
			return nil, fmt.Errorf("overhead %s: %s", c.Name, failure)
		}
		rows = append(rows, report.Row{
			Section: "Handler overhead", Metric: c.Name + " (stubbed DynamoDB)",
			Value: fmt.Sprintf("%d ns/op, %d allocs/op, %d B/op", res.NsPerOp(), res.AllocsPerOp(), res.AllocedBytesPerOp()),
		})
	}
	return rows, nil
}

func s(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
func n(v string) types.AttributeValue { return &types.AttributeValueMemberN{Value: v} }

func scopes() types.AttributeValue {
	var l []types.AttributeValue
	for _, sc := range auth.AllScopes {
		l = append(l, s(string(sc)))
	}
	return &types.AttributeValueMemberL{Value: l}
}

// wire renders attribute values in DynamoDB's JSON wire format.
func wire(m map[string]types.AttributeValue) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = wireValue(v)
	}
	return out
}

func wireValue(v types.AttributeValue) any {
	switch t := v.(type) {
	case *types.AttributeValueMemberS:
		return map[string]any{"S": t.Value}
	case *types.AttributeValueMemberN:
		return map[string]any{"N": t.Value}
	case *types.AttributeValueMemberBOOL:
		return map[string]any{"BOOL": t.Value}
	case *types.AttributeValueMemberB:
		return map[string]any{"B": base64.StdEncoding.EncodeToString(t.Value)}
	case *types.AttributeValueMemberL:
		l := make([]any, len(t.Value))
		for i, x := range t.Value {
			l[i] = wireValue(x)
		}
		return map[string]any{"L": l}
	case *types.AttributeValueMemberM:
		return map[string]any{"M": wire(t.Value)}
	case *types.AttributeValueMemberNULL:
		return map[string]any{"NULL": true}
	}
	panic(fmt.Sprintf("overhead: attribute type %T not rendered", v))
}
