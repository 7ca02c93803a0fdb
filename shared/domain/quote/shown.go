package quote

import "strconv"

// ShownTag starts the canonical encoding of a quote as shown (Shown); it
// names the encoding's version. ShownTagV1 is that of quotes made before
// they carried their Move (Quote.Move nil), kept so their signatures still
// verify.
const (
	ShownTag   = "moveleads.quote.shown.v2"
	ShownTagV1 = "moveleads.quote.shown.v1"
)

// Shown returns the canonical encoding (see canonical) of exactly the terms
// the quote page shows the customer for q, in this order:
//
//	estimate_type, price_cents, deposit_cents, currency, expires_at, company_name
//
// and, for a binding quote only, whose page also shows the E-SIGN
// disclosure and the two liability options:
//
//	esign_disclosure_version, esign_disclosure_sha256,
//	liability_options_version, liability_options_sha256
//
// where each _sha256 is the lowercase hex SHA-256 of the text as written in
// this package (the disclosure with its "{company}" placeholder; the
// options in their own canonical encoding), so that an edit of either text
// changes the hash even if its version was not bumped. Then, for a quote
// with a Move (tag ShownTag; one without is written as before, tagged
// ShownTagV1), the move (Move.writeShown):
//
//	from_address, to_address, move_date, inventory_lines (count, then
//	room, item, count per line), special_items (count, then each),
//	services (count, then each), full_value_protection_cents ("" when not
//	stated), released_value_cents
//
// The quote's ids,
// CreatedAt and Stage are not shown terms and are left out: two quotes
// with the same terms have the same ShownHash, and acceptance does not
// change it.
func (q Quote) Shown() []byte {
	var c canonical
	q.writeShown(&c)
	return c.bytes()
}

// ShownHash returns the lowercase hex SHA-256 of Shown: the hash of the
// quote as shown, which signature evidence records.
func (q Quote) ShownHash() string {
	var c canonical
	q.writeShown(&c)
	return c.sha256()
}

func (q Quote) writeShown(c *canonical) {
	if q.Move == nil {
		c.start(ShownTagV1)
	} else {
		c.start(ShownTag)
	}
	c.field("estimate_type", string(q.EstimateType))
	c.field("price_cents", strconv.FormatInt(q.PriceCents, 10))
	c.field("deposit_cents", strconv.FormatInt(q.DepositCents, 10))
	c.field("currency", q.Currency)
	c.field("expires_at", formatTime(q.ExpiresAt))
	c.field("company_name", q.CompanyName)
	if q.EstimateType.IsBinding() {
		c.field("esign_disclosure_version", ESignDisclosureVersion)
		c.field("esign_disclosure_sha256", disclosureSHA256())
		c.field("liability_options_version", LiabilityOptionsVersion)
		c.field("liability_options_sha256", liabilityOptionsSHA256())
	}
	if q.Move != nil {
		q.Move.writeShown(c)
	}
}
