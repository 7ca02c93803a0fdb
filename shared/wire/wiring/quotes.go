// The v1-lead-quote function's builder (createQuote).

package wiring

import (
	"github.com/moveleads/partnerapi/shared/app/pipeline"
	"github.com/moveleads/partnerapi/shared/app/quotes"
	"github.com/moveleads/partnerapi/shared/spec/settings"
	"github.com/moveleads/partnerapi/shared/wire/awsenv"
)

// CreateQuote builds the v1-lead-quote function's endpoint.
func CreateQuote(e *awsenv.Env) ([]pipeline.Endpoint, error) {
	base, err := e.Setting(settings.PublicBaseURL)
	if err != nil {
		return nil, err
	}
	return []pipeline.Endpoint{quotes.New(quotes.Deps{Store: e.Store, BaseURL: base, Log: e.Log}).CreateQuote()}, nil
}
