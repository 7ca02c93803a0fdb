package stripelocal

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strconv"
	"strings"
	"sync"

	"github.com/moveleads/partnerapi/shared/domain/auth"
)

// CheckoutPath is where a Checkout stand-in's page is served: a session's
// page is CheckoutPath?session=cs_….
const CheckoutPath = "/_dev/checkout"

// sessionsPath is the Checkout Sessions API's path.
const sessionsPath = "/v1/checkout/sessions"

// maxCreateBody bounds a create request the proxy reads (stripe-go's are
// about 1 KiB).
const maxCreateBody = 64 << 10

// Checkout stands in for what Stripe hosts and stripe-mock does not: it
// proxies the Stripe API to stripe-mock, remembers each Checkout Session
// created through it, and answers the session's url with its own test
// page ([Checkout.Page]), which sends the session's outcome as a signed
// Stripe event. Local only (make dev): nothing deployed knows of it.
type Checkout struct {
	proxy *httputil.ReverseProxy
	base  string

	mu       sync.Mutex
	sessions map[string]*Session
}

// Session is a Checkout Session as its create request described it.
type Session struct {
	ID                           string
	Mode                         auth.Mode
	Account                      string // Stripe-Account
	DepositID, LeadID, PartnerID string // metadata
	AmountCents                  int64
	Currency                     string
	ProductName, Description     string
	SuccessURL, CancelURL        string
	// Outcome is the button pressed ("" while open).
	Outcome string
}

// NewCheckout returns a stand-in proxying to stripe-mock at apiURL, whose
// pages are under base (the local stack's origin).
func NewCheckout(apiURL, base string) (*Checkout, error) {
	target, err := url.Parse(apiURL)
	if err != nil || target.Host == "" {
		return nil, fmt.Errorf("stripelocal: stripe-mock URL %q: want http://host:port", apiURL)
	}
	c := &Checkout{base: strings.TrimSuffix(base, "/"), sessions: map[string]*Session{}}
	c.proxy = &httputil.ReverseProxy{
		Rewrite:        func(r *httputil.ProxyRequest) { r.SetURL(target) },
		ModifyResponse: c.rewrite,
	}
	return c, nil
}

// pending carries a create request's session, before stripe-mock names
// it, from the request to its response.
type pendingKey struct{}

// API is the Stripe API stripe-go talks to: stripe-mock's, with each
// Checkout Session's url pointing at the stand-in's page. A create it
// cannot read is 400, as Stripe answers.
func (c *Checkout) API() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && r.URL.Path == sessionsPath {
			body, err := io.ReadAll(io.LimitReader(r.Body, maxCreateBody+1))
			if err != nil || len(body) > maxCreateBody {
				stripeError(w, "the request body could not be read or is over 64 KiB")
				return
			}
			s, err := ReadCreate(body, r.Header)
			if err != nil {
				stripeError(w, err.Error())
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
			r = r.WithContext(context.WithValue(r.Context(), pendingKey{}, &s))
		}
		c.proxy.ServeHTTP(w, r)
	})
}

// stripeError answers 400 in Stripe's error shape.
func stripeError(w http.ResponseWriter, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusBadRequest)
	_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]string{"type": "invalid_request_error", "message": msg}})
}

// ReadCreate reads the session a create request (form-encoded, as
// stripe-go sends it) describes. It fails without the deposit's metadata,
// a success_url, one line item's amount and currency, or a secret key
// whose mode it can tell.
func ReadCreate(body []byte, h http.Header) (Session, error) {
	form, err := url.ParseQuery(string(body))
	if err != nil {
		return Session{}, fmt.Errorf("the body is not form-encoded: %w", err)
	}
	const price = "line_items[0][price_data]"
	s := Session{
		Account:   h.Get("Stripe-Account"),
		DepositID: form.Get("metadata[deposit_id]"), LeadID: form.Get("metadata[lead_id]"), PartnerID: form.Get("metadata[partner_id]"),
		Currency:    form.Get(price + "[currency]"),
		ProductName: form.Get(price + "[product_data][name]"), Description: form.Get(price + "[product_data][description]"),
		SuccessURL: form.Get("success_url"), CancelURL: form.Get("cancel_url"),
	}
	key := strings.TrimPrefix(h.Get("Authorization"), "Bearer ")
	switch {
	case strings.HasPrefix(key, "sk_test_"):
		s.Mode = auth.Test
	case strings.HasPrefix(key, "sk_live_"):
		s.Mode = auth.Live
	default:
		return Session{}, errors.New("no secret key of a known mode (sk_test_… or sk_live_…)")
	}
	if s.AmountCents, err = strconv.ParseInt(form.Get(price+"[unit_amount]"), 10, 64); err != nil || s.AmountCents <= 0 {
		return Session{}, errors.New("line_items[0][price_data][unit_amount]: want a positive integer")
	}
	switch {
	case s.DepositID == "" || s.LeadID == "" || s.PartnerID == "":
		return Session{}, errors.New("metadata deposit_id, lead_id and partner_id are required")
	case s.Currency == "" || s.Account == "":
		return Session{}, errors.New("a currency and a Stripe-Account are required")
	case !absoluteURL(s.SuccessURL) || (s.CancelURL != "" && !absoluteURL(s.CancelURL)):
		return Session{}, errors.New("success_url and cancel_url: want absolute http(s) URLs")
	}
	return s, nil
}

func absoluteURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}

// rewrite records a created session and points the url of a session it
// knows at its page (null once an outcome was chosen, as Stripe's is once
// complete or expired).
func (c *Checkout) rewrite(resp *http.Response) error {
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Request.URL.Path, sessionsPath) {
		return nil
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return fmt.Errorf("read stripe-mock's answer: %w", err)
	}
	var obj map[string]any
	if json.Unmarshal(body, &obj) == nil {
		if id, ok := obj["id"].(string); ok && id != "" {
			c.mu.Lock()
			if s, ok := resp.Request.Context().Value(pendingKey{}).(*Session); ok {
				s.ID = id
				c.sessions[id] = s
			}
			if s := c.sessions[id]; s != nil {
				obj["url"] = nil
				if s.Outcome == "" {
					obj["url"] = c.PageURL(id)
				}
				body, _ = json.Marshal(obj)
			}
			c.mu.Unlock()
		}
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	resp.ContentLength = int64(len(body))
	resp.Header.Set("Content-Length", strconv.Itoa(len(body)))
	return nil
}

// PageURL is session id's page.
func (c *Checkout) PageURL(id string) string {
	return c.base + CheckoutPath + "?session=" + url.QueryEscape(id)
}

// session returns a copy of session id, ok false when unknown.
func (c *Checkout) session(id string) (Session, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	s, ok := c.sessions[id]
	if !ok {
		return Session{}, false
	}
	return *s, true
}

// settle sets session id's outcome when it is still open, reporting
// whether it was; reopen ("" outcome) undoes it after a failed delivery.
func (c *Checkout) settle(id, outcome string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	s, ok := c.sessions[id]
	if !ok || (outcome != "" && s.Outcome != "") {
		return false
	}
	s.Outcome = outcome
	return true
}
