package quote

import (
	"strings"
	"testing"
	"time"
)

// goldenShownNonBinding is testQuote(NonBinding)'s encoding; with its hash
// (checked independently with Python's hashlib) it must never change short
// of a new ShownTag.
const (
	goldenShownNonBinding = "moveleads.quote.shown.v1\n" +
		"estimate_type:11:non_binding\n" +
		"price_cents:6:245000\n" +
		"deposit_cents:5:25000\n" +
		"currency:3:usd\n" +
		"expires_at:27:2025-07-02T15:04:05.123456Z\n" +
		"company_name:14:Ada Movers LLC\n"
	goldenShownNonBindingHash = "08f5b9b5d81bd5f95546172b980739c25f041793a58390b8629fb1488b76c628"
)

func TestShownGolden(t *testing.T) {
	q := testQuote(NonBinding)
	if got := string(q.Shown()); got != goldenShownNonBinding {
		t.Errorf("Shown() =\n%s\nwant\n%s", got, goldenShownNonBinding)
	}
	if got := q.ShownHash(); got != goldenShownNonBindingHash {
		t.Errorf("ShownHash() = %s; want %s", got, goldenShownNonBindingHash)
	}
}

func TestShownBindingAddsDisclosureAndLiability(t *testing.T) {
	q := testQuote(Binding)
	want := strings.Replace(goldenShownNonBinding, "estimate_type:11:non_binding", "estimate_type:7:binding", 1) +
		"esign_disclosure_version:13:esign-2025-01\n" +
		"esign_disclosure_sha256:64:" + disclosureSHA256() + "\n" +
		"liability_options_version:17:liability-2025-01\n" +
		"liability_options_sha256:64:" + liabilityOptionsSHA256() + "\n"
	if got := string(q.Shown()); got != want {
		t.Errorf("Shown() =\n%s\nwant\n%s", got, want)
	}
	nte := testQuote(BindingNotToExceed)
	if !strings.Contains(string(nte.Shown()), "esign_disclosure_version:") {
		t.Error("a binding_not_to_exceed quote's Shown lacks the disclosure")
	}
}

func TestShownHashChangesWithEveryShownTerm(t *testing.T) {
	tests := []struct {
		name string
		edit func(*Quote)
	}{
		{"estimate type", func(q *Quote) { q.EstimateType = BindingNotToExceed }},
		{"price", func(q *Quote) { q.PriceCents++ }},
		{"deposit", func(q *Quote) { q.DepositCents++ }},
		{"no deposit", func(q *Quote) { q.DepositCents = 0 }},
		{"currency", func(q *Quote) { q.Currency = "cad" }},
		{"expiry", func(q *Quote) { q.ExpiresAt = q.ExpiresAt.Add(time.Microsecond) }},
		{"company name", func(q *Quote) { q.CompanyName += "." }},
	}
	base := testQuote(Binding)
	seen := map[string]string{base.ShownHash(): "base"}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := base
			tt.edit(&q)
			h := q.ShownHash()
			if other, dup := seen[h]; dup {
				t.Errorf("ShownHash after changing the %s = %s, as for %s", tt.name, h, other)
			}
			seen[h] = tt.name
		})
	}
}

func TestShownHashIgnoresWhatIsNotShown(t *testing.T) {
	tests := []struct {
		name string
		edit func(*Quote)
	}{
		{"id", func(q *Quote) { q.ID = "q-2" }},
		{"lead id", func(q *Quote) { q.LeadID = "lead-2" }},
		{"share link", func(q *Quote) { q.ShareLinkID = "other" }},
		{"created at", func(q *Quote) { q.CreatedAt = q.CreatedAt.Add(time.Hour) }},
		{"stage", func(q *Quote) { q.Stage = StageSigned }},
		{"expiry zone and nanoseconds", func(q *Quote) {
			q.ExpiresAt = q.ExpiresAt.In(time.FixedZone("X", 3600)).Add(999 * time.Nanosecond)
		}},
	}
	base := testQuote(Binding)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := base
			tt.edit(&q)
			if q.ShownHash() != base.ShownHash() {
				t.Errorf("changing the %s changed ShownHash", tt.name)
			}
		})
	}
}
