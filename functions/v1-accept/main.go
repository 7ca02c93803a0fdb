// Command v1-accept records a lead's quote acceptance or electronic signature (beta).
package main

import (
	"github.com/moveleads/partnerapi/shared/apigw"
	"github.com/moveleads/partnerapi/shared/wiring"
)

func main() { apigw.Start(wiring.Accept) }
