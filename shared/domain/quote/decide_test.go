package quote

import (
	"bytes"
	"image/color"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/moveleads/partnerapi/shared/domain/errcode"
	"github.com/moveleads/partnerapi/shared/domain/lead"
)

var evIn = EvidenceInput{
	IP:                 "203.0.113.7",
	UserAgent:          "Mozilla/5.0 (iPhone)",
	SignatureKeyPrefix: "signatures/p-1/live/q-1/",
}

// parseAccept parses fields as an Accept body, failing t on error.
func parseAccept(t *testing.T, fields map[string]any) AcceptRequest {
	t.Helper()
	r, err := parseAcceptBody(acceptBody(t, fields))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// decided runs Decide, which must succeed.
func decided(t *testing.T, q *Quote, prior *Acceptance, r AcceptRequest, status lead.Status, at time.Time) Decision {
	t.Helper()
	d, err := Decide(q, prior, r, status, at, evIn)
	if err != nil {
		t.Fatalf("Decide error %v", err)
	}
	return d
}

func TestDecideNonBinding(t *testing.T) {
	q := testQuote(NonBinding)
	at := now.Add(time.Hour + 999*time.Nanosecond)
	d := decided(t, &q, nil, parseAccept(t, map[string]any{"accepter_email": "ada@example.com"}), lead.Quoted, at)
	want := Acceptance{QuoteID: "q-1", Mode: ModeAccepted, At: storedTime(at), IP: "203.0.113.7", Email: "ada@example.com"}
	if d.Acceptance.QuoteID != want.QuoteID || d.Acceptance.Mode != want.Mode || !d.Acceptance.At.Equal(want.At) || d.Acceptance.At.Nanosecond()%1000 != 0 ||
		d.Acceptance.IP != want.IP || d.Acceptance.Email != want.Email || d.Acceptance.Evidence != nil || d.Acceptance.EvidenceHash != "" {
		t.Errorf("Acceptance = %+v; want %+v", d.Acceptance, want)
	}
	if !d.Changed || d.LeadStatus != lead.Accepted || d.Quote.Stage != StageAccepted || d.Signature != nil {
		t.Errorf("Decision = changed %v, lead %s, stage %s, %d signature bytes; want true, accepted, accepted, none",
			d.Changed, d.LeadStatus, d.Quote.Stage, len(d.Signature))
	}
	if q.Stage != StageOpen {
		t.Errorf("Decide changed the caller's quote to %s", q.Stage)
	}
}

func TestDecideBinding(t *testing.T) {
	q := testQuote(Binding)
	sig := validSignature(t)
	d := decided(t, &q, nil, parseAccept(t, bindingFields(t)), lead.Quoted, now)
	ev := d.Acceptance.Evidence
	if ev == nil {
		t.Fatal("no evidence for a binding acceptance")
	}
	sum := signatureSHA256(sig)
	want := Evidence{
		QuoteID: "q-1", ShownHash: q.ShownHash(), SignerName: "Ada Lovelace", SignerEmail: "ada@example.com",
		SignatureSHA256: sum, SignatureKey: "signatures/p-1/live/q-1/" + sum + ".png",
		LiabilityElection: FullValueProtection, ConsentVersion: ESignDisclosureVersion, ConsentChecked: true,
		At: storedTime(now), IP: "203.0.113.7", UserAgent: "Mozilla/5.0 (iPhone)",
	}
	if *ev != want {
		t.Errorf("Evidence = %+v;\nwant %+v", *ev, want)
	}
	if d.Acceptance.EvidenceHash != want.Hash() {
		t.Errorf("EvidenceHash = %s; want %s", d.Acceptance.EvidenceHash, want.Hash())
	}
	if d.Acceptance.Mode != ModeSigned || d.Acceptance.Email != "ada@example.com" || !d.Changed ||
		d.LeadStatus != lead.Accepted || d.Quote.Stage != StageSigned || !bytes.Equal(d.Signature, sig) {
		t.Errorf("Decision = %+v; want signed by ada@example.com, changed, lead accepted, quote signed, the PNG to store", d)
	}
}

func TestDecideConflicts(t *testing.T) {
	open := testQuote(Binding)
	expiredAt := open.ExpiresAt
	superseded := open
	superseded.Stage = StageSuperseded
	signed := decided(t, &open, nil, parseAccept(t, bindingFields(t)), lead.Quoted, now).Acceptance

	other := func(edit func(map[string]any)) AcceptRequest {
		m := bindingFields(t)
		edit(m)
		return parseAccept(t, m)
	}
	same := parseAccept(t, bindingFields(t))
	nb := testQuote(NonBinding)
	accepted := decided(t, &nb, nil, parseAccept(t, map[string]any{"accepter_email": "ada@example.com"}), lead.Quoted, now).Acceptance

	tests := []struct {
		name   string
		q      *Quote
		prior  *Acceptance
		req    AcceptRequest
		status lead.Status
		at     time.Time
		code   errcode.Code
		detail map[string]any
	}{
		{"no quote", nil, nil, same, lead.Quoted, now, errcode.NoQuote, nil},
		{"no quote, new lead", &open, nil, same, lead.New, now, errcode.NoQuote, nil},
		{"no quote, surveying lead", &open, nil, same, lead.Surveying, now, errcode.NoQuote, nil},
		{"lead lost", &open, nil, same, lead.Lost, now, errcode.LeadClosed, map[string]any{"lead_status": "lost"}},
		{"lead booked", &open, nil, same, lead.Booked, now, errcode.LeadClosed, map[string]any{"lead_status": "booked"}},
		{"lead completed", &open, nil, same, lead.Completed, now, errcode.LeadClosed, map[string]any{"lead_status": "completed"}},
		{"lead booked, replay of the same terms", &open, &signed, same, lead.Booked, now, errcode.LeadClosed, nil},
		{"lead closed comes before validation", &open, nil, AcceptRequest{}, lead.Lost, now, errcode.LeadClosed, nil},
		{"expired, at the instant", &open, nil, same, lead.Quoted, expiredAt, errcode.QuoteExpired, map[string]any{"stage": "expired", "expires_at": "2025-07-02T15:04:05Z"}},
		{"expired, later", &open, nil, same, lead.Quoted, expiredAt.Add(48 * time.Hour), errcode.QuoteExpired, nil},
		{"expired comes before validation", &open, nil, AcceptRequest{}, lead.Quoted, expiredAt, errcode.QuoteExpired, nil},
		{"superseded", &superseded, nil, same, lead.Quoted, now, errcode.QuoteExpired, map[string]any{"stage": "superseded"}},
		{"signed, another signer name", &open, &signed, other(func(m map[string]any) { m["signer_name"] = "Bob Lovelace" }), lead.Accepted, now, errcode.QuoteAlreadyAccepted, map[string]any{"stage": "signed"}},
		{"signed, another signer email", &open, &signed, other(func(m map[string]any) { m["signer_email"] = "bob@example.com" }), lead.Accepted, now, errcode.QuoteAlreadyAccepted, nil},
		{"signed, another liability", &open, &signed, other(func(m map[string]any) { m["liability_election"] = "released_value" }), lead.Accepted, now, errcode.QuoteAlreadyAccepted, nil},
		{"signed, another signature", &open, &signed, other(func(m map[string]any) {
			m["signature_image_b64"] = b64(signaturePNG(t, 301, 100, color.Transparent, true))
		}), lead.DepositPending, now, errcode.QuoteAlreadyAccepted, nil},
		{"signed, other terms after expiry", &open, &signed, other(func(m map[string]any) { m["signer_name"] = "Bob" }), lead.Accepted, expiredAt.Add(time.Hour), errcode.QuoteAlreadyAccepted, nil},
		{"accepted, another email", &nb, &accepted, parseAccept(t, map[string]any{"accepter_email": "bob@example.com"}), lead.Accepted, now, errcode.QuoteAlreadyAccepted, map[string]any{"stage": "accepted"}},
		{"missing fields", &open, nil, AcceptRequest{}, lead.Quoted, now, errcode.ValidationFailed, nil},
		{"missing fields on a replay", &open, &signed, AcceptRequest{}, lead.Accepted, now, errcode.ValidationFailed, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := Decide(tt.q, tt.prior, tt.req, tt.status, tt.at, evIn)
			e := codeOf(t, err)
			if e.Code != tt.code {
				t.Fatalf("Decide code %q (%s); want %q", e.Code, e.Message, tt.code)
			}
			if d.Changed || d.Acceptance.Mode != "" {
				t.Errorf("Decide returned %+v with an error; want the zero Decision", d)
			}
			if tt.code != errcode.ValidationFailed && errcode.Status(tt.code) != 409 {
				t.Errorf("%s answers %d; want 409", tt.code, errcode.Status(tt.code))
			}
			for k, v := range tt.detail {
				if e.Details[k] != v {
					t.Errorf("details.%s = %v; want %v", k, e.Details[k], v)
				}
			}
			if e.Cause != nil {
				t.Errorf("a client error carries a cause: %v", e.Cause)
			}
		})
	}
}

