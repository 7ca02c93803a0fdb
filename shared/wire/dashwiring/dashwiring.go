// Package dashwiring builds the partner dashboard function's endpoints:
// shared/app/dashboardapp over the table and the WebAuthn adapter
// (shared/adapter/passkey), kept apart from shared/wire/wiring so no
// other function links go-webauthn and pays its package init.
package dashwiring

import (
	"github.com/moveleads/partnerapi/shared/adapter/passkey"
	"github.com/moveleads/partnerapi/shared/adapter/webhookhttp"
	"github.com/moveleads/partnerapi/shared/app/apikeys"
	"github.com/moveleads/partnerapi/shared/app/dashboardapp"
	"github.com/moveleads/partnerapi/shared/app/eventfeed"
	"github.com/moveleads/partnerapi/shared/app/leads"
	"github.com/moveleads/partnerapi/shared/app/pipeline"
	"github.com/moveleads/partnerapi/shared/app/surveys"
	"github.com/moveleads/partnerapi/shared/app/videolinks"
	"github.com/moveleads/partnerapi/shared/app/webhooks"
	"github.com/moveleads/partnerapi/shared/domain/webhook"
	"github.com/moveleads/partnerapi/shared/spec/manifest"
	"github.com/moveleads/partnerapi/shared/spec/settings"
	"github.com/moveleads/partnerapi/shared/wire/awsenv"
	"github.com/moveleads/partnerapi/shared/wire/s3wiring"
)

// Dashboard builds the dashboard function's endpoints: every route of
// manifest.DashboardRoutes; the leads pages play clips from the clip
// bucket (settings.ClipBucket) as the viewer page does. The public base URL is the relying party's
// (its host is the passkeys' RP ID) and the only Origin of a state change.
func Dashboard(e *awsenv.Env) ([]pipeline.Endpoint, error) {
	base, err := e.Setting(settings.PublicBaseURL)
	if err != nil {
		return nil, err
	}
	pk, err := passkey.New(base)
	if err != nil {
		return nil, err
	}
	hooks := webhooks.NewEndpoints(webhooks.EndpointDeps{Store: e.Store, CheckURL: webhookhttp.CheckURL,
		Sealer: webhook.SealerFrom(e.Secret(manifest.SecretWebhookSealing))})
	clips, err := s3wiring.ViewerObjects(e)
	if err != nil {
		return nil, err
	}
	return dashboardapp.New(dashboardapp.Deps{
		Store: e.Store, Passkeys: pk, BaseURL: base,
		Keys: apikeys.New(e.Store, nil), Hooks: hooks, Events: eventfeed.New(e.Store, e.Secret(manifest.SecretCursor)),
		Leads:       leads.New(e.Store, e.Secret(manifest.SecretCursor)),
		Clips:       videolinks.New(videolinks.Deps{Store: e.Store, Objects: clips, Log: e.Log}),
		SurveyLinks: surveys.New(surveys.Deps{Store: e.Store, BaseURL: base, Log: e.Log}),
	}).Endpoints(), nil
}
