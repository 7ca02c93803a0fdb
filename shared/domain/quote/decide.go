package quote

import (
	"fmt"
	"net/netip"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/moveleads/partnerapi/shared/domain/errcode"
	"github.com/moveleads/partnerapi/shared/domain/lead"
)

// MaxUserAgentBytes is how much of a User-Agent header evidence keeps; a
// longer one is cut at a character boundary. Real browsers send well under
// 300 bytes; the bound keeps a forged header from bloating the record.
const MaxUserAgentBytes = 512

// Acceptance is a quote's recorded acceptance. A quote has at most one.
type Acceptance struct {
	QuoteID string
	Mode    Mode
	At      time.Time
	IP      string
	// Email is accepter_email for ModeAccepted, signer_email for ModeSigned.
	Email string
	// Evidence and EvidenceHash are set for ModeSigned only; EvidenceHash
	// is Evidence.Hash() as recorded at signing.
	Evidence     *Evidence
	EvidenceHash string
}

// SameTerms reports whether t agrees to what a already recorded, so that
// accepting again with t is a replay that changes nothing:
//
//   - non-binding: both are ModeAccepted with the same email, ignoring
//     case;
//   - binding: both are ModeSigned with the same signer_name (exactly, as
//     trimmed), the same signer_email (ignoring case), the same liability
//     election and a signature PNG of the same SHA-256 (byte for byte the
//     same image: a re-drawn signature is different terms).
//
// The time, IP address and user agent are not terms: a retry from another
// network is still the same acceptance.
func (a Acceptance) SameTerms(t Terms) bool {
	if a.Mode != t.Mode || !strings.EqualFold(a.Email, t.Email) {
		return false
	}
	if a.Mode == ModeAccepted {
		return true
	}
	e := a.Evidence
	return e != nil && e.SignerName == t.SignerName && e.LiabilityElection == t.LiabilityElection && e.SignatureSHA256 == t.SignatureSHA256
}

// EvidenceInput is what Decide records about the request that accepts,
// besides its body.
type EvidenceInput struct {
	// IP is the address the request came from (the quote page's visitor, or
	// the partner's server for acceptQuote). It must be an IP address; an
	// IPv4-mapped IPv6 address is recorded as IPv4.
	IP string
	// UserAgent is the request's User-Agent header, kept to
	// MaxUserAgentBytes; invalid UTF-8 is replaced with U+FFFD.
	UserAgent string
	// SignatureKeyPrefix is where the storage layer keeps signature images
	// for this quote (for example "signatures/<partner>/<mode>/<quote_id>/"):
	// the image's key is the prefix, its hex SHA-256 and ".png", so the
	// same image always has the same key. Required for a binding quote.
	SignatureKeyPrefix string
}

// Decision is what Decide decided: what to store, and whether anything is.
type Decision struct {
	// Acceptance is the new acceptance, or the prior one on a replay.
	Acceptance Acceptance
	// Quote is the quote with its Stage moved to accepted or signed.
	Quote Quote
	// LeadStatus is the lead's status afterwards (LeadStatusAfterAccept).
	LeadStatus lead.Status
	// Changed is false for a same-terms replay: nothing is to be written,
	// and the answer is the prior acceptance's.
	Changed bool
	// Signature is the PNG to store at Acceptance.Evidence.SignatureKey; nil
	// unless Changed for a binding quote.
	Signature []byte
}

