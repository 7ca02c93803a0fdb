// Command stripe-webhook receives Stripe's Connect webhook events for deposits, verified by their signature.
package main

import (
	"github.com/moveleads/partnerapi/shared/edge/apigw"
	"github.com/moveleads/partnerapi/shared/wire/wiring"
)

func main() { apigw.Start(wiring.StripeWebhook) }
