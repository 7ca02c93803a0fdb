// Command v1-quote serves the hosted quote page a customer opens, and its accept and deposit calls.
package main

import (
	"github.com/moveleads/partnerapi/shared/edge/apigw"
	"github.com/moveleads/partnerapi/shared/wire/s3wiring"
)

func main() { apigw.Start(s3wiring.QuotePage) }