// Decide decides an acceptance of quote q (nil when the lead has none),
// whose recorded acceptance is prior (nil when none), requested by req, for
// a lead in status leadStatus, at now, from the request described by in.
// It checks, in this order, and returns the first that fails:
//
//  1. q is nil: 409 no_quote.
//  2. the lead's status (LeadStatusAfterAccept): 409 lead_closed for a
//     lost, booked or completed lead, no_quote for a new or surveying one.
//  3. with no prior acceptance, a superseded quote or one at or past its
//     expiry: 409 quote_expired. (An acceptance made in time stays good
//     after the expiry, so a replay of it still succeeds.)
//  4. req for q's estimate type (AcceptRequest.Terms): 422
//     validation_failed naming every failing field.
//  5. with a prior acceptance: same terms (Acceptance.SameTerms) is a
//     success that changes nothing (Changed false, the prior acceptance,
//     the quote and the lead status as they are); other terms are 409
//     quote_already_accepted.
//
// Otherwise it returns the new acceptance (Changed true): for a
// non-binding quote ModeAccepted with accepter_email, the time and IP; for
// a binding one ModeSigned with signer_email and the Evidence (the quote's
// ShownHash, the signer, the signature's SHA-256 and key, the liability
// election, the E-SIGN disclosure version and consent, the time, IP and
// user agent) and its Hash. The quote moves to accepted or signed and the
// lead to accepted; nothing is booked.
//
// Conflicts come before validation, so that a request that cannot succeed
// whatever it holds says so first. Inconsistent inputs — prior for another
// quote, an accepted quote or lead without the acceptance, an IP that is
// not an address, a binding quote without a SignatureKeyPrefix — are
// internal errors: they are the caller's bug, not the client's.
func Decide(q *Quote, prior *Acceptance, req AcceptRequest, leadStatus lead.Status, now time.Time, in EvidenceInput) (Decision, error) {
	if q == nil {
		return Decision{}, noQuote()
	}
	next, err := LeadStatusAfterAccept(leadStatus)
	if err != nil {
		return Decision{}, err
	}
	switch {
	case prior != nil && prior.QuoteID != q.ID:
		return Decision{}, internal("prior acceptance is of quote %q, not %q", prior.QuoteID, q.ID)
	case prior == nil && (q.Stage == StageAccepted || q.Stage == StageSigned):
		return Decision{}, internal("quote %q is %s but has no acceptance", q.ID, q.Stage)
	case prior == nil && leadStatus != lead.Quoted:
		return Decision{}, internal("lead is %s but quote %q has no acceptance", leadStatus, q.ID)
	case prior == nil && (q.Stage == StageSuperseded || q.Expired(now)):
		return Decision{}, quoteExpired(*q)
	}

	terms, err := req.Terms(q.EstimateType)
	if err != nil {
		return Decision{}, err
	}
	if prior != nil {
		if !prior.SameTerms(terms) {
			return Decision{}, alreadyAccepted(*prior)
		}
		return Decision{Acceptance: *prior, Quote: *q, LeadStatus: leadStatus}, nil
	}

	ip, err := netip.ParseAddr(strings.TrimSpace(in.IP))
	if err != nil {
		return Decision{}, internal("evidence IP %q: %v", in.IP, err)
	}
	now = storedTime(now)
	a := Acceptance{QuoteID: q.ID, Mode: terms.Mode, At: now, IP: ip.Unmap().String(), Email: terms.Email}
	d := Decision{Quote: *q, LeadStatus: next, Changed: true}
	d.Quote.Stage = StageAccepted
	if terms.Mode == ModeSigned {
		if in.SignatureKeyPrefix == "" {
			return Decision{}, internal("no signature key prefix for binding quote %q", q.ID)
		}
		ev := Evidence{
			QuoteID:           q.ID,
			ShownHash:         q.ShownHash(),
			SignerName:        terms.SignerName,
			SignerEmail:       terms.Email,
			SignatureSHA256:   terms.SignatureSHA256,
			SignatureKey:      in.SignatureKeyPrefix + terms.SignatureSHA256 + ".png",
			LiabilityElection: terms.LiabilityElection,
			ConsentVersion:    ESignDisclosureVersion,
			ConsentChecked:    true,
			At:                now,
			IP:                a.IP,
			UserAgent:         userAgent(in.UserAgent),
		}
		a.Evidence, a.EvidenceHash = &ev, ev.Hash()
		d.Quote.Stage = StageSigned
		d.Signature = terms.Signature
	}
	d.Acceptance = a
	return d, nil
}

// userAgent is ua as evidence keeps it: valid UTF-8, at most
// MaxUserAgentBytes, cut at a character boundary.
func userAgent(ua string) string {
	ua = strings.ToValidUTF8(strings.TrimSpace(ua), "\uFFFD")
	if len(ua) <= MaxUserAgentBytes {
		return ua
	}
	cut := MaxUserAgentBytes
	for cut > 0 && !utf8.RuneStart(ua[cut]) {
		cut--
	}
	return ua[:cut]
}

// internal returns an internal_error whose cause, for logs only, says what
// the caller got wrong.
func internal(format string, args ...any) *errcode.Error {
	return &errcode.Error{
		Code:    errcode.Internal,
		Message: "An unexpected error; nothing was written.",
		Details: map[string]any{},
		Cause:   fmt.Errorf("quote: "+format, args...),
	}
}
