// The v1-accept function's builder (acceptQuote): the quote feature with
// the clip bucket for binding signatures' images.

package s3wiring

import (
	"github.com/moveleads/partnerapi/shared/api"
	"github.com/moveleads/partnerapi/shared/awsenv"
	"github.com/moveleads/partnerapi/shared/quotes"
)

// Accept builds the v1-accept function's endpoint: acceptQuote, which
// stores a binding quote's signature image in the bucket.
func Accept(e *awsenv.Env) ([]api.Endpoint, error) {
	st, err := openBucket(e)
	if err != nil {
		return nil, err
	}
	return []api.Endpoint{quotes.New(quotes.Deps{Store: e.Store, Signatures: Signatures{Store: st}, Log: e.Log}).AcceptQuote()}, nil
}
