// The builders of the functions that reach Stripe through
// shared/adapter/stripepay (v1-deposits, v1-deposit-status, stripe-webhook;
// v1-quote's, which also reaches the bucket, is in quotepage.go).

package wiring

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/moveleads/partnerapi/shared/adapter/stripepay"
	"github.com/moveleads/partnerapi/shared/app/deposits"
	"github.com/moveleads/partnerapi/shared/app/pipeline"
	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/domain/lazy"
	"github.com/moveleads/partnerapi/shared/spec/manifest"
	"github.com/moveleads/partnerapi/shared/spec/settings"
	"github.com/moveleads/partnerapi/shared/wire/awsenv"
)

// CreateDeposit builds the v1-deposits function's endpoint.
func CreateDeposit(e *awsenv.Env) ([]pipeline.Endpoint, error) {
	s, err := DepositService(e)
	if err != nil {
		return nil, err
	}
	return []pipeline.Endpoint{s.CreateDeposit()}, nil
}

// GetDeposit builds the v1-deposit-status function's endpoint.
func GetDeposit(e *awsenv.Env) ([]pipeline.Endpoint, error) {
	s, err := DepositService(e)
	if err != nil {
		return nil, err
	}
	return []pipeline.Endpoint{s.GetDeposit()}, nil
}

// StripeWebhook builds the stripe-webhook function's endpoint.
func StripeWebhook(e *awsenv.Env) ([]pipeline.Endpoint, error) {
	secrets := byMode(e.Secret(manifest.SecretStripeWebhook), manifest.SecretStripeWebhook, "whsec_")
	s := deposits.New(deposits.Deps{
		Store: e.Store, Log: e.Log, Webhooks: stripepay.Webhooks{},
		WebhookSecret: func(ctx context.Context, m auth.Mode) (string, error) { return secrets(ctx, m) },
	})
	return []pipeline.Endpoint{s.StripeWebhook()}, nil
}

// DepositService is the deposits service of the functions that call Stripe's
// API: a client per mode, made on first use from that mode's key.
func DepositService(e *awsenv.Env) (*deposits.Service, error) {
	base, err := e.Setting(settings.PublicBaseURL)
	if err != nil {
		return nil, err
	}
	keys := byMode(e.Secret(manifest.SecretStripeKeys), manifest.SecretStripeKeys, "")
	apiURL := e.Getenv(settings.StripeAPIURL)
	clients := lazy.NewMap(func(ctx context.Context, m auth.Mode) (*stripepay.Client, error) {
		key, err := keys(ctx, m)
		if err != nil {
			return nil, err
		}
		if want := "_" + string(m) + "_"; !strings.Contains(key, want) {
			return nil, fmt.Errorf("secret %s: the %s key is not a %s-mode key (sk_%s…)", manifest.SecretStripeKeys, m, m, m)
		}
		return stripepay.New(stripepay.Config{SecretKey: key, APIURL: apiURL})
	})
	return deposits.New(deposits.Deps{
		Store: e.Store, BaseURL: base, Log: e.Log,
		Stripe: func(ctx context.Context, m auth.Mode) (deposits.Stripe, error) {
			c, err := clients.Get(ctx, m)
			if err != nil {
				return nil, err // not c: a nil *Client in the interface is not nil
			}
			return c, nil
		},
	}), nil
}

// byMode reads a Stripe secret holding one value per mode, as JSON text
// ({"test": "…", "live": "…"}), and returns the value of a mode; a
// missing or empty value (or one without prefix) is an error naming the
// secret and the mode, never the value.
func byMode(load func(context.Context) ([]byte, error), name, prefix string) func(context.Context, auth.Mode) (string, error) {
	return func(ctx context.Context, m auth.Mode) (string, error) {
		raw, err := load(ctx)
		if err != nil {
			return "", err
		}
		var vals map[string]string
		if err := json.Unmarshal(raw, &vals); err != nil {
			return "", fmt.Errorf("secret %s is not a JSON object of strings by mode ({\"test\": …, \"live\": …})", name)
		}
		v := strings.TrimSpace(vals[string(m)])
		if v == "" || !strings.HasPrefix(v, prefix) {
			return "", fmt.Errorf("secret %s has no %s value (want %s…); the operator sets it (docs/DEPOSITS.md)", name, m, prefix)
		}
		return v, nil
	}
}
