package stripepay

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"time"

	stripe "github.com/stripe/stripe-go/v76"
	"github.com/stripe/stripe-go/v76/checkout/session"

	"github.com/moveleads/partnerapi/shared/domain/deposit"
)

// EnvAPIURL names the variable that points the functions' Stripe client at
// another API base URL: stripe-mock under make dev and in tests
// (shared/local/stripelocal sets it). Unset in AWS, where the client talks to
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
	// maxRetries is how often stripe-go retries what its policy deems
	// retryable (its default).
	maxRetries = 2
)

// Errors of the API calls, for errors.Is. The error also carries Stripe's
// typed error (*APIError) for the status, type, code, message and request
// id.
var (
	// ErrNotFound: Stripe has no such object on that account (404).
	ErrNotFound = deposit.ErrProviderNotFound
	// ErrRefused: Stripe refused the request as invalid or not permitted
	// (a 4xx other than 404, 409 and 429), for example an account that is
	// not connected to the platform, a currency it does not take, or an
	// idempotency key reused with other parameters; sending the same
	// request again will not help.
	ErrRefused = deposit.ErrProviderRefused
)

// APIError is Stripe's answer to a request it did not carry out: stripe-go's
// typed error (HTTPStatusCode, Type, Code, Param, Msg, RequestID). Callers
// read it with errors.As without importing stripe-go.
type APIError = stripe.Error

// Config configures a Client.
type Config struct {
	// SecretKey is the platform's secret API key (sk_…; Secrets Manager in
	// AWS). It is sent to Stripe and never printed: Config and Client
	// print it as [redacted].
	SecretKey string `json:"-"`
	// APIURL is the API's base URL; "" means https://api.stripe.com.
	APIURL string
	// HTTPClient makes the requests; nil means one with a 20 s timeout per
	// attempt. Not data: json.Marshal of a Config skips it (it holds funcs).
	HTTPClient *http.Client `json:"-"`
}

// String prints c without its secret key.
func (c Config) String() string {
	return fmt.Sprintf("stripepay.Config{SecretKey: [redacted], APIURL: %q}", c.APIURL)
}

// GoString prints c without its secret key.
func (c Config) GoString() string { return c.String() }

// Client calls Stripe's Checkout Sessions API on connected accounts through
// stripe-go's backend and checkout/session client. It is safe for
// concurrent use; build one per process.
type Client struct {
	apiURL   string
	backend  stripe.Backend
	sessions session.Client
}

// quiet drops stripe-go's log lines: errors reach the caller, who logs
// them once, and nothing of a request is written by the library.
var quiet = &stripe.LeveledLogger{Level: stripe.LevelNull}

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
	b := stripe.GetBackendWithConfig(stripe.APIBackend, &stripe.BackendConfig{
		URL:               stripe.String(u.String()),
		HTTPClient:        httpClient,
		MaxNetworkRetries: stripe.Int64(maxRetries),
		LeveledLogger:     quiet,
		EnableTelemetry:   stripe.Bool(false),
	})
	return &Client{apiURL: u.String(), backend: b, sessions: session.Client{B: b, Key: cfg.SecretKey}}, nil
}

// String prints c without its secret key.
func (c *Client) String() string {
	return fmt.Sprintf("stripepay.Client{APIURL: %q, SecretKey: [redacted]}", c.apiURL)
}

// GoString prints c without its secret key.
func (c *Client) GoString() string { return c.String() }

// Format prints c as String does, whatever the verb, so that %+v cannot
// reach the key inside the session client.
func (c *Client) Format(f fmt.State, _ rune) { fmt.Fprint(f, c.String()) }

// translate adds ErrNotFound or ErrRefused to a Stripe refusal it stands
// for; other errors (network, 5xx, 409, 429 once retries are spent) pass
// unchanged.
func translate(err error) error {
	var se *stripe.Error
	if !errors.As(err, &se) {
		return err
	}
	switch s := se.HTTPStatusCode; {
	case s == http.StatusNotFound || se.Code == stripe.ErrorCodeResourceMissing:
		return &refusal{kind: ErrNotFound, api: se, err: err}
	case s >= 400 && s < 500 && s != http.StatusConflict && s != http.StatusTooManyRequests:
		return &refusal{kind: ErrRefused, api: se, err: err}
	}
	return err
}

// refusal is a Stripe refusal as the deposits port reads it
// (deposit.Refusal): errors.Is its kind, errors.As the *APIError.
type refusal struct {
	kind error
	api  *APIError
	err  error
}

func (r *refusal) Error() string          { return r.kind.Error() + ": " + r.err.Error() }
func (r *refusal) Unwrap() []error        { return []error{r.kind, r.err} }
func (r *refusal) RefusalCode() string    { return string(r.api.Code) }
func (r *refusal) RefusalMessage() string { return r.api.Msg }
