// Command webhook-retrier attempts the webhook deliveries that are due
// again, every minute.
package main

import (
	"github.com/moveleads/partnerapi/shared/edge/schedule"
	"github.com/moveleads/partnerapi/shared/wire/hookwiring"
)

func main() { schedule.Start("webhook-retrier", hookwiring.Retrier) }