func TestDecideSameTermsChangesNothing(t *testing.T) {
	t.Run("binding", func(t *testing.T) {
		q := testQuote(Binding)
		first := decided(t, &q, nil, parseAccept(t, bindingFields(t)), lead.Quoted, now)
		signedQuote := first.Quote
		m := bindingFields(t)
		m["signer_email"] = "ADA@Example.com"
		m["signer_name"] = "  Ada Lovelace "
		for _, status := range []lead.Status{lead.Accepted, lead.DepositPending} {
			for _, at := range []time.Time{now.Add(time.Minute), q.ExpiresAt.Add(time.Hour)} {
				other := evIn
				other.IP, other.UserAgent = "198.51.100.1", "curl/8"
				d, err := Decide(&signedQuote, &first.Acceptance, parseAccept(t, m), status, at, other)
				if err != nil {
					t.Fatalf("replay in %s at %v: %v", status, at, err)
				}
				if d.Changed || d.LeadStatus != status || d.Quote != signedQuote || d.Signature != nil ||
					d.Acceptance.EvidenceHash != first.Acceptance.EvidenceHash || d.Acceptance.Evidence != first.Acceptance.Evidence {
					t.Errorf("replay in %s at %v = %+v; want the prior acceptance, unchanged", status, at, d)
				}
			}
		}
	})
	t.Run("non-binding", func(t *testing.T) {
		q := testQuote(NonBinding)
		first := decided(t, &q, nil, parseAccept(t, map[string]any{"accepter_email": "ada@example.com"}), lead.Quoted, now)
		d := decided(t, &first.Quote, &first.Acceptance, parseAccept(t, map[string]any{"accepter_email": "Ada@EXAMPLE.com"}), lead.Accepted, now.Add(time.Hour))
		if d.Changed || d.Acceptance != first.Acceptance || d.LeadStatus != lead.Accepted {
			t.Errorf("replay = %+v; want the prior acceptance, unchanged", d)
		}
	})
}

