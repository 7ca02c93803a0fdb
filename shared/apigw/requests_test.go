package apigw_test

import (
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/moveleads/partnerapi/shared/apitest"
)

// countingTransport counts DynamoDB round trips by operation.
type countingTransport struct {
	mu  sync.Mutex
	ops []string
}

func (c *countingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	target := req.Header.Get("X-Amz-Target")
	c.mu.Lock()
	c.ops = append(c.ops, target[strings.LastIndexByte(target, '.')+1:])
	c.mu.Unlock()
	return http.DefaultTransport.RoundTrip(req)
}

func (c *countingTransport) take() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	ops := c.ops
	c.ops = nil
	return ops
}

// TestDynamoDBRequestsPerOperation measures the round trips each operation
// makes (on a warm instance, after a first request in the same minute) and
// holds them to the budget.
func TestDynamoDBRequestsPerOperation(t *testing.T) {
	ct := &countingTransport{}
	env := apitest.New(t, apitest.Options{HTTPClient: &http.Client{Transport: ct}})
	p := newPartner(t, env)
	lead := p.create(t, `{"email":"ada@example.com"}`)
	ct.take()

	cases := []struct {
		name    string
		do      func()
		want    string
		maxTrip int
	}{
		{"createLead", func() { p.create(t, `{"email":"ada@example.com"}`) }, "UpdateItem PutItem", 2},
		{"createLead with Idempotency-Key", func() { p.create(t, `{"email":"ada@example.com"}`, "Idempotency-Key: m1") }, "UpdateItem PutItem BatchWriteItem", 3},
		{"idempotent replay", func() { p.create(t, `{"email":"ada@example.com"}`, "Idempotency-Key: m1") }, "UpdateItem PutItem", 2},
		{"getLead", func() { env.Do(t, "GET", "/v1/leads/"+lead.LeadID, p.key, "") }, "UpdateItem GetItem", 2},
		{"listLeads page", func() { env.Do(t, "GET", "/v1/leads?limit=10", p.key, "") }, "UpdateItem Query", 2},
	}
	for _, c := range cases {
		c.do()
		ops := ct.take()
		t.Logf("%-32s %d round trips: %s", c.name, len(ops), strings.Join(ops, " "))
		if got := strings.Join(ops, " "); got != c.want || len(ops) > c.maxTrip {
			t.Errorf("%s: %q; want %q (at most %d)", c.name, got, c.want, c.maxTrip)
		}
	}
}
