// Command v1-capture serves the hosted capture page and its JSON calls.
package main

import (
	"github.com/moveleads/partnerapi/shared/apigw"
	"github.com/moveleads/partnerapi/shared/catalog"
)

func main() { apigw.Start(catalog.Capture) }
