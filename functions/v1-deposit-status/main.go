// Command v1-deposit-status reads a deposit's status (beta), reconciling it against Stripe at most once a minute.
package main

import (
	"github.com/moveleads/partnerapi/shared/edge/apigw"
	"github.com/moveleads/partnerapi/shared/wire/wiring"
)

func main() { apigw.Start(wiring.GetDeposit) }
