// The v1-lead-quote function's builder (createQuote).

package wiring

import (
	"github.com/moveleads/partnerapi/shared/api"
	"github.com/moveleads/partnerapi/shared/awsenv"
	"github.com/moveleads/partnerapi/shared/quotes"
	"github.com/moveleads/partnerapi/shared/settings"
)

// CreateQuote builds the v1-lead-quote function's endpoint.
func CreateQuote(e *awsenv.Env) ([]api.Endpoint, error) {
	base, err := e.Setting(settings.PublicBaseURL)
	if err != nil {
		return nil, err
	}
	return []api.Endpoint{quotes.New(quotes.Deps{Store: e.Store, BaseURL: base, Log: e.Log}).CreateQuote()}, nil
}
