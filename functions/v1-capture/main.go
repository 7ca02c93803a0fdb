// Command v1-capture serves the hosted capture page and its JSON calls.
package main

import (
	"github.com/moveleads/partnerapi/shared/edge/apigw"
	"github.com/moveleads/partnerapi/shared/wire/s3wiring"
)

func main() { apigw.Start(s3wiring.Capture) }
