// Package stripepay is the Stripe adapter of deposits (issue 12): the only
// package that imports stripe-go (v76, API version 2023-10-16). It creates
// and reads Checkout Sessions on partners' connected accounts and verifies
// and reads the Connect endpoint's webhooks, and hands shared/domain/deposit plain
// values: the deposit events Stripe's events and sessions amount to.
//
// # Checkout
//
// [Client.CreateCheckout] makes a direct charge on the partner's connected
// account (Stripe-Account header): mode payment, one line item priced
// inline (price_data), no application fee, metadata deposit_id, lead_id
// and partner_id on the session and on its PaymentIntent (so the charge,
// and charge.refunded, name the deposit too), client_reference_id the
// deposit id, an expires_at, and Stripe's Idempotency-Key.
// [Client.GetCheckout] reads a session with its PaymentIntent for
// reconciliation on read, and [Checkout.Outcome] says what its state
// amounts to.
//
// The calls go through stripe-go's own backend
// (stripe.GetBackendWithConfig) and checkout/session client, with
// stripe-go's CheckoutSessionParams and CheckoutSession: stripe.Params
// carries the Stripe-Account and Idempotency-Key headers, stripe-go sends
// its pinned API version, retries by its own policy (network errors, 409,
// a 429 lock timeout, 503, a 5xx to a GET, and Stripe-Should-Retry; twice,
// with the same idempotency key) and returns its typed error, *stripe.Error
// ([APIError]), which this package wraps in [ErrRefused] or [ErrNotFound]
// for the 4xx that mean "do not retry". stripe-go's logger is off (the
// caller logs the error once), and the secret key is never printed.
//
// # Webhooks
//
// [ParseWebhook] verifies Stripe-Signature over the raw body with
// stripe-go's webhook package, decodes data.object into stripe-go's
// CheckoutSession, Charge or Dispute, and maps the event:
//
//	Stripe event                               deposit event
//	checkout.session.completed, paid           paid
//	checkout.session.completed, otherwise      unpaid (stays pending)
//	checkout.session.async_payment_succeeded   async_paid
//	checkout.session.async_payment_failed      async_failed
//	checkout.session.expired                   expired
//	charge.refunded                            refunded
//	charge.dispute.created                     disputed
//	any other type                             ignored (acknowledged)
//
// The receiver answers 400 for [ErrSignature] (a wrong secret, a tampered
// body, a timestamp outside five minutes) and changes nothing; 500 for
// [ErrUnreadable], so Stripe retries; 200 for an ignored event, an event
// already seen (it dedupes by [Event.ID]) and an event of an account or
// session it does not know, which it logs: retrying those would never
// succeed.
//
// # API version
//
// stripe-go v76 is generated for API version 2023-10-16 ([APIVersion]);
// every request sends that version (Stripe-Version), so the objects read
// back have that shape. The Connect webhook endpoint is therefore created with api_version
// 2023-10-16 too, and ParseWebhook refuses an event of any other version
// (ErrUnreadable) rather than ignore the mismatch: an event rendered in
// another shape could be misread (a missing payment_status reads as
// unpaid), and a refusal is loud and lossless, since Stripe keeps the
// event and retries it. Upgrading means a new stripe-go major version and
// the endpoint's version, together.
//
// # Locally
//
// Tests and make dev point the client at stripe-mock ([EnvAPIURL], see
// shared/local/stripelocal). stripe-mock validates requests against Stripe's
// OpenAPI spec but is stateless: it ignores Stripe-Account, echoes few
// parameters and sends no webhooks; tests sign their own events with
// webhook.GenerateTestSignedPayload.
package stripepay
