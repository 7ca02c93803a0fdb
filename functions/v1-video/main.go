// Command v1-video serves the viewer page a forwardable video link opens.
package main

import (
	"github.com/moveleads/partnerapi/shared/apigw"
	"github.com/moveleads/partnerapi/shared/wiring/s3wiring"
)

func main() { apigw.Start(s3wiring.Video) }
