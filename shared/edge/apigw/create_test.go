package apigw_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/moveleads/partnerapi/shared/testkit/apitest"
)

func TestCreateLeadBothPathForms(t *testing.T) {
	env := apitest.New(t)
	p := newPartner(t, env)
	for _, path := range []string{"/v1-leads", "/v1/leads"} {
		t.Run(path, func(t *testing.T) {
			r := env.Do(t, "POST", path, p.key, `{"customer_name":"Ada Lovelace","phone":"+15551234567"}`)
			if r.Status != 200 {
				t.Fatalf("status %d; want 200 (%s)", r.Status, r.Body)
			}
			c := decode[createResp](t, r.Body)
			if c.Status != "new" || c.Estimate != nil {
				t.Errorf("got status %q estimate %v; want new, null", c.Status, c.Estimate)
			}
			a := env.Do(t, "GET", "/v1-lead-get/"+c.LeadID, p.key, "")
			b := env.Do(t, "GET", "/v1/leads/"+c.LeadID, p.key, "")
			if a.Status != 200 || string(a.Body) != string(b.Body) {
				t.Errorf("pilot get %d %s; logical get %d %s; want identical 200s", a.Status, a.Body, b.Status, b.Body)
			}
		})
	}
}

func TestCreateLeadValidation(t *testing.T) {
	env := apitest.New(t)
	p := newPartner(t, env)
	long := strings.Repeat("x", 201)
	tests := []struct {
		name   string
		body   string
		code   string
		fields []string // every field details.fields must name
	}{
		{"unknown properties named", `{"email":"a@b.co","colour":"red","size":1}`, "validation_failed", []string{"colour", "size"}},
		{"no contact field", `{"from_address":"1 Main St"}`, "validation_failed", []string{"customer_name"}},
		{"only blanks", `{"customer_name":"  ","email":""}`, "validation_failed", []string{"customer_name"}},
		{"bad email", `{"email":"not-an-email"}`, "validation_failed", []string{"email"}},
		{"email with display name", `{"email":"Ada <ada@example.com>"}`, "validation_failed", []string{"email"}},
		{"email without dotted domain", `{"email":"ada@localhost"}`, "validation_failed", []string{"email"}},
		{"move_date not a date", `{"email":"a@b.co","move_date":"next week"}`, "validation_failed", []string{"move_date"}},
		{"move_date impossible day", `{"email":"a@b.co","move_date":"2026-02-30"}`, "validation_failed", []string{"move_date"}},
		{"move_date month 13", `{"email":"a@b.co","move_date":"2026-13-01"}`, "validation_failed", []string{"move_date"}},
		{"move_date with time", `{"email":"a@b.co","move_date":"2026-03-01T10:00:00Z"}`, "validation_failed", []string{"move_date"}},
		{"special_items not array", `{"email":"a@b.co","special_items":"piano"}`, "validation_failed", []string{"special_items"}},
		{"special_items non-string", `{"email":"a@b.co","special_items":["piano",3]}`, "validation_failed", []string{"special_items"}},
		{"special_items too many", `{"email":"a@b.co","special_items":[` + strings.Repeat(`"x",`, 50) + `"x"]}`, "validation_failed", []string{"special_items"}},
		{"special_item too long", `{"email":"a@b.co","special_items":["` + long + `"]}`, "validation_failed", []string{"special_items"}},
		{"name differs from customer_name", `{"name":"Ada","customer_name":"Grace"}`, "validation_failed", []string{"name"}},
		{"customer_name not string", `{"customer_name":42}`, "validation_failed", []string{"customer_name"}},
		{"customer_name too long", `{"customer_name":"` + long + `"}`, "validation_failed", []string{"customer_name"}},
		{"phone with letters", `{"phone":"call me"}`, "validation_failed", []string{"phone"}},
		{"several failures at once", `{"email":"x","move_date":"2026-02-31","zzz":1}`, "validation_failed", []string{"email", "move_date", "zzz"}},
		{"not JSON", `name=Ada`, "invalid_json", nil},
		{"array", `[{"email":"a@b.co"}]`, "invalid_json", nil},
		{"null", `null`, "invalid_json", nil},
		{"trailing data", `{"email":"a@b.co"} {}`, "invalid_json", nil},
		{"truncated", `{"email":"a@b.co"`, "invalid_json", nil},
		{"empty", ``, "invalid_json", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := env.Do(t, "POST", "/v1/leads", p.key, tc.body)
			e := wantError(t, r, 422, tc.code)
			fields, _ := e.Error.Details["fields"].(map[string]any)
			for _, f := range tc.fields {
				if _, ok := fields[f]; !ok {
					t.Errorf("details.fields %v does not name %q", fields, f)
				}
			}
		})
	}
	// Nothing was created by any of them.
	list := decode[listResp](t, env.Do(t, "GET", "/v1/leads", p.key, "").Body)
	if len(list.Data) != 0 {
		t.Errorf("invalid requests created %d leads; want 0", len(list.Data))
	}
}

