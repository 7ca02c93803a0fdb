package stripepay

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"time"

	stripe "github.com/stripe/stripe-go/v76"
)

// EnvAPIURL names the variable that points the functions' Stripe client at
// another API base URL: stripe-mock under make dev and in tests
// (shared/stripelocal sets it). Unset in AWS, where the client talks to
// https://api.stripe.com.
const EnvAPIURL = "STRIPE_API_URL"

// APIVersion is the Stripe API version stripe-go v76 is generated for,
// 2023-10-16: every request sends it (Stripe-Version), and the Connect
// webhook endpoint must be created with it (api_version), or ParseWebhook
// refuses its events (see ErrUnreadable).
const APIVersion = stripe.APIVersion

const (
	// httpTimeout bounds one HTTP attempt when Config.HTTPClient is nil.
	httpTimeout = 20 * time.Second
	// maxRetries is how often a failed attempt is retried (stripe-go's
	// default).
	maxRetries = 2
	// retryDelay is the first retry's delay; the n-th waits
	// retryDelay*(1+n²), less up to a quarter of jitter (stripe-go's
	// schedule).
	retryDelay = 500 * time.Millisecond
	// maxResponse bounds the body read from Stripe.
	maxResponse = 1 << 20
)

// Errors of the API calls, for errors.Is. The error also carries Stripe's
// status, type, code, message and request id for the log (*APIError).
var (
	// ErrNotFound: Stripe has no such object on that account (404).
	ErrNotFound = errors.New("stripe: no such object")
	// ErrRefused: Stripe refused the request as invalid or not permitted
	// (a 4xx other than 404, 409 and 429), for example an account that is
	// not connected to the platform, a currency it does not take, or an
	// idempotency key reused with other parameters; sending the same
	// request again will not help.
	ErrRefused = errors.New("stripe refused the request")
)

// Config configures a Client.
type Config struct {
	// SecretKey is the platform's secret API key (sk_…; Secrets Manager in
	// AWS). It is sent to Stripe and never printed: Config and Client
	// print it as [redacted].
	SecretKey string `json:"-"`
	// APIURL is the API's base URL; "" means https://api.stripe.com.
	APIURL string
	// HTTPClient makes the requests; nil means one with a 20 s timeout per
	// attempt.
	HTTPClient *http.Client
}

// String prints c without its secret key.
func (c Config) String() string {
	return fmt.Sprintf("stripepay.Config{SecretKey: [redacted], APIURL: %q}", c.APIURL)
}

// GoString prints c without its secret key.
func (c Config) GoString() string { return c.String() }

// Client calls Stripe's Checkout Sessions API on connected accounts. It is
// safe for concurrent use; build one per process.
type Client struct {
	key    string
	apiURL string
	http   *http.Client
	// sleep waits d or until ctx ends; tests shorten it.
	sleep func(ctx context.Context, d time.Duration) error
}

// New returns a Client for cfg. It fails when the key is empty or the URL
// is not an absolute http(s) URL; it makes no request.
func New(cfg Config) (*Client, error) {
	if cfg.SecretKey == "" {
		return nil, errors.New("stripepay: no secret key")
	}
	apiURL := cfg.APIURL
	if apiURL == "" {
		apiURL = stripe.APIURL
	}
	u, err := url.Parse(apiURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("stripepay: API URL %q: want an absolute http or https URL", apiURL)
	}
	httpClient := cfg.HTTPClient
	if httpClient == nil {
		httpClient = &http.Client{Timeout: httpTimeout}
	}
	return &Client{key: cfg.SecretKey, apiURL: u.String(), http: httpClient, sleep: sleepCtx}, nil
}

// String prints c without its secret key.
func (c *Client) String() string {
	return fmt.Sprintf("stripepay.Client{APIURL: %q, SecretKey: [redacted]}", c.apiURL)
}

// GoString prints c without its secret key.
func (c *Client) GoString() string { return c.String() }
