// Command v1-event-get is the Lambda function of the v1-event-get entry of the function
// manifest (shared/spec/manifest). It only wires: apigw.Start builds the
// handler once, at init, from the one endpoint builder named here, so the
// binary links only that endpoint's code.
package main

import (
	"github.com/moveleads/partnerapi/shared/edge/apigw"
	"github.com/moveleads/partnerapi/shared/wire/wiring"
)

func main() { apigw.Start(wiring.GetEvent) }
