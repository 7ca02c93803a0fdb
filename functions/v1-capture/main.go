// Command v1-capture serves the hosted capture page and its JSON calls.
package main

import (
	"github.com/moveleads/partnerapi/shared/apigw"
	"github.com/moveleads/partnerapi/shared/wiring/s3wiring"
)

func main() { apigw.Start(s3wiring.Capture) }
