// Command webhook-retrier attempts the webhook deliveries that are due
// again, every minute.
package main

import (
	"github.com/moveleads/partnerapi/shared/tick"
	"github.com/moveleads/partnerapi/shared/wiring/hookwiring"
)

func main() { tick.Start("webhook-retrier", hookwiring.Retrier) }
