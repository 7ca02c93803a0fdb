// Command webhook-dispatcher fans each webhook event owed out to the
// partner's endpoints of its mode, from the table's stream.
package main

import (
	"github.com/moveleads/partnerapi/shared/edge/streamevent"
	"github.com/moveleads/partnerapi/shared/wire/hookwiring"
)

func main() { streamevent.Start("webhook-dispatcher", hookwiring.Dispatcher) }
