// Package stripepay is the Stripe adapter of deposits: the only package
// that imports stripe-go (v76, API version [APIVersion], 2023-10-16). It
// creates and reads Checkout Sessions on partners' connected accounts,
// verifies and reads the Connect endpoint's webhooks, and hands
// shared/domain/deposit plain values: the deposit events Stripe's events
// and sessions amount to.
//
// Build a [Client] once with [New]. [Client.CreateCheckout] makes a direct
// charge on the connected account (Stripe-Account header, Stripe's
// Idempotency-Key, metadata naming the deposit on the session and its
// PaymentIntent); [Client.GetCheckout] reads a session for reconciliation
// on read, and [Outcome] says what its state amounts to. Calls go through
// stripe-go's backend with its retry policy; a 4xx that means "do not
// retry" wraps [ErrRefused] or [ErrNotFound], with stripe-go's typed error
// ([APIError]) inside. The secret key is never printed.
//
// [ParseWebhook] verifies Stripe-Signature over the raw body and maps
// [WebhookEventTypes] to deposit events; any other type parses as ignored.
// [ErrSignature] means answer 400 and change nothing; [ErrUnreadable] (an
// event of another API version, or bad JSON) means answer 500 so Stripe
// retries. Locally [EnvAPIURL] points the client at stripe-mock
// (shared/local/stripelocal).
//
// Design (the event table, retries, API version pinning, stripe-mock's
// limits): docs/DEPOSITS.md.
package stripepay
