package stripelocal_test

import (
	"context"
	"fmt"
	"os"

	"github.com/moveleads/partnerapi/shared/adapter/stripepay"
	"github.com/moveleads/partnerapi/shared/local/stripelocal"
)

// A test package that calls Stripe runs its tests against one stripe-mock:
// TestMain calls stripelocal.RunTests(m), which does what this does around
// m.Run and exits with its code.
func ExampleForTests() {
	srv, stop, err := stripelocal.ForTests()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return
	}
	defer stop()
	if prev, ok := os.LookupEnv(stripepay.EnvAPIURL); ok {
		defer os.Setenv(stripepay.EnvAPIURL, prev)
	} else {
		defer os.Unsetenv(stripepay.EnvAPIURL)
	}
	stripelocal.SetEnv(srv)
	fmt.Println(os.Getenv(stripepay.EnvAPIURL) == srv.URL)
	// Output: true
}

// A client of the adapter pointed at a stripe-mock of its own reads a
// checkout session (stripe-mock answers with its fixture).
func ExampleStart() {
	ctx := context.Background()
	srv, err := stripelocal.Start(ctx)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return
	}
	defer srv.Stop()
	client, err := stripepay.New(stripepay.Config{SecretKey: stripelocal.SecretKey, APIURL: srv.URL})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return
	}
	c, err := client.GetCheckout(ctx, "acct_1", "cs_test_1")
	fmt.Println(c.Status, err)
	// Output: open <nil>
}
