package quote

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// ESignDisclosureVersion names the text of ESignDisclosure. Change it with
// every change of the text: evidence records the version the signer saw,
// and a test pins each version to the SHA-256 of its text.
const ESignDisclosureVersion = "esign-2025-01"

// ESignDisclosure is the consumer disclosure of the E-SIGN Act (15 U.S.C.
// 7001(c)) that the quote page shows above the consent checkbox of a
// binding quote, in plain words: what the consent covers, the right to
// paper, how to withdraw, and what is needed to see and keep the records.
// "{company}" is replaced by the quote's company name (DisclosureFor).
const ESignDisclosure = `Agreeing to sign electronically

By ticking the box below, you agree that {company} may give you this estimate, your signed copy of it and the other records of this move electronically, and that your electronic signature counts as your handwritten signature.

Paper copies. You can ask {company} for a paper copy of any of these records at any time, free of charge.

Changing your mind. You can withdraw this consent at any time by contacting {company}. From then on, {company} will give you the records of this move on paper. Withdrawing does not undo a signature you already gave.

What you need. A phone, tablet or computer with an up-to-date web browser, an email address, and a way to save or print a web page or a PDF file. If this changes in a way that stops you seeing or keeping the records, {company} will tell you.`

// DisclosureFor returns ESignDisclosure with company's name filled in: the
// text the page shows.
func DisclosureFor(company string) string {
	return strings.ReplaceAll(ESignDisclosure, "{company}", company)
}

// Liability is the liability option a binding quote's signer chooses for
// loss of or damage to their goods (liability_election).
type Liability string

// The two liability options an interstate mover must offer (49 U.S.C.
// 14706(f), 49 CFR 375.201).
const (
	ReleasedValue       Liability = "released_value"
	FullValueProtection Liability = "full_value_protection"
)

// LiabilityOptionsVersion names the text of LiabilityOptions; change it
// with every change of that text (a test pins it, as for the disclosure).
const LiabilityOptionsVersion = "liability-2025-01"

// LiabilityOption is one liability option as the quote page presents it.
type LiabilityOption struct {
	Election    Liability
	Title       string
	Explanation string
}

// LiabilityOptions are the two options, in the order the page offers them,
// with their plain explanations (after FMCSA's "Your Rights and
// Responsibilities When You Move").
var LiabilityOptions = []LiabilityOption{
	{
		Election: FullValueProtection,
		Title:    "Full value protection",
		Explanation: "If anything is lost or damaged, the mover must repair it, replace it with a similar item, " +
			"or pay you what it costs to repair or replace it today, up to the total value you declare for the shipment. " +
			"The law makes this the standard protection for moves between states, and the mover may charge for it. " +
			"Items worth more than $100 per pound (jewelry, art, antiques) are covered in full only if you list them in writing before the move.",
	},
	{
		Election: ReleasedValue,
		Title:    "Released value",
		Explanation: "Included at no extra cost, but the protection is minimal: the mover pays no more than 60 cents per pound per article. " +
			"For example, if a 10-pound laptop worth $1,000 is lost or destroyed, the mover pays $6.00 (10 pounds × $0.60). " +
			"You must choose this option in writing, by selecting it here.",
	},
}

// Liabilities lists the elections of LiabilityOptions.
func Liabilities() []Liability {
	out := make([]Liability, len(LiabilityOptions))
	for i, o := range LiabilityOptions {
		out[i] = o.Election
	}
	return out
}

// disclosureSHA256 is the lowercase hex SHA-256 of ESignDisclosure, as
// written (with the "{company}" placeholder).
func disclosureSHA256() string {
	sum := sha256.Sum256([]byte(ESignDisclosure))
	return hex.EncodeToString(sum[:])
}

// liabilityOptionsSHA256 is the lowercase hex SHA-256 of LiabilityOptions
// in the canonical encoding (each election, title and explanation, in
// order).
func liabilityOptionsSHA256() string {
	var e canonical
	e.start("moveleads.quote.liability-options.v1")
	for _, o := range LiabilityOptions {
		e.field("election", string(o.Election))
		e.field("title", o.Title)
		e.field("explanation", o.Explanation)
	}
	return e.sha256()
}
