// Command v1-survey-video-access mints and revokes forwardable links to a
// survey's walkthrough video (createSurveyVideoAccess,
// revokeSurveyVideoAccess).
package main

import (
	"github.com/moveleads/partnerapi/shared/edge/apigw"
	"github.com/moveleads/partnerapi/shared/wire/wiring"
)

func main() { apigw.Start(wiring.VideoAccess) }
