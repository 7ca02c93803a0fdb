// The v1-quote function's builder: the quote page, which stores signature
// images in the bucket and starts deposits through Stripe.

package s3wiring

import (
	"github.com/moveleads/partnerapi/shared/app/pipeline"
	"github.com/moveleads/partnerapi/shared/app/quotes"
	"github.com/moveleads/partnerapi/shared/wire/awsenv"
	"github.com/moveleads/partnerapi/shared/wire/wiring"
)

// QuotePage builds the v1-quote function's endpoints: the quote page and
// its accept and deposit calls.
func QuotePage(e *awsenv.Env) ([]pipeline.Endpoint, error) {
	s, err := wiring.DepositService(e)
	if err != nil {
		return nil, err
	}
	st, err := openBucket(e)
	if err != nil {
		return nil, err
	}
	q := quotes.New(quotes.Deps{Store: e.Store, Signatures: Signatures{Store: st}, Log: e.Log})
	return q.PageEndpoints(s), nil
}
