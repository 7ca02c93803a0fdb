package dynamo

import (
	"strings"
	"testing"
	"time"

	"github.com/moveleads/partnerapi/shared/app/pipeline/idempotency"
	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/domain/linktoken"
	"github.com/moveleads/partnerapi/shared/domain/webhook"
	"github.com/moveleads/partnerapi/shared/spec/table"
)

// stringLike reports whether s matches an IAM StringLike pattern: '*'
// matches any run of characters (none included), '?' exactly one, and
// every other character itself ('#' and '/' included; case matters).
func stringLike(pattern, s string) bool {
	// match[j]: pattern[:i] matches s[:j], row by row.
	match := make([]bool, len(s)+1)
	match[0] = true
	for i := 0; i < len(pattern); i++ {
		next := make([]bool, len(s)+1)
		switch c := pattern[i]; c {
		case '*':
			next[0] = match[0]
			for j := 1; j <= len(s); j++ {
				next[j] = match[j] || next[j-1]
			}
		default:
			for j := 1; j <= len(s); j++ {
				next[j] = match[j-1] && (c == '?' || s[j-1] == c)
			}
		}
		match = next
	}
	return match[len(s)]
}

func TestStringLike(t *testing.T) {
	tests := []struct {
		pattern, s string
		want       bool
	}{
		{"", "", true},
		{"", "a", false},
		{"*", "", true},
		{"*", "a#b/c", true},
		{"a*", "a", true},
		{"a*", "ba", false},
		{"a?c", "abc", true},
		{"a?c", "ac", false},
		{"a?c", "abbc", false},
		{"A#*#B", "A#x#y#B", true},
		{"A#*#B", "A#B", false},
		{"A#*#B", "A##B", true},
		{"A#*#B", "A#x#Bz", false},
		{"abc", "ABC", false},
		{"*x*", "aaxaa", true},
		{"*x*", "aaaa", false},
	}
	for _, tt := range tests {
		if got := stringLike(tt.pattern, tt.s); got != tt.want {
			t.Errorf("stringLike(%q, %q) = %v; want %v", tt.pattern, tt.s, got, tt.want)
		}
	}
}

