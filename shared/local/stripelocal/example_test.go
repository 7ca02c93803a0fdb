package stripelocal_test

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/moveleads/partnerapi/shared/adapter/stripepay"
	"github.com/moveleads/partnerapi/shared/local/stripelocal"
)

// A test package that calls Stripe runs its tests against one stripe-mock.
func ExampleRunTests() {
	var m *testing.M // TestMain's argument
	stripelocal.RunTests(m)
}

// A client of the adapter pointed at a stripe-mock of its own.
func ExampleStart() {
	srv, err := stripelocal.Start(context.Background())
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
	_ = client
}
