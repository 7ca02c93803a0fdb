package apigw_test

import (
	"strings"
	"testing"
	"time"

	"github.com/moveleads/partnerapi/shared/app/pipeline"

	"github.com/moveleads/partnerapi/shared/testkit/apitest"
	"github.com/moveleads/partnerapi/shared/testkit/dynamometer"
)

// TestDynamoDBRequestsPerOperation measures the round trips each operation
// makes (on a warm instance, after a first request in the same minute) and
// holds them to the budget.
func TestDynamoDBRequestsPerOperation(t *testing.T) {
	ct := &dynamometer.Meter{}
	env := apitest.New(t, apitest.Options{DynamoDB: ct.Install})
	p := newPartner(t, env)
	lead := p.create(t, `{"email":"ada@example.com"}`)
	ct.Take()

	cases := []struct {
		name    string
		do      func()
		want    string
		maxTrip int
	}{
		{"createLead", func() { p.create(t, `{"email":"ada@example.com"}`) }, "UpdateItem PutItem", 2},
		{"createLead with Idempotency-Key", func() { p.create(t, `{"email":"ada@example.com"}`, "Idempotency-Key: m1") }, "UpdateItem PutItem PutItem", 3},
		// The claim's failed condition returns the stored response; a
		// consistent read of the lead's key confirms the lead was written.
		{"idempotent replay", func() { p.create(t, `{"email":"ada@example.com"}`, "Idempotency-Key: m1") }, "UpdateItem PutItem GetItem", 3},
		{"getLead", func() { env.Do(t, "GET", "/v1/leads/"+lead.LeadID, p.key, "") }, "UpdateItem GetItem", 2},
		{"listLeads page", func() { env.Do(t, "GET", "/v1/leads?limit=10", p.key, "") }, "UpdateItem Query", 2},
		// Once an instance's copy of the partner's settings (rate card) is
		// older than pipeline.SettingsTTL, createLead reads them again: one
		// consistent GetItem, once per partner per instance per 30 s.
		{"createLead, settings cache expired", func() {
			env.Clock.Set(time.Now().Add(pipeline.SettingsTTL))
			p.create(t, `{"email":"ada@example.com"}`)
		}, "UpdateItem GetItem PutItem", 3},
	}
	for _, c := range cases {
		c.do()
		s := ct.Take()
		ops, rcu, wcu := s.Trips, s.Read, s.Write
		t.Logf("%-32s %d round trips (%s), %.1f RCU, %.1f WCU", c.name, len(ops), strings.Join(ops, " "), rcu, wcu)
		if got := strings.Join(ops, " "); got != c.want || len(ops) > c.maxTrip {
			t.Errorf("%s: %q; want %q (at most %d)", c.name, got, c.want, c.maxTrip)
		}
	}
}
