// Command v1-lead-survey is the getSurveyLink function.
package main

import (
	"github.com/moveleads/partnerapi/shared/edge/apigw"
	"github.com/moveleads/partnerapi/shared/wire/wiring"
)

func main() { apigw.Start(wiring.SurveyLink) }
