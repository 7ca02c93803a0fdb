// Command v1-deposits creates a lead's deposit checkout on the partner's connected Stripe account (beta).
package main

import (
	"github.com/moveleads/partnerapi/shared/apigw"
	"github.com/moveleads/partnerapi/shared/wiring"
)

func main() { apigw.Start(wiring.CreateDeposit) }
