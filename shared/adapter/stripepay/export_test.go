package stripepay

import stripe "github.com/stripe/stripe-go/v76"

// NoRetryWait makes c's retries immediate (stripe-go's test switch), so
// fault tests spend no time in its backoff.
func NoRetryWait(c *Client) {
	c.backend.(*stripe.BackendImplementation).SetNetworkRetriesSleep(false)
}
