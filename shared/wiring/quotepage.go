// Package quotepagewiring holds the builder of the v1-quote function: the
// quote page, which stores signature images in the bucket and starts
// deposits through Stripe. It is apart from shared/wiring/paywiring so
// that the other deposit functions do not link the bucket's client.
package quotepagewiring

import (
	"github.com/moveleads/partnerapi/shared/api"
	"github.com/moveleads/partnerapi/shared/awsenv"
	"github.com/moveleads/partnerapi/shared/quotes"
	"github.com/moveleads/partnerapi/shared/wiring/bucket"
	"github.com/moveleads/partnerapi/shared/wiring/paywiring"
)

// QuotePage builds the v1-quote function's endpoints: the quote page and
// its accept and deposit calls.
func QuotePage(e *awsenv.Env) ([]api.Endpoint, error) {
	s, err := paywiring.Service(e)
	if err != nil {
		return nil, err
	}
	st, err := bucket.Open(e)
	if err != nil {
		return nil, err
	}
	q := quotes.New(quotes.Deps{Store: e.Store, Signatures: bucket.Signatures{Store: st}, Log: e.Log})
	return q.PageEndpoints(s), nil
}
