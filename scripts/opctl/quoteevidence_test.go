package main

import (
	"encoding/json"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/domain/lead"
	"github.com/moveleads/partnerapi/shared/domain/quote"
)

// evidenceArgs returns the arguments of quote evidence for q's lead.
func evidenceArgs(q quotedLead) []string {
	return []string{"quote", "evidence", "--partner", q.tenant.PartnerID, "--mode", string(q.tenant.Mode), "--lead", q.leadID}
}

// decodeMap decodes the JSON object s.
func decodeMap(t *testing.T, s string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatalf("%q is not a JSON object: %v", s, err)
	}
	return m
}

// wantQuote is quote evidence's output for q at stage, with acceptance
// (nil: null), as the JSON decodes.
func wantQuote(q quotedLead, stage quote.Stage, acceptance map[string]any) map[string]any {
	m := map[string]any{
		"lead_id": q.leadID, "quote_id": q.quote.ID, "estimate_type": string(q.quote.EstimateType),
		"price_cents": float64(q.quote.PriceCents), "deposit_cents": float64(q.quote.DepositCents), "currency": q.quote.Currency,
		"stage": string(stage), "shown_hash": q.quote.ShownHash(), "acceptance": nil,
	}
	if acceptance != nil {
		m["acceptance"] = acceptance
	}
	return m
}

func TestQuoteEvidence(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	now := time.Now()
	signedAt := now.Add(-time.Hour)

	open := newQuotedLead(t, s, auth.Test, quote.NonBinding, now)
	expired := newQuotedLead(t, s, auth.Test, quote.Binding, now.Add(-15*24*time.Hour))
	accepted := newQuotedLead(t, s, auth.Live, quote.NonBinding, now)
	accepted.acceptWithEmail(t, signedAt)
	signed := newQuotedLead(t, s, auth.Test, quote.BindingNotToExceed, now)
	ev := *signed.sign(t, signedAt, "").Evidence
	tampered := newQuotedLead(t, s, auth.Test, quote.Binding, now)
	forged := strings.Repeat("0", 64)
	tev := *tampered.sign(t, signedAt, forged).Evidence

	at := lead.FormatTime(signedAt)
	evidence := func(e quote.Evidence) map[string]any {
		return map[string]any{
			"quote_id": e.QuoteID, "shown_hash": e.ShownHash, "signer_name": "Grace Brewster Hopper", "signer_email": "grace@example.com",
			"signature_sha256": e.SignatureSHA256, "signature_key": e.SignatureKey, "liability_election": "full_value_protection",
			"consent_version": quote.ESignDisclosureVersion, "consent_checked": true, "at": at, "ip": "203.0.113.7",
			"user_agent": "Mozilla/5.0 (iPhone; CPU iPhone OS 18_0 like Mac OS X)",
		}
	}
	tests := []struct {
		name string
		q    quotedLead
		want map[string]any
	}{
		{"open, not accepted", open, wantQuote(open, quote.StageOpen, nil)},
		{"open past its expiry", expired, wantQuote(expired, quote.StageExpired, nil)},
		{"accepted with an email address", accepted, wantQuote(accepted, quote.StageAccepted, map[string]any{
			"mode": "accepted", "at": at, "ip": "198.51.100.23", "email": "grace@example.com",
			"evidence": nil, "evidence_hash": nil, "evidence_hash_verified": false,
		})},
		{"signed", signed, wantQuote(signed, quote.StageSigned, map[string]any{
			"mode": "signed", "at": at, "ip": "203.0.113.7", "email": "grace@example.com",
			"evidence": evidence(ev), "evidence_hash": ev.Hash(), "evidence_hash_verified": true,
		})},
		{"signed, hash does not match the evidence", tampered, wantQuote(tampered, quote.StageSigned, map[string]any{
			"mode": "signed", "at": at, "ip": "203.0.113.7", "email": "grace@example.com",
			"evidence": evidence(tev), "evidence_hash": forged, "evidence_hash_verified": false,
		})},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := opctl(t, s.Table(), evidenceArgs(tt.q)...)
			ok[quoteEvidence](t, r) // exit 0, no unknown fields
			got := decodeMap(t, r.stdout)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("output\n%s\nwant\n%v", r.stdout, tt.want)
			}
			if a, _ := got["acceptance"].(map[string]any); a != nil {
				want := []string{"at", "email", "evidence", "evidence_hash", "evidence_hash_verified", "ip", "mode"}
				if keys := slices.Sorted(maps.Keys(a)); !slices.Equal(keys, want) {
					t.Errorf("acceptance fields %q; want %q", keys, want)
				}
			}
		})
	}
}

