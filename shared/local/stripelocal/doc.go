// Package stripelocal installs and runs stripe-mock, Stripe's own mock of
// its HTTP API, as a plain process on loopback: the stand-in for
// api.stripe.com in tests and the local development stack.
//
// [Install] builds stripe-mock at the version pinned in
// scripts/install-stripe-mock.sh (the single place that knows it) into
// <repo>/.cache/stripe-mock, or $STRIPELOCAL_DIR, and returns at once when
// it is there; it needs go on PATH and the Go module proxy. [Start] runs it
// with its HTTP and HTTPS listeners on free ports of 127.0.0.1 and returns
// once it answers an authenticated request.
//
// Test packages use [ForTests] or [RunTests] from TestMain: the developer's
// server when STRIPE_API_URL (stripepay.EnvAPIURL) is set, otherwise one
// server for the whole test binary. Code under test reaches it through
// that variable ([Env], [SetEnv]), never through test-only code paths.
//
// stripe-mock validates requests against Stripe's OpenAPI spec but is
// stateless: it echoes few parameters, ignores Stripe-Account and
// idempotency keys, and sends no webhooks. Details: docs/LOCAL.md.
//
// [Checkout] is make dev's stand-in for Stripe's hosted checkout: a proxy
// to stripe-mock whose sessions' url is a local test page that sends the
// chosen outcome as the signed event [DepositEvent] makes, through
// [Deliver], as opctl deposit simulate does (docs/DEVELOPING.md).
package stripelocal