func TestCreateLeadAccepts(t *testing.T) {
	env := apitest.New(t)
	p := newPartner(t, env)
	tests := []struct{ name, body, wantName string }{
		{"name alias", `{"name":"Ada"}`, "Ada"},
		{"name equal to customer_name", `{"name":"Ada","customer_name":"Ada"}`, "Ada"},
		{"email only", `{"email":"ada@example.com"}`, ""},
		{"phone only, national form", `{"phone":"(555) 123-4567"}`, ""},
		{"nulls count as absent", `{"email":"ada@example.com","phone":null,"move_date":null}`, ""},
		{"leap day", `{"email":"ada@example.com","move_date":"2028-02-29"}`, ""},
		{"all fields", `{"customer_name":"Ada","email":"ada@example.com","phone":"+15551234567","from_address":"1 Main St, New York, NY 10001","to_address":"2 Elm St, Boston, MA 02108","home_size":"2 bedroom","move_date":"2027-01-15","special_items":["piano","safe"],"source":"web-form"}`, "Ada"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := p.create(t, tc.body)
			if c.Status != "new" {
				t.Errorf("status %q; want new", c.Status)
			}
			list := decode[listResp](t, env.Do(t, "GET", "/v1/leads?limit=100", p.key, "").Body)
			i := slices.IndexFunc(list.Data, func(s summary) bool { return s.LeadID == c.LeadID })
			if i < 0 {
				t.Fatalf("lead %s not listed", c.LeadID)
			}
			got := ""
			if list.Data[i].CustomerName != nil {
				got = *list.Data[i].CustomerName
			}
			if got != tc.wantName {
				t.Errorf("customer_name %q; want %q", got, tc.wantName)
			}
		})
	}
}

func TestCreateLeadSourceIsLeadSource(t *testing.T) {
	env := apitest.New(t)
	p := newPartner(t, env)
	p.create(t, `{"email":"ada@example.com","source":"voice-agent"}`)
	list := decode[listResp](t, env.Do(t, "GET", "/v1/leads", p.key, "").Body)
	if len(list.Data) != 1 || list.Data[0].LeadSource == nil || *list.Data[0].LeadSource != "voice-agent" {
		t.Fatalf("lead_source = %+v; want voice-agent", list.Data)
	}
}

func TestCreateLeadBodyLimit(t *testing.T) {
	env := apitest.New(t)
	p := newPartner(t, env)
	pad := strings.Repeat(" ", 64<<10)
	r := env.Do(t, "POST", "/v1-leads", p.key, `{"email":"a@b.co"}`+pad)
	wantError(t, r, 413, "payload_too_large")
	// Exactly at the limit is accepted.
	body := `{"email":"a@b.co"}`
	r = env.Do(t, "POST", "/v1-leads", p.key, body+strings.Repeat(" ", 64<<10-len(body)))
	if r.Status != 200 {
		t.Errorf("64 KiB body: status %d; want 200 (%s)", r.Status, r.Body)
	}
}

func TestCreateLeadEstimate(t *testing.T) {
	env := apitest.New(t)
	p := newPartner(t, env)
	full := func(home string) string {
		return fmt.Sprintf(`{"email":"ada@example.com","from_address":"1 Main St, New York, NY 10001","to_address":"9 Oak Ave, Boston, MA 02108","home_size":%q}`, home)
	}
	t.Run("all four fields give an estimate", func(t *testing.T) {
		c := p.create(t, full("3 bed house"))
		if c.Estimate == nil {
			t.Fatal("estimate is null; want one")
		}
		if c.Estimate.Min > c.Estimate.Max || c.Estimate.Min <= 0 || c.Estimate.Currency != "usd" {
			t.Errorf("estimate %+v; want 0 < min <= max, currency usd", *c.Estimate)
		}
	})
	t.Run("deterministic", func(t *testing.T) {
		a, b := p.create(t, full("2 bedroom")), p.create(t, full("2 bedroom"))
		if *a.Estimate != *b.Estimate {
			t.Errorf("same input gave %+v and %+v", *a.Estimate, *b.Estimate)
		}
	})
	t.Run("longer move costs more", func(t *testing.T) {
		near := p.create(t, full("2 bedroom"))
		far := p.create(t, `{"email":"ada@example.com","from_address":"New York, NY 10001","to_address":"Los Angeles, CA 90001","home_size":"2 bedroom"}`)
		if far.Estimate.Min <= near.Estimate.Min {
			t.Errorf("NY→LA min %v <= NY→Boston min %v", far.Estimate.Min, near.Estimate.Min)
		}
	})
	t.Run("unreadable home size still creates the lead", func(t *testing.T) {
		c := p.create(t, full("a castle"))
		if c.Estimate != nil || c.LeadID == "" {
			t.Errorf("got %+v; want a lead with null estimate", c)
		}
	})
	t.Run("no email means no estimate", func(t *testing.T) {
		c := p.create(t, `{"phone":"+15551234567","from_address":"NY 10001","to_address":"MA 02108","home_size":"studio"}`)
		if c.Estimate != nil {
			t.Errorf("estimate %+v; want null", *c.Estimate)
		}
	})
	t.Run("getLead keeps recommended_estimate null", func(t *testing.T) {
		c := p.create(t, full("studio"))
		d := decode[detailResp](t, env.Do(t, "GET", "/v1/leads/"+c.LeadID, p.key, "").Body)
		if d.RecommendedEstimate != nil {
			t.Errorf("recommended_estimate %v; want null", d.RecommendedEstimate)
		}
	})
}
