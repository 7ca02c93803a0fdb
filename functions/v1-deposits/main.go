// Command v1-deposits creates a lead's deposit checkout on the partner's connected Stripe account (beta).
package main

import (
	"github.com/moveleads/partnerapi/shared/edge/apigw"
	"github.com/moveleads/partnerapi/shared/wire/wiring"
)

func main() { apigw.Start(wiring.CreateDeposit) }
