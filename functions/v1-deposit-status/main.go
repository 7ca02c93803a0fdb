// Command v1-deposit-status reads a deposit's status (beta), reconciling it against Stripe at most once a minute.
package main

import (
	"github.com/moveleads/partnerapi/shared/apigw"
	"github.com/moveleads/partnerapi/shared/wiring"
)

func main() { apigw.Start(wiring.GetDeposit) }
