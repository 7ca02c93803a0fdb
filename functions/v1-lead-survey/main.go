// Command v1-lead-survey is the getSurveyLink function.
package main

import (
	"github.com/moveleads/partnerapi/shared/apigw"
	"github.com/moveleads/partnerapi/shared/wiring"
)

func main() { apigw.Start(wiring.SurveyLink) }