func TestSameTerms(t *testing.T) {
	sig := validSignature(t)
	signed := Acceptance{Mode: ModeSigned, Email: "ada@example.com", Evidence: &Evidence{
		SignerName: "Ada", SignerEmail: "ada@example.com", LiabilityElection: ReleasedValue, SignatureSHA256: signatureSHA256(sig),
	}}
	terms := Terms{Mode: ModeSigned, Email: "ada@example.com", SignerName: "Ada", LiabilityElection: ReleasedValue, SignatureSHA256: signatureSHA256(sig)}
	tests := []struct {
		name string
		a    Acceptance
		t    func(Terms) Terms
		want bool
	}{
		{"same", signed, func(t Terms) Terms { return t }, true},
		{"email case", signed, func(t Terms) Terms { t.Email = "ADA@example.com"; return t }, true},
		{"name case", signed, func(t Terms) Terms { t.SignerName = "ADA"; return t }, false},
		{"email", signed, func(t Terms) Terms { t.Email = "bob@example.com"; return t }, false},
		{"liability", signed, func(t Terms) Terms { t.LiabilityElection = FullValueProtection; return t }, false},
		{"signature", signed, func(t Terms) Terms { t.SignatureSHA256 = signatureSHA256([]byte("x")); return t }, false},
		{"mode", signed, func(t Terms) Terms { t.Mode = ModeAccepted; return t }, false},
		{"signed without evidence", Acceptance{Mode: ModeSigned, Email: "ada@example.com"}, func(t Terms) Terms { return t }, false},
		{"accepted, same email", Acceptance{Mode: ModeAccepted, Email: "ada@example.com"}, func(Terms) Terms { return Terms{Mode: ModeAccepted, Email: "ada@example.com"} }, true},
		{"accepted, other email", Acceptance{Mode: ModeAccepted, Email: "ada@example.com"}, func(Terms) Terms { return Terms{Mode: ModeAccepted, Email: "ada@example.org"} }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.a.SameTerms(tt.t(terms)); got != tt.want {
				t.Errorf("SameTerms = %v; want %v", got, tt.want)
			}
		})
	}
}

