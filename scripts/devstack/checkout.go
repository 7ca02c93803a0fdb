package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/moveleads/partnerapi/shared/adapter/dynamo"
	"github.com/moveleads/partnerapi/shared/local/stripelocal"
	"github.com/moveleads/partnerapi/shared/spec/settings"
	"github.com/moveleads/partnerapi/shared/spec/table"
)

// checkout is make dev's stand-in for Stripe's hosted checkout
// (stripelocal.Checkout): the functions' STRIPE_API_URL points at its
// proxy to stripe-mock, so createDeposit's checkout_url opens its page at
// base + stripelocal.CheckoutPath instead of checkout.stripe.com.
type checkout struct {
	*stripelocal.Checkout
	srv *http.Server
}

// startCheckout serves the proxy to stripe-mock at stripeURL on a free
// loopback port and points env's (and this process's) STRIPE_API_URL at
// it.
func startCheckout(stripeURL, base string, env map[string]string) (*checkout, error) {
	co, err := stripelocal.NewCheckout(stripeURL, base)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("local checkout: %w", err)
	}
	srv := &http.Server{Handler: co.API(), ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			fmt.Fprintln(os.Stderr, "make dev: the local checkout's Stripe proxy stopped:", err)
		}
	}()
	env[settings.StripeAPIURL] = "http://" + ln.Addr().String()
	os.Setenv(settings.StripeAPIURL, env[settings.StripeAPIURL])
	return &checkout{Checkout: co, srv: srv}, nil
}

// stop closes the proxy.
func (c *checkout) stop() { _ = c.srv.Close() }

// page is the checkout page's handler, reading the stack's table and
// signing with the dev webhook secret, as opctl deposit simulate does.
func (c *checkout) page(ctx context.Context, log *slog.Logger) (http.Handler, error) {
	cfg, err := config.LoadDefaultConfig(ctx)
	if err != nil {
		return nil, err
	}
	store := dynamo.New(dynamodb.NewFromConfig(cfg), table.DefaultName)
	return c.Page(store, DevWebhookSecret, log), nil
}
