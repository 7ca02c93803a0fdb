// Package quote is the domain of a lead's quote and its acceptance (issue
// 12, private beta): the quote create request, the terms the quote page
// shows and their hash, the Accept request, the decision to accept (or
// sign) and the signature evidence, and the lead statuses they lead to. It
// does no I/O and imports no AWS, Stripe or HTTP package; the API edge,
// the quote page and the storage layer serve and store what it decides.
// docs/QUOTES.md describes it for partners.
//
// # Quotes
//
// ParseCreate validates the create body (estimate_type, price_cents,
// deposit_cents, expires_in_days) and Build makes the Quote, copying in
// the partner's company name and currency. Its terms never change; a
// revised price is a new quote, which supersedes an open one and is
// refused once one was accepted (LeadStatusAfterQuote).
//
// # What the customer is shown
//
// Quote.Shown is a canonical, versioned byte encoding of exactly the terms
// the page shows (type, price, deposit, currency, expiry, company name
// and, for a binding quote, the E-SIGN disclosure and liability options
// by version and text hash); ShownHash is its SHA-256. ESignDisclosure
// and LiabilityOptions are the texts the page shows.
//
// # Acceptance
//
// ParseAccept reads the spec's Accept request; Decide checks the conflicts
// (no_quote, lead_closed, quote_expired, quote_already_accepted, each 409),
// the fields the quote's mode needs (422, every field at once) and returns
// the Acceptance: accepted with an email for a non-binding quote, signed
// with Evidence for a binding one. Accepting again with the same terms
// (Acceptance.SameTerms) succeeds and changes nothing. Acceptance never
// books: the lead moves to accepted (LeadStatusAfterAccept).
//
// # Evidence
//
// Evidence records the quote's ShownHash, the signer, the signature PNG's
// SHA-256 and storage key, the liability election, the disclosure version
// and consent, the time, IP address and user agent; Evidence.Hash is the
// SHA-256 of its canonical encoding, stable for the same record and
// different when any field differs.
package quote
