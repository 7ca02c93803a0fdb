package quote

import (
	"strconv"
	"time"
)

// EvidenceTag starts the canonical encoding of signature evidence
// (Evidence.Canonical); it names the encoding's version.
const EvidenceTag = "moveleads.quote.evidence.v1"

// Evidence is the record of a binding quote's electronic signature: what
// was signed, by whom, how, when and from where. Every field is recorded
// and every field is in Hash.
type Evidence struct {
	QuoteID           string
	ShownHash         string // the quote as shown (Quote.ShownHash)
	SignerName        string
	SignerEmail       string
	SignatureSHA256   string // hex SHA-256 of the PNG as sent
	SignatureKey      string // where the PNG is stored (EvidenceInput.SignatureKeyPrefix + SignatureSHA256 + ".png")
	LiabilityElection Liability
	ConsentVersion    string // the E-SIGN disclosure shown (ESignDisclosureVersion)
	ConsentChecked    bool   // the signer ticked the consent box (always true in evidence Decide makes)
	At                time.Time
	IP                string
	UserAgent         string
}

// Canonical returns the canonical encoding (see canonical) of e, tagged
// EvidenceTag, with its fields in this order:
//
//	quote_id, shown_hash, signer_name, signer_email, signature_sha256,
//	signature_key, liability_election, consent_version, consent_checked,
//	at, ip, user_agent
//
// At is written in lead.TimeLayout (UTC, microseconds), the precision it
// is stored at, so a record read back from storage encodes the same.
func (e Evidence) Canonical() []byte {
	var c canonical
	e.write(&c)
	return c.bytes()
}

// Hash returns the lowercase hex SHA-256 of Canonical: the evidence hash.
// The same evidence always gives the same hash, and a change to any field
// (below a microsecond for At) gives another.
func (e Evidence) Hash() string {
	var c canonical
	e.write(&c)
	return c.sha256()
}

func (e Evidence) write(c *canonical) {
	c.start(EvidenceTag)
	c.field("quote_id", e.QuoteID)
	c.field("shown_hash", e.ShownHash)
	c.field("signer_name", e.SignerName)
	c.field("signer_email", e.SignerEmail)
	c.field("signature_sha256", e.SignatureSHA256)
	c.field("signature_key", e.SignatureKey)
	c.field("liability_election", string(e.LiabilityElection))
	c.field("consent_version", e.ConsentVersion)
	c.field("consent_checked", strconv.FormatBool(e.ConsentChecked))
	c.field("at", formatTime(e.At))
	c.field("ip", e.IP)
	c.field("user_agent", e.UserAgent)
}
