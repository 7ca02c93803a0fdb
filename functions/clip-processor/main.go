// Command clip-processor validates each clip uploaded to the clip bucket
// and settles its survey.
package main

import (
	"github.com/moveleads/partnerapi/shared/edge/s3event"
	"github.com/moveleads/partnerapi/shared/wire/clipwiring"
)

func main() { s3event.Start("clip-processor", clipwiring.ClipProcessor) }
