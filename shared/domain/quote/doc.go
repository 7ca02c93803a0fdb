// Package quote is the domain of a lead's quote and its acceptance: the
// quote create request, the terms the quote page shows and their hash, the
// Accept request, the decision to accept (or sign), the signature
// evidence, and the lead statuses they lead to. It does no I/O and imports
// no AWS, Stripe or HTTP package; the API edge, the quote page and the
// storage layer serve and store what it decides.
//
// [ParseCreate] validates the create body and [Build] makes the [Quote];
// its terms never change (a revised price is a new quote, see
// [LeadStatusAfterQuote]). [Quote.Shown] is a canonical, versioned
// encoding of exactly the terms the page shows, and [Quote.ShownHash] its
// SHA-256. [ParseAccept] reads an Accept request and [Decide] checks it:
// conflicts (no_quote, lead_closed, quote_expired, quote_already_accepted)
// are 409, missing fields for the quote's mode 422, every field at once.
// It returns the [Acceptance]: accepted for a non-binding quote, signed
// with [Evidence] for a binding one; accepting again with the same terms
// succeeds and changes nothing. Acceptance never books the lead
// ([LeadStatusAfterAccept]). [Evidence.Hash] is the SHA-256 of the
// evidence's canonical encoding.
//
// Design and partner-facing rules: docs/QUOTES.md.
package quote
