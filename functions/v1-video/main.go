// Command v1-video serves the viewer page a forwardable video link opens.
package main

import (
	"github.com/moveleads/partnerapi/shared/edge/apigw"
	"github.com/moveleads/partnerapi/shared/wire/s3wiring"
)

func main() { apigw.Start(s3wiring.Video) }
