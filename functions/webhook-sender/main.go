// Command webhook-sender makes the webhook delivery attempts of the
// attempts queue, many at once.
package main

import (
	"github.com/moveleads/partnerapi/shared/edge/queueevent"
	"github.com/moveleads/partnerapi/shared/wire/hookwiring"
)

func main() { queueevent.Start("webhook-sender", hookwiring.Attempts) }
