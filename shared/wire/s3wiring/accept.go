// The v1-accept function's builder (acceptQuote): the quote feature with
// the clip bucket for binding signatures' images.

package s3wiring

import (
	"github.com/moveleads/partnerapi/shared/app/pipeline"
	"github.com/moveleads/partnerapi/shared/app/quotes"
	"github.com/moveleads/partnerapi/shared/wire/awsenv"
)

// Accept builds the v1-accept function's endpoint: acceptQuote, which
// stores a binding quote's signature image in the bucket.
func Accept(e *awsenv.Env) ([]pipeline.Endpoint, error) {
	st, err := openBucket(e)
	if err != nil {
		return nil, err
	}
	return []pipeline.Endpoint{quotes.New(quotes.Deps{Store: e.Store, Signatures: Signatures{Store: st}, Log: e.Log}).AcceptQuote()}, nil
}
