package quote

import (
	"testing"

	"github.com/moveleads/partnerapi/shared/domain/errcode"
	"github.com/moveleads/partnerapi/shared/domain/lead"
)

func TestLeadStatusAfter(t *testing.T) {
	tests := []struct {
		from        lead.Status
		afterQuote  lead.Status
		quoteCode   errcode.Code
		afterAccept lead.Status
		acceptCode  errcode.Code
	}{
		{lead.New, lead.Quoted, "", "", errcode.NoQuote},
		{lead.Surveying, lead.Quoted, "", "", errcode.NoQuote},
		{lead.Quoted, lead.Quoted, "", lead.Accepted, ""},
		{lead.Accepted, "", errcode.QuoteAlreadyAccepted, lead.Accepted, ""},
		{lead.DepositPending, "", errcode.QuoteAlreadyAccepted, lead.DepositPending, ""},
		{lead.Booked, "", errcode.LeadClosed, "", errcode.LeadClosed},
		{lead.Completed, "", errcode.LeadClosed, "", errcode.LeadClosed},
		{lead.Lost, "", errcode.LeadClosed, "", errcode.LeadClosed},
		{lead.Unknown, "", errcode.Internal, "", errcode.Internal},
		{"archived", "", errcode.Internal, "", errcode.Internal},
		{"", "", errcode.Internal, "", errcode.Internal},
	}
	covered := map[lead.Status]bool{}
	for _, tt := range tests {
		covered[tt.from] = true
		t.Run(string(tt.from), func(t *testing.T) {
			check := func(name string, got lead.Status, err error, want lead.Status, code errcode.Code) {
				t.Helper()
				if code == "" {
					if err != nil || got != want {
						t.Errorf("%s(%q) = %q, %v; want %q", name, tt.from, got, err, want)
					}
					return
				}
				e := codeOf(t, err)
				if e.Code != code || got != "" {
					t.Errorf("%s(%q) = %q, %s; want %s", name, tt.from, got, e.Code, code)
				}
				if code != errcode.Internal && errcode.Status(code) != 409 {
					t.Errorf("%s answers %d; want 409", code, errcode.Status(code))
				}
				if code == errcode.Internal && (e.Cause == nil || e.Message == "" || len(e.Details) != 0) {
					t.Errorf("internal error %+v; want a cause for logs and a generic message", e)
				}
				if code == errcode.LeadClosed && e.Details["lead_status"] != string(tt.from) {
					t.Errorf("details.lead_status = %v; want %q", e.Details["lead_status"], tt.from)
				}
			}
			s, err := LeadStatusAfterQuote(tt.from)
			check("LeadStatusAfterQuote", s, err, tt.afterQuote, tt.quoteCode)
			s, err = LeadStatusAfterAccept(tt.from)
			check("LeadStatusAfterAccept", s, err, tt.afterAccept, tt.acceptCode)
			if s == lead.Booked {
				t.Errorf("LeadStatusAfterAccept(%q) books the lead", tt.from)
			}
		})
	}
	for _, s := range lead.Statuses {
		if !covered[s] {
			t.Errorf("lead status %q has no row", s)
		}
	}
}
