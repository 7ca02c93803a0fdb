package pipeline

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/moveleads/partnerapi/shared/app/pipeline/idempotency"
	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/domain/partner"
	"github.com/moveleads/partnerapi/shared/spec/manifest"
)

// partnerStore is a unit-test double of the pipeline's narrow Store: the
// calls here arrive admitted (Request.Admitted), so only the beta gate
// reads it.
type partnerStore struct{}

func (partnerStore) Admit(context.Context, string, time.Time, int) (auth.Principal, auth.Usage, error) {
	return auth.Principal{}, auth.Usage{}, errors.New("not used")
}

func (partnerStore) GetPartner(_ context.Context, id string) (partner.Partner, error) {
	return partner.Partner{ID: id, Beta: partner.Features}, nil
}

func (partnerStore) Idempotency() idempotency.Store { return nil }

// TestMalformedPathIDIsNotFound: on every route whose path parameter is
// an id, a value that is not a 36-character UUID answers 404 not_found
// with the API's error body, naming the resource, and never reaches the
// endpoint; a valid one reaches it in canonical form.
func TestMalformedPathIDIsNotFound(t *testing.T) {
	p := New(Deps{Store: partnerStore{}, Now: time.Now, NewID: func() string { return "id" }})
	const valid = "0B9F1F4E-7C5A-4A43-9D55-0A8D2A0C3E11"
	n := 0
	for _, rt := range manifest.Routes() {
		if rt.PathParamType != manifest.ParamUUID || !rt.Auth.PartnerKey() {
			continue // a dashboard route's id is checked under a session: shared/app/dashboardapp's tests
		}
		n++
		resource := strings.TrimSuffix(manifest.ParamName(rt.PilotPath), "_id")
		for _, id := range []string{"", "x", "not-a-uuid", "0b9f1f4e7c5a4a439d550a8d2a0c3e11", "{" + valid + "}", "urn:uuid:" + valid, valid + "0", strings.Repeat("9", 4096)} {
			t.Run(string(rt.Operation)+"/"+id[:min(len(id), 20)], func(t *testing.T) {
				reached := false
				ep := Endpoint{Operation: rt.Operation, Prepare: func(context.Context, *Call) (Work, error) {
					reached = true
					return Work{Run: func(context.Context, string) (any, error) { return struct{}{}, nil }}, nil
				}}
				admitted := auth.Principal{Tenant: auth.Tenant{PartnerID: "p1", Mode: auth.Test}, Scopes: auth.AllScopes}
				res := p.Run(context.Background(), ep, &Request{Route: rt, PathParam: id, Admitted: &admitted})
				if reached {
					t.Errorf("path id %q reached the endpoint", id)
				}
				var body errorBody
				if err := json.Unmarshal(res.Body, &body); err != nil {
					t.Fatalf("body %s: %v", res.Body, err)
				}
				want := "No " + resource + " with that id exists for this API key."
				if res.Status != 404 || body.Error.Code != "not_found" || body.Error.Message != want || body.Error.Details == nil {
					t.Errorf("path id %q: %d %s; want 404 not_found %q", id, res.Status, res.Body, want)
				}
			})
		}
		t.Run(string(rt.Operation)+"/valid", func(t *testing.T) {
			var got string
			ep := Endpoint{Operation: rt.Operation, Prepare: func(_ context.Context, c *Call) (Work, error) {
				got = c.ID
				return Work{Run: func(context.Context, string) (any, error) { return struct{}{}, nil }}, nil
			}}
			admitted := auth.Principal{Tenant: auth.Tenant{PartnerID: "p1", Mode: auth.Test}, Scopes: auth.AllScopes}
			p.Run(context.Background(), ep, &Request{Route: rt, PathParam: valid, Admitted: &admitted})
			if want := strings.ToLower(valid); got != want {
				t.Errorf("c.ID = %q; want %q", got, want)
			}
		})
	}
	if n < 7 {
		t.Errorf("%d routes with an id path parameter; want at least 7 (leads, surveys, quotes, deposits)", n)
	}
}

// TestMalformedEventIDIsNotFound: on a route whose path parameter is an
// event id, a value not of that form answers 404 not_found naming the
// event and never reaches the endpoint; an event id reaches it as is.
func TestMalformedEventIDIsNotFound(t *testing.T) {
	p := New(Deps{Store: partnerStore{}, Now: time.Now, NewID: func() string { return "id" }})
	admitted := auth.Principal{Tenant: auth.Tenant{PartnerID: "p1", Mode: auth.Test}, Scopes: auth.AllScopes}
	n := 0
	for _, rt := range manifest.Routes() {
		// Dashboard routes need a session first (the dashboard's security
		// matrix covers them); here, the partner-key routes.
		if rt.PathParamType != manifest.ParamEventID || !rt.Auth.PartnerKey() {
			continue
		}
		n++
		for _, id := range []string{"", "evt_", "evt", "x", "EVT_abc", "evt_ABC", "evt_a/b", "evt_a%2Fb", "evt_a b", "evt_é", "0b9f1f4e-7c5a-4a43-9d55-0a8d2a0c3e11", "evt_" + strings.Repeat("a", 200)} {
			t.Run(string(rt.Operation)+"/"+id[:min(len(id), 20)], func(t *testing.T) {
				reached := false
				ep := Endpoint{Operation: rt.Operation, Prepare: func(context.Context, *Call) (Work, error) {
					reached = true
					return Work{Run: func(context.Context, string) (any, error) { return struct{}{}, nil }}, nil
				}}
				res := p.Run(context.Background(), ep, &Request{Route: rt, PathParam: id, Admitted: &admitted})
				var body errorBody
				if err := json.Unmarshal(res.Body, &body); err != nil {
					t.Fatalf("body %s: %v", res.Body, err)
				}
				const want = "No event with that id exists for this API key."
				if reached || res.Status != 404 || body.Error.Code != "not_found" || body.Error.Message != want {
					t.Errorf("path id %q: reached %v, %d %s; want 404 not_found %q", id, reached, res.Status, res.Body, want)
				}
			})
		}
		for _, id := range []string{"evt_0b9f1f4e-7c5a-4a43-9d55-0a8d2a0c3e11_survey.completed", "evt_test_0123456789abcdef"} {
			var got string
			ep := Endpoint{Operation: rt.Operation, Prepare: func(_ context.Context, c *Call) (Work, error) {
				got = c.ID
				return Work{Run: func(context.Context, string) (any, error) { return struct{}{}, nil }}, nil
			}}
			p.Run(context.Background(), ep, &Request{Route: rt, PathParam: id, Admitted: &admitted})
			if got != id {
				t.Errorf("%s: c.ID = %q; want %q", rt.Operation, got, id)
			}
		}
	}
	if n == 0 {
		t.Fatal("no route takes an event id")
	}
}
