// Package quotewiring holds the builders of the v1-lead-quote function
// (createQuote) and the v1-accept function (acceptQuote): apart from
// shared/wiring and shared/wiring/s3wiring, so that the other functions do
// not link (nor initialise) the quote features' packages, whose signature
// check links a PNG decoder (shared/quote/sigpng).
package quotewiring

import (
	"github.com/moveleads/partnerapi/shared/api"
	"github.com/moveleads/partnerapi/shared/awsenv"
	"github.com/moveleads/partnerapi/shared/quotes"
	"github.com/moveleads/partnerapi/shared/settings"
	"github.com/moveleads/partnerapi/shared/wiring/bucket"
)

// CreateQuote builds the v1-lead-quote function's endpoint.
func CreateQuote(e *awsenv.Env) ([]api.Endpoint, error) {
	base, err := e.Setting(settings.PublicBaseURL)
	if err != nil {
		return nil, err
	}
	return []api.Endpoint{quotes.New(quotes.Deps{Store: e.Store, BaseURL: base, Log: e.Log}).CreateQuote()}, nil
}

// Accept builds the v1-accept function's endpoint: acceptQuote, which
// stores a binding quote's signature image in the bucket.
func Accept(e *awsenv.Env) ([]api.Endpoint, error) {
	st, err := bucket.Open(e)
	if err != nil {
		return nil, err
	}
	return []api.Endpoint{quotes.New(quotes.Deps{Store: e.Store, Signatures: bucket.Signatures{Store: st}, Log: e.Log}).AcceptQuote()}, nil
}