func TestDecideValidationNamesEveryField(t *testing.T) {
	q := testQuote(Binding)
	r := parseAccept(t, map[string]any{"signer_email": "nope", "esign_consent_checked": false, "colour": "red"})
	_, err := Decide(&q, nil, r, lead.Quoted, now, evIn)
	got := fieldNames(t, err)
	want := []string{"colour", "esign_consent_checked", "liability_election", "signature_image_b64", "signer_email", "signer_name"}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("fields %v; want %v", got, want)
	}
}

func TestDecideInternalErrors(t *testing.T) {
	q := testQuote(Binding)
	signed := q
	signed.Stage = StageSigned
	prior := decided(t, &q, nil, parseAccept(t, bindingFields(t)), lead.Quoted, now).Acceptance
	elsewhere := prior
	elsewhere.QuoteID = "q-other"
	noPrefix := evIn
	noPrefix.SignatureKeyPrefix = ""
	tests := []struct {
		name   string
		q      *Quote
		prior  *Acceptance
		in     EvidenceInput
		status lead.Status
	}{
		{"prior of another quote", &q, &elsewhere, evIn, lead.Accepted},
		{"signed quote without its acceptance", &signed, nil, evIn, lead.Accepted},
		{"accepted lead without the acceptance", &q, nil, evIn, lead.Accepted},
		{"deposit-pending lead without the acceptance", &q, nil, evIn, lead.DepositPending},
		{"no IP", &q, nil, EvidenceInput{SignatureKeyPrefix: "p/"}, lead.Quoted},
		{"IP not an address", &q, nil, EvidenceInput{IP: "example.com", SignatureKeyPrefix: "p/"}, lead.Quoted},
		{"binding without a key prefix", &q, nil, noPrefix, lead.Quoted},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Decide(tt.q, tt.prior, parseAccept(t, bindingFields(t)), tt.status, now, tt.in)
			e := codeOf(t, err)
			if e.Code != errcode.Internal || e.Cause == nil || strings.Contains(e.Message, "quote:") {
				t.Errorf("error %+v; want internal_error with a cause kept from the message", e)
			}
		})
	}
}

func TestDecideRecordsRequestFacts(t *testing.T) {
	q := testQuote(Binding)
	long := strings.Repeat("a", MaxUserAgentBytes-1) + "é" + "tail"
	tests := []struct {
		name, ip, ua, wantIP, wantUA string
	}{
		{"IPv4-mapped IPv6 recorded as IPv4", "::ffff:203.0.113.7", "ua", "203.0.113.7", "ua"},
		{"IPv6 in canonical form", "2001:DB8:0:0::1", "ua", "2001:db8::1", "ua"},
		{"white space trimmed", " 203.0.113.7 ", " ua ", "203.0.113.7", "ua"},
		{"long user agent cut at a character boundary", "203.0.113.7", long, "203.0.113.7", strings.Repeat("a", MaxUserAgentBytes-1)},
		{"invalid UTF-8 replaced", "203.0.113.7", "ua\xff", "203.0.113.7", "ua\uFFFD"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := EvidenceInput{IP: tt.ip, UserAgent: tt.ua, SignatureKeyPrefix: "p/"}
			d, err := Decide(&q, nil, parseAccept(t, bindingFields(t)), lead.Quoted, now, in)
			if err != nil {
				t.Fatal(err)
			}
			ev := d.Acceptance.Evidence
			if d.Acceptance.IP != tt.wantIP || ev.IP != tt.wantIP || ev.UserAgent != tt.wantUA {
				t.Errorf("IP %q / %q, user agent %q; want %q, %q", d.Acceptance.IP, ev.IP, ev.UserAgent, tt.wantIP, tt.wantUA)
			}
			if len(ev.UserAgent) > MaxUserAgentBytes || !utf8.ValidString(ev.UserAgent) {
				t.Errorf("user agent of %d bytes, valid UTF-8 %v", len(ev.UserAgent), utf8.ValidString(ev.UserAgent))
			}
		})
	}
}