// TestQuoteEvidenceFieldOrder checks that the evidence is printed with its
// fields in the order the evidence hash covers them.
func TestQuoteEvidenceFieldOrder(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	q := newQuotedLead(t, s, auth.Test, quote.Binding, time.Now())
	q.sign(t, time.Now(), "")
	out := opctl(t, s.Table(), evidenceArgs(q)...).stdout
	order := []string{"quote_id", "shown_hash", "signer_name", "signer_email", "signature_sha256", "signature_key",
		"liability_election", "consent_version", "consent_checked", "at", "ip", "user_agent"}
	_, ev, found := strings.Cut(out, `"evidence": {`)
	if !found {
		t.Fatalf("output %s has no evidence object", out)
	}
	last := -1
	for _, f := range order {
		i := strings.Index(ev, `"`+f+`":`)
		if i <= last {
			t.Fatalf("evidence field %q out of order in %s; want %q", f, ev, order)
		}
		last = i
	}
}

func TestQuoteEvidenceFailures(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	q := newQuotedLead(t, s, auth.Test, quote.Binding, time.Now())
	noQuote := newLead(t, s, q.tenant, time.Now())
	p, l := q.tenant.PartnerID, q.leadID
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"unknown lead", []string{"--partner", p, "--mode", "test", "--lead", "no-such-lead"},
			"opctl: lead no-such-lead not found (partner " + p + ", test mode)\n"},
		{"the other mode", []string{"--partner", p, "--mode", "live", "--lead", l},
			"opctl: lead " + l + " not found (partner " + p + ", live mode)\n"},
		{"another partner", []string{"--partner", "ptn_other", "--mode", "test", "--lead", l},
			"opctl: lead " + l + " not found (partner ptn_other, test mode)\n"},
		{"lead without a quote", []string{"--partner", p, "--mode", "test", "--lead", noQuote.ID},
			"opctl: lead " + noQuote.ID + " has no quote (status new): there is nothing to show\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := opctl(t, s.Table(), append([]string{"quote", "evidence"}, tt.args...)...)
			fails(t, r, exitFailure, "")
			if r.stderr != tt.want {
				t.Errorf("stderr %q; want %q", r.stderr, tt.want)
			}
		})
	}
}

func TestQuoteEvidenceUsage(t *testing.T) {
	t.Parallel()
	id := uuid.NewString()
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no partner", []string{"--mode", "test", "--lead", id}, "quote evidence: --partner is required"},
		{"no mode", []string{"--partner", "ptn_x", "--lead", id}, "--mode is required (test or live)"},
		{"bad mode", []string{"--partner", "ptn_x", "--mode", "prod", "--lead", id}, `mode must be test or live, got "prod"`},
		{"no lead", []string{"--partner", "ptn_x", "--mode", "test"}, "quote evidence: --lead is required"},
		{"blank lead", []string{"--partner", "ptn_x", "--mode", "test", "--lead", "  "}, "--lead is required"},
		{"lead with a space", []string{"--partner", "ptn_x", "--mode", "test", "--lead", "a b"}, `--lead "a b" is not an id`},
		{"lead too long", []string{"--partner", "ptn_x", "--mode", "test", "--lead", strings.Repeat("a", maxIDLen+1)}, "--lead is 129 bytes long"},
		{"positional", []string{"--partner", "ptn_x", "--mode", "test", "--lead", id, "now"}, `unexpected argument "now"`},
		{"unknown flag", []string{"--partner", "ptn_x", "--mode", "test", "--quote", id}, "flag provided but not defined: -quote"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := opctl(t, "", append([]string{"quote", "evidence"}, tt.args...)...)
			fails(t, r, exitUsage, tt.want)
			if r.using != "" {
				t.Errorf("a usage error named a table (%q); want nothing read", r.using)
			}
		})
	}
}
