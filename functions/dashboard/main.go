// Command dashboard serves the partner dashboard: every /dashboard route.
package main

import (
	"github.com/moveleads/partnerapi/shared/edge/apigw"
	"github.com/moveleads/partnerapi/shared/wire/dashwiring"
)

func main() { apigw.Start(dashwiring.Dashboard) }
