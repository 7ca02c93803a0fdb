// Command v1-accept records a lead's quote acceptance or electronic signature (beta).
package main

import (
	"github.com/moveleads/partnerapi/shared/edge/apigw"
	"github.com/moveleads/partnerapi/shared/wire/s3wiring"
)

func main() { apigw.Start(s3wiring.Accept) }
