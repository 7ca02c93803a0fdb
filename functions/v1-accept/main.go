// Command v1-accept records a lead's quote acceptance or electronic signature (beta).
package main

import (
	"github.com/moveleads/partnerapi/shared/apigw"
	"github.com/moveleads/partnerapi/shared/wiring/s3wiring"
)

func main() { apigw.Start(s3wiring.Accept) }
