package eventfeed

import (
	"bytes"
	"context"
	"net/url"
	"testing"
	"time"

	"github.com/moveleads/partnerapi/shared/app/pagecursor"
	"github.com/moveleads/partnerapi/shared/app/pipeline"
	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/domain/errcode"
	"github.com/moveleads/partnerapi/shared/domain/webhook"
)

var fuzzSecret = bytes.Repeat([]byte("k"), 32)

// call is a listEvents call of tenant p1/test with the query q (a raw
// query string, each parameter's first value, as the edge passes it).
func call(raw string) *pipeline.Call {
	q := map[string]string{}
	if v, err := url.ParseQuery(raw); err == nil {
		for k := range v {
			q[k] = v.Get(k)
		}
	}
	return &pipeline.Call{
		Request:   &pipeline.Request{Query: q},
		Principal: auth.Principal{Tenant: auth.Tenant{PartnerID: "p1", Mode: auth.Test}},
		Now:       time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC),
	}
}

// FuzzParseListQuery: any query either fails with validation_failed or
// gives a query the store can run: a listed type, a canonical lead UUID,
// a limit in bounds, a cursor this signer issued.
func FuzzParseListQuery(f *testing.F) {
	s := New(nil, func(context.Context) ([]byte, error) { return fuzzSecret, nil })
	signer, _ := pagecursor.New(fuzzSecret)
	valid := signer.Encode(pagecursor.Events, "p1", "test", pagecursor.Position{At: "2026-05-31T00:00:00.000000Z", ID: "evt_x"})
	for _, q := range []string{"", "limit=5", "type=survey.completed", "type=webhook.test", "lead_id=0B9F1F4E-7C5A-4A43-9D55-0A8D2A0C3E11",
		"created_since=2026-05-01T00:00:00Z", "cursor=" + url.QueryEscape(valid), "cursor=x.y", "limit=0", "page=2", "lead_id=%23"} {
		f.Add(q)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		c := call(raw)
		q, err := s.parseListQuery(context.Background(), c)
		if err != nil {
			if e := errcode.As(err); e == nil || e.Code != errcode.ValidationFailed {
				t.Fatalf("parseListQuery(%q) error %v; want validation_failed", raw, err)
			}
			return
		}
		if q.Limit < 1 || q.Limit > pagecursor.MaxLimit {
			t.Errorf("parseListQuery(%q): limit %d", raw, q.Limit)
		}
		if q.Type != "" && (!webhook.Known(q.Type) || q.Type == webhook.Test) {
			t.Errorf("parseListQuery(%q): type %q", raw, q.Type)
		}
		if q.LeadID != "" && len(q.LeadID) != 36 {
			t.Errorf("parseListQuery(%q): lead_id %q", raw, q.LeadID)
		}
		if q.After != nil && (q.After.At == "" || q.After.ID == "") {
			t.Errorf("parseListQuery(%q): after %+v", raw, q.After)
		}
		if !q.Now.Equal(c.Now) {
			t.Errorf("parseListQuery(%q): now %v; want the call's", raw, q.Now)
		}
	})
}
