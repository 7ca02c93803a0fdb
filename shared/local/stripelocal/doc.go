// Package stripelocal installs and runs stripe-mock, Stripe's own mock of
// its HTTP API, as a plain process on loopback: the stand-in for
// api.stripe.com in tests and the local development stack, as
// shared/local/s3local is for S3.
//
// stripe-mock is built from source with `go install` at the version pinned
// in scripts/install-stripe-mock.sh (the single place that knows it) into
// <repo>/.cache/stripe-mock (git-ignored), or into $STRIPELOCAL_DIR when
// that is set. [Install] runs the script, which returns at once when that
// version is installed, so `go test ./...` works on a fresh clone; a build
// needs go on PATH and the Go module proxy and takes seconds.
// scripts/bootstrap.sh runs the same script.
//
// [Start] runs stripe-mock with its HTTP and HTTPS listeners on two free
// ports of 127.0.0.1 (it would otherwise open HTTPS on every address) and
// returns once it answers an authenticated request. Test packages use
// [ForTests] or [RunTests] from TestMain: the developer's running server
// when STRIPE_API_URL (stripepay.EnvAPIURL) is set, otherwise one server
// for the whole test binary. Code under test reaches it through that
// variable ([Env], [SetEnv]), never through test-only code paths.
//
// # What stripe-mock is and is not
//
// It validates each request against Stripe's OpenAPI spec (unknown
// parameters, wrong types and enum values answer 400) and answers with
// fixtures: it is stateless, echoes few parameters (a created Checkout
// Session keeps mode, status open and payment_status unpaid but not the
// metadata or expires_at sent; a read session has the requested id),
// ignores Stripe-Account and idempotency keys, accepts any secret key of
// the sk_test_ form, and sends no webhooks. It is started without
// -strict-version-check: it ships a newer spec than stripe-go v76's API
// version, 2023-10-16.
package stripelocal
