package main

import (
	"encoding/json"
	"slices"

	"github.com/moveleads/partnerapi/shared/spec/manifest"
)

// signedByStripe reports whether f's routes are authenticated by Stripe's
// signature (the webhook receiver).
func signedByStripe(f manifest.Function) bool {
	return slices.ContainsFunc(f.HTTP, func(r manifest.Route) bool { return r.Auth == manifest.AuthProcessorSignature })
}

// webhookSecrets returns the signing secret of each mode's Stripe webhook
// endpoint from value, STRIPE_WEBHOOK_SECRETS' JSON ({"test": "whsec_…",
// "live": "whsec_…"}), by mode; "" for a mode it has none for, or when
// value is not that JSON (the function then says what is wrong).
func webhookSecrets(value string) func(mode string) string {
	var secrets map[string]string
	_ = json.Unmarshal([]byte(value), &secrets)
	return func(mode string) string { return secrets[mode] }
}
