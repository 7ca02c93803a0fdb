// Package wiring holds every function's builder: its main's one call
// (apigw.Start(wiring.X), s3event.Start, streamevent.Start,
// queueevent.Start, schedule.Start, or mcpwiring.Start for v1-mcp), one file per
// area, and the adapters from the AWS and HTTP clients to the features.
// Four builder packages are kept apart, each because importing its clients
// runs their package init at every cold start of a function that imports
// the package (GODEBUG=inittrace=1 on v1-leads): shared/wire/s3wiring
// (S3), shared/wire/clipwiring (Rekognition, the clip processor's alone),
// shared/wire/hookwiring (SQS) and shared/wire/mcpwiring (the MCP SDK). Folded in, they took v1-leads' package init from 1.3 ms
// to 3.3 ms and every function's init ratio to hello-world from about
// 1.2× to 1.8–2.4× (make bench); apart, v1-leads' is 2.1 ms.
package wiring

import (
	"github.com/moveleads/partnerapi/shared/app/eventfeed"
	"github.com/moveleads/partnerapi/shared/app/leads"
	"github.com/moveleads/partnerapi/shared/app/pipeline"
	"github.com/moveleads/partnerapi/shared/app/surveys"
	"github.com/moveleads/partnerapi/shared/app/videolinks"
	"github.com/moveleads/partnerapi/shared/spec/manifest"
	"github.com/moveleads/partnerapi/shared/spec/settings"
	"github.com/moveleads/partnerapi/shared/wire/awsenv"
)

// Builder builds one HTTP function's endpoints (one per route of its
// manifest entry) from its environment.
type Builder = func(*awsenv.Env) ([]pipeline.Endpoint, error)

// The builders of each HTTP function's endpoints, one per function: its
// main passes exactly one to apigw.Start (so its binary links only that
// function's code), and the tools serve them all through Builders.

// CreateLead builds the v1-leads function's endpoint.
func CreateLead(e *awsenv.Env) ([]pipeline.Endpoint, error) {
	return []pipeline.Endpoint{leads.New(e.Store, nil).CreateLead()}, nil
}

// ListLeads builds the v1-leads-list function's endpoint.
func ListLeads(e *awsenv.Env) ([]pipeline.Endpoint, error) {
	return []pipeline.Endpoint{leads.New(e.Store, e.Secret(manifest.SecretCursor)).ListLeads()}, nil
}

// GetLead builds the v1-lead-get function's endpoint.
func GetLead(e *awsenv.Env) ([]pipeline.Endpoint, error) {
	return []pipeline.Endpoint{leads.New(e.Store, nil).GetLead()}, nil
}

// ListEvents builds the v1-events function's endpoint.
func ListEvents(e *awsenv.Env) ([]pipeline.Endpoint, error) {
	return []pipeline.Endpoint{eventfeed.New(e.Store, e.Secret(manifest.SecretCursor)).ListEvents()}, nil
}

// GetEvent builds the v1-event-get function's endpoint.
func GetEvent(e *awsenv.Env) ([]pipeline.Endpoint, error) {
	return []pipeline.Endpoint{eventfeed.New(e.Store, nil).GetEvent()}, nil
}

// SurveyLink builds the v1-lead-survey function's endpoint.
func SurveyLink(e *awsenv.Env) ([]pipeline.Endpoint, error) {
	base, err := e.Setting(settings.PublicBaseURL)
	if err != nil {
		return nil, err
	}
	return []pipeline.Endpoint{surveys.New(surveys.Deps{
		Store: e.Store, BaseURL: base, Log: e.Log, LinkKey: e.Secret(manifest.SecretCaptureLink),
	}).GetSurveyLink()}, nil
}

// VideoAccess builds the v1-survey-video-access function's endpoints:
// createSurveyVideoAccess and revokeSurveyVideoAccess.
func VideoAccess(e *awsenv.Env) ([]pipeline.Endpoint, error) {
	base, err := e.Setting(settings.PublicBaseURL)
	if err != nil {
		return nil, err
	}
	return videolinks.New(videolinks.Deps{Store: e.Store, BaseURL: base, Log: e.Log}).AccessEndpoints(), nil
}
