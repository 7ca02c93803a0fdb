// Command v1-lead-quote makes a lead's quote (beta) and its hosted quote page link.
package main

import (
	"github.com/moveleads/partnerapi/shared/edge/apigw"
	"github.com/moveleads/partnerapi/shared/wire/wiring"
)

func main() { apigw.Start(wiring.CreateQuote) }
