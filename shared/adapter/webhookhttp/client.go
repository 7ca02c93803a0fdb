package webhookhttp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"time"
)

// UserAgent is sent with every delivery, so partners can recognise our
// requests in their logs and firewalls. A caller's User-Agent header is
// replaced by it.
const UserAgent = "MoveLeads-Webhooks/1.0"

// DefaultTimeout bounds one delivery when Options.Timeout is zero.
const DefaultTimeout = 10 * time.Second

// MaxBody is how much of an answer's body Post reads and returns: enough
// to show a partner's error message in the delivery log, and no more, so
// an endpoint cannot make a delivery slow or large by answering at length.
const MaxBody = 1 << 10

// Options configure a Client. The zero value is the deployed
// configuration.
type Options struct {
	// Timeout bounds each delivery: resolving, connecting, the TLS
	// handshake, the answer's headers and reading the first MaxBody bytes
	// of its body. Zero or less means DefaultTimeout.
	Timeout time.Duration
	// AllowLoopback lets TEST-mode deliveries reach 127.0.0.0/8 and ::1,
	// so a local stack can deliver to servers on the developer's machine.
	// The deployed stack never sets it. It relaxes nothing else: private,
	// link-local and metadata addresses stay refused, and live-mode
	// deliveries refuse loopback whatever it says.
	AllowLoopback bool
	// Resolver resolves endpoint hosts; nil means net.DefaultResolver.
	// Tests set one that asks a local DNS server, to make names resolve to
	// refused addresses.
	Resolver *net.Resolver
}

// Response is a partner endpoint's answer to one delivery.
type Response struct {
	Status  int           // the HTTP status, 3xx included: redirects are not followed
	Body    []byte        // at most the first MaxBody bytes of the body
	Latency time.Duration // from the start of the delivery until Body was read
}

// Client delivers webhooks. Build one with New, once per process
// (outside the Lambda handler), and share it: it is safe for concurrent
// use, and it keeps connections alive between deliveries, in pools of its
// own that no other client shares.
type Client struct {
	timeout time.Duration
	live    pool // live-mode deliveries: loopback always refused
	test    pool // test-mode deliveries: loopback as Options.AllowLoopback says
}

// pool is one policy's dialer and the HTTP client whose connections it
// opens.
type pool struct {
	dialer *dialer
	http   *http.Client
}

// New returns a Client configured by o.
func New(o Options) *Client {
	timeout := o.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	resolver := o.Resolver
	if resolver == nil {
		resolver = net.DefaultResolver
	}
	return &Client{
		timeout: timeout,
		live:    newPool(newDialer(resolver, false)),
		test:    newPool(newDialer(resolver, o.AllowLoopback)),
	}
}

func newPool(d *dialer) pool {
	return pool{
		dialer: d,
		http: &http.Client{
			Transport: &http.Transport{
				Proxy:                  nil, // never HTTP(S)_PROXY: the proxy would connect where we refuse to
				DialContext:            d.dialContext,
				DisableCompression:     true, // Body is the bytes the endpoint sent
				MaxIdleConnsPerHost:    2,
				IdleConnTimeout:        30 * time.Second,
				MaxResponseHeaderBytes: 64 << 10,
			},
			CheckRedirect: func(*http.Request, []*http.Request) error {
				return http.ErrUseLastResponse
			},
			// No Jar: cookies an endpoint sets are dropped.
		},
	}
}

// Post delivers body, a JSON document, to endpoint with the given headers,
// and returns the answer's status, the first MaxBody bytes of its body
// and the latency. live selects the rules: https only and never loopback
// for live mode. Content-Type is application/json unless headers set it;
// User-Agent is always UserAgent.
//
// Any status is a Response and not an error, 3xx, 4xx and 5xx included:
// the caller decides what counts as delivered. Once the status has
// arrived the outcome is known, so a body that stalls or breaks off is
// not an error either; Body holds what arrived in time.
//
// Post fails, before connecting, with an error wrapping ErrInvalidURL
// when CheckURL rejects endpoint for this mode, and with a *RefusedError
// (errors.Is ErrRefusedAddress) when the host is or resolves to a refused
// address. It fails with an error wrapping context.DeadlineExceeded when
// the timeout runs out before the answer's headers, and with the network
// error when resolving or connecting fails. On failure, Response holds
// only the Latency, which is zero when the URL was rejected. Errors name the host, never the path or query.
func (c *Client) Post(ctx context.Context, endpoint string, live bool, headers map[string]string, body []byte) (Response, error) {
	if err := CheckURL(endpoint, live); err != nil {
		return Response{}, err
	}
	p := c.test
	if live {
		p = c.live
	}
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, bytes.NewReader(body))
	if err != nil {
		return Response{}, fmt.Errorf("%w: cannot be parsed", ErrInvalidURL)
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	if req.Header.Get("Content-Type") == "" {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("User-Agent", UserAgent)

	start := time.Now()
	resp, err := p.http.Do(req)
	if err != nil {
		// *url.Error quotes the whole URL; keep only what went wrong.
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return Response{Latency: time.Since(start)}, fmt.Errorf("post to %s: %w", req.URL.Host, err)
	}
	defer resp.Body.Close()
	// A read error (the deadline, a reset) only cuts the excerpt short:
	// the status has arrived, and it is what the caller acts on.
	excerpt, _ := io.ReadAll(io.LimitReader(resp.Body, MaxBody))
	return Response{Status: resp.StatusCode, Body: excerpt, Latency: time.Since(start)}, nil
}

// CloseIdleConnections closes the connections the client keeps alive
// between deliveries. Deliveries still in flight are not affected.
func (c *Client) CloseIdleConnections() {
	c.live.http.CloseIdleConnections()
	c.test.http.CloseIdleConnections()
}
