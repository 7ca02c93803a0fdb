// Command webhook-sender makes the webhook delivery attempts of the
// attempts queue, many at once.
package main

import (
	"github.com/moveleads/partnerapi/shared/queueevent"
	"github.com/moveleads/partnerapi/shared/wiring/hookwiring"
)

func main() { queueevent.Start("webhook-sender", hookwiring.Attempts) }