// TestKeysMatchGrantPatterns: the partition keys that functions write fall
// inside the leading-key patterns their grants use, and the records no
// such grant may write fall outside every one of them.
func TestKeysMatchGrantPatterns(t *testing.T) {
	tenants := []auth.Tenant{
		{PartnerID: "ptn_0123456789abcdef", Mode: auth.Test},
		{PartnerID: "ptn_0123456789abcdef", Mode: auth.Live},
		{PartnerID: "p", Mode: auth.Live},
	}
	digest := auth.Digest("mk_live_" + strings.Repeat("ab", 32))
	type key struct {
		name, pk string
	}
	var leads, idems, auths, surveys, captures, views, refs, events, hooks, deposits, quotePages, stripes, audits, others []key
	for _, tn := range tenants {
		pk, _ := leadKey(tn, "lead_0123456789abcdef")
		leads = append(leads, key{"lead of " + string(tn.Mode), pk})
		pk, _ = quoteKey(tn, "lead_0123456789abcdef", "7d3c1f0e-5b2a-4c8d-9e6f-1a2b3c4d5e6f")
		leads = append(leads, key{"quote of " + string(tn.Mode), pk})
		for _, id := range []string{"dep_0123456789abcdef", "d"} {
			pk, _ = depositKey(tn, id)
			deposits = append(deposits, key{"deposit of " + string(tn.Mode), pk})
		}
		pk, _ = paymentIntentKey(tn.Mode, "pi_3MtwBwLkdIwHu7ix28a3tqPa")
		stripes = append(stripes, key{"PaymentIntent record of " + string(tn.Mode), pk})
		for _, id := range []string{"0b9f1f4e-7c5a-4a43-9d55-0a8d2a0c3e11", "srv_1"} {
			pk, _ = surveyKey(tn, id)
			surveys = append(surveys, key{"survey of " + string(tn.Mode), pk})
			pk, _ = clipKey(tn, id, "clip_1")
			surveys = append(surveys, key{"clip of " + string(tn.Mode), pk})
			pk, _ = frameKey(tn, id, "clip_1", 7)
			surveys = append(surveys, key{"frame of " + string(tn.Mode), pk})
			pk, _ = grantKey(tn, id, "grant_1")
			surveys = append(surveys, key{"video grant of " + string(tn.Mode), pk})
			pk, _ = openKey(tn, id, time.Unix(1_800_000_000, 5), "grant_1", "req-1")
			surveys = append(surveys, key{"video open of " + string(tn.Mode), pk})
			pk, _ = surveyRefKey(id)
			refs = append(refs, key{"survey id record", pk})
		}
		for _, op := range []string{"createLead", "getSurveyLink", "x"} {
			for _, k := range []string{"k", "LEAD#x", strings.Repeat("é", 100)} {
				pk, _ := idempotencyKey(idempotency.Scope{PartnerID: tn.PartnerID, Mode: string(tn.Mode), Operation: op, Key: k})
				idems = append(idems, key{"idempotency record of " + op, pk})
			}
		}
		pk, _ = eventKey(tn, "evt_srv_1_survey.completed")
		events = append(events, key{"event of " + string(tn.Mode), pk})
		pk, _ = leadListIndex(tn, "2026-01-01T00:00:00.000000Z", "lead_1")
		others = append(others, key{"lead listing index key", pk})
		pk, _ = partnerKey(tn.PartnerID)
		others = append(others, key{"partner profile", pk})
		pk, _ = auditKey(tn.PartnerID, "2026-01-01T00:00:00.000000Z", "0123456789abcdef")
		audits = append(audits, key{"audit entry", pk})
		pk, _ = partnerKeysIndex(tn.PartnerID, "2026-01-01T00:00:00.000000Z", "key_1")
		others = append(others, key{"key listing index key", pk})
	}
	ev := webhook.Event{ID: "evt_1", At: time.Unix(1_800_000_000, 0)}
	for _, id := range []string{"we_0123456789abcdef", "x"} {
		pk, _ := endpointKey(id)
		hooks = append(hooks, key{"webhook endpoint", pk})
		pk, _ = deliveryKey(id, ev)
		hooks = append(hooks, key{"webhook delivery", pk})
	}
	pk, _ := apiKeyKey(digest)
	auths = append(auths, key{"key authentication record", pk})
	pk, _ = apiKeyIDKey("key_0123456789abcdef")
	others = append(others, key{"key id record", pk})
	for _, tok := range []string{strings.Repeat("A", 43), "abc"} {
		pk, _ = captureTokenKey(linktoken.Hash(tok))
		captures = append(captures, key{"capture token record", pk})
		pk, _ = viewTokenKey(linktoken.Hash(tok))
		views = append(views, key{"video link record", pk})
		pk, _ = quoteTokenKey(linktoken.Hash(tok))
		quotePages = append(quotePages, key{"quote page token record", pk})
	}
	for _, id := range []string{"evt_1NG8Du2eZvKYlo2CUI79vXWy", "x"} {
		pk, _ = stripeEventKey(id)
		stripes = append(stripes, key{"Stripe event dedupe record", pk})
	}

	groups := []struct {
		pattern, name string
		keys          []key
	}{
		{table.LeadKeys, "LeadKeys", leads},
		{table.IdempotencyKeys, "IdempotencyKeys", idems},
		{table.AuthKeys, "AuthKeys", auths},
		{table.SurveyKeys, "SurveyKeys", surveys},
		{table.CaptureTokenKeys, "CaptureTokenKeys", captures},
		{table.ViewTokenKeys, "ViewTokenKeys", views},
		{table.SurveyRefKeys, "SurveyRefKeys", refs},
		{table.EventKeys, "EventKeys", events},
		{table.WebhookKeys, "WebhookKeys", hooks},
		{table.DepositKeys, "DepositKeys", deposits},
		{table.QuoteTokenKeys, "QuoteTokenKeys", quotePages},
		{table.StripeKeys, "StripeKeys", stripes},
		{table.AuditKeys, "AuditKeys", audits},
	}
	for _, g := range groups {
		for _, other := range groups {
			for _, k := range other.keys {
				want := other.name == g.name
				if got := stringLike(g.pattern, k.pk); got != want {
					t.Errorf("%s %q matches %s %q: %v; want %v", k.name, k.pk, g.name, g.pattern, got, want)
				}
			}
		}
		for _, k := range others {
			if stringLike(g.pattern, k.pk) {
				t.Errorf("%s %q matches %s %q; want no grant pattern to cover it", k.name, k.pk, g.name, g.pattern)
			}
		}
	}
}

// TestSurveyPartitionPrefixes: every Query of a survey's partition
// (clips, frames, video grants, video opens) reads only its own items: no
// other item's sort key begins with its prefix.
func TestSurveyPartitionPrefixes(t *testing.T) {
	tn := auth.Tenant{PartnerID: "ptn_0123456789abcdef", Mode: auth.Test}
	const id = "srv_1"
	_, surveySK := surveyKey(tn, id)
	_, clipSK := clipKey(tn, id, "clip_1")
	_, frameSK := frameKey(tn, id, "clip_1", 7)
	_, grantSK := grantKey(tn, id, "grant_1")
	_, openSK := openKey(tn, id, time.Unix(1_800_000_000, 5), "grant_1", "req-1")
	items := []struct{ name, sk, prefix string }{
		{"survey", surveySK, ""},
		{"clip", clipSK, clipSKPrefix},
		{"frame", frameSK, frameSKPrefix},
		{"video grant", grantSK, grantSKPrefix},
		{"video open", openSK, openSKPrefix},
	}
	for _, q := range items {
		if q.prefix == "" {
			continue
		}
		for _, it := range items {
			if got, want := strings.HasPrefix(it.sk, q.prefix), it.name == q.name; got != want {
				t.Errorf("%s sort key %q begins with the %s query's %q: %v; want %v", it.name, it.sk, q.name, q.prefix, got, want)
			}
		}
	}
	if frameSK != "FRAME#clip_1#0007" {
		t.Errorf("frame sort key = %q; want FRAME#clip_1#0007", frameSK)
	}
}

// TestLeadPartitionSortKeys: a lead's quotes share its partition under
// their own sort keys, never the lead item's.
func TestLeadPartitionSortKeys(t *testing.T) {
	tn := auth.Tenant{PartnerID: "ptn_0123456789abcdef", Mode: auth.Test}
	lpk, lsk := leadKey(tn, "lead_1")
	qpk, qsk := quoteKey(tn, "lead_1", "q_1")
	if qpk != lpk || qsk == lsk || !strings.HasPrefix(qsk, quoteSKPrefix) || strings.HasPrefix(lsk, quoteSKPrefix) {
		t.Errorf("quote key (%q, %q), lead key (%q, %q); want the lead's partition and a sort key of its own beginning %s", qpk, qsk, lpk, lsk, quoteSKPrefix)
	}
	if pk, sk := depositKey(tn, "dep_1"); pk != "PARTNER#ptn_0123456789abcdef#MODE#test#DEPOSIT#dep_1" || sk != "DEPOSIT" {
		t.Errorf("deposit key = (%q, %q); want (PARTNER#ptn_0123456789abcdef#MODE#test#DEPOSIT#dep_1, DEPOSIT)", pk, sk)
	}
	if pk, _ := paymentIntentKey(auth.Live, "pi_1"); pk != "STRIPE#PI#live#pi_1" {
		t.Errorf("PaymentIntent key = %q; want STRIPE#PI#live#pi_1", pk)
	}
	if pk, _ := stripeEventKey("evt_1"); pk != "STRIPE#EVT#evt_1" {
		t.Errorf("Stripe event key = %q; want STRIPE#EVT#evt_1", pk)
	}
}
