package stripelocal

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"html/template"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/moveleads/partnerapi/shared/app/pipeline"
	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/domain/deposit"
	"github.com/moveleads/partnerapi/shared/domain/errcode"
	"github.com/moveleads/partnerapi/shared/domain/partner"
)

// Store is what the page reads: the session's deposit, as opctl deposit
// simulate reads it, and its mover.
type Store interface {
	GetDeposit(ctx context.Context, t auth.Tenant, id string) (deposit.Deposit, error)
	GetPartner(ctx context.Context, id string) (partner.Partner, error)
}

// Outcome is one of the page's buttons and the deposit event it sends.
type Outcome struct {
	Name, Label, Says string
	Event             deposit.Event
	// Success sends the customer to the session's success_url, else to
	// its cancel_url.
	Success bool
}

// Outcomes are the page's buttons. "Payment fails" sends
// checkout.session.async_payment_failed: a card Stripe declines never
// leaves its checkout page, so a failed deposit comes from a payment
// method that settles later.
var Outcomes = []Outcome{
	{"paid", "Pay (succeeds)", "Sends checkout.session.completed, paid: the deposit is paid and the lead booked.", deposit.EventPaid, true},
	{"failed", "Payment fails", "Sends checkout.session.async_payment_failed: the deposit fails.", deposit.EventAsyncFailed, false},
	{"expired", "Let it expire", "Sends checkout.session.expired: the deposit fails and this link stops working.", deposit.EventExpired, false},
}

// maxForm bounds the page's form.
const maxForm = 4 << 10

// ParseOutcome reads the page's form: the session id and the button
// pressed. It fails with validation_failed naming the field.
func ParseOutcome(session, outcome string) (string, Outcome, error) {
	fields := errcode.FieldErrors{}
	if !strings.HasPrefix(session, "cs_") || len(session) > 255 || strings.ContainsFunc(session, func(r rune) bool {
		return !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || r == '_')
	}) {
		fields.Add("session", "want a Checkout Session id, cs_…")
	}
	var o Outcome
	for _, c := range Outcomes {
		if c.Name == outcome {
			o = c
		}
	}
	if o.Name == "" {
		fields.Add("outcome", "want paid, failed or expired")
	}
	if err := fields.Err(); err != nil {
		return "", Outcome{}, err
	}
	return session, o, nil
}

// Page serves CheckoutPath: GET shows a session's page (404 for a session
// it does not know); POST sends the outcome chosen as the signed Stripe
// event for the session's deposit, with secret, to the stack's
// stripe-webhook receiver, then sends the customer on (303) to the
// success or cancel URL, as Stripe does. A bad form is 422, an unknown
// session 404, one already settled 409, a receiver that refuses the event
// 502 (the session stays open): the API's error body each time.
func (c *Checkout) Page(store Store, secret string, log *slog.Logger) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.Method {
		case http.MethodGet, http.MethodHead:
			c.show(w, r, store)
		case http.MethodPost:
			r.Body = http.MaxBytesReader(w, r.Body, maxForm)
			if err := r.ParseForm(); err != nil {
				apiError(w, errcode.New(errcode.BadRequest, "The form could not be read."))
				return
			}
			to, err := c.send(r.Context(), store, secret, r.PostForm.Get("session"), r.PostForm.Get("outcome"))
			if err != nil {
				if errcode.As(err) == nil || errcode.As(err).Code == errcode.UpstreamFailed {
					log.Error("local checkout", "error", err)
				}
				apiError(w, err)
				return
			}
			http.Redirect(w, r, to, http.StatusSeeOther)
		default:
			w.Header().Set("Allow", "GET, HEAD, POST")
			apiError(w, errcode.New(errcode.MethodNotAllowed, "The local checkout page takes GET and POST."))
		}
	})
}

// send delivers the outcome's event and returns where the customer goes.
func (c *Checkout) send(ctx context.Context, store Store, secret, id, outcome string) (string, error) {
	id, o, err := ParseOutcome(id, outcome)
	if err != nil {
		return "", err
	}
	s, ok := c.session(id)
	if !ok {
		return "", errcode.New(errcode.NotFound, "No checkout session %s was made through this stack.", id)
	}
	if !c.settle(id, o.Name) {
		return "", errcode.New(errcode.Conflict, "The checkout session already ended (%s); nothing was sent.", s.Outcome).WithDetail("outcome", s.Outcome)
	}
	if err := deliverOutcome(ctx, store, secret, c.base, s, o.Event); err != nil {
		c.settle(id, "")
		return "", err
	}
	if o.Success || s.CancelURL == "" {
		return s.SuccessURL, nil
	}
	return s.CancelURL, nil
}

// deliverOutcome sends session s's deposit the Stripe event e, as opctl
// deposit simulate does.
func deliverOutcome(ctx context.Context, store Store, secret, base string, s Session, e deposit.Event) error {
	d, err := store.GetDeposit(ctx, auth.Tenant{PartnerID: s.PartnerID, Mode: s.Mode}, s.DepositID)
	if err != nil {
		return fmt.Errorf("read deposit %s: %w", s.DepositID, err)
	}
	now := time.Now()
	payload, _, err := DepositEvent(d, e, NewEventID(), s.Mode, now)
	if err != nil {
		return err
	}
	status, body, err := Deliver(ctx, ReceiverURL(base, s.Mode), payload, secret, now, "make dev checkout page")
	if err != nil {
		return errcode.Upstream("deliver the Stripe event", err)
	}
	if status < 200 || status > 299 {
		return errcode.Upstream("deliver the Stripe event", fmt.Errorf("the receiver answered %d: %.200s", status, body)).
			WithDetail("receiver_status", status)
	}
	return nil
}

func apiError(w http.ResponseWriter, err error) {
	status, body := pipeline.Render(err)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// view is what the page template shows.
type view struct {
	Session  Session
	Mover    string
	Amount   string
	Outcomes []Outcome
	Ended    string
}

// show renders session's page.
func (c *Checkout) show(w http.ResponseWriter, r *http.Request, store Store) {
	s, ok := c.session(r.URL.Query().Get("session"))
	v := view{Session: s, Outcomes: Outcomes, Amount: formatAmount(s.AmountCents, s.Currency)}
	status := http.StatusOK
	switch {
	case !ok:
		status = http.StatusNotFound
	case s.Outcome != "":
		v.Ended = s.Outcome
	}
	if ok {
		v.Mover = s.Description
		if p, err := store.GetPartner(r.Context(), s.PartnerID); err == nil && p.Name != "" {
			v.Mover = p.Name
		}
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("Content-Security-Policy", "default-src 'none'; style-src '"+styleHash()+"'; base-uri 'none'; frame-ancestors 'none'")
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	_ = pageTemplate.Execute(w, struct {
		view
		Found bool
		Path  string
		CSS   template.CSS
	}{v, ok, CheckoutPath, template.CSS(pageCSS)})
}

// formatAmount writes cents of currency as "$250.00" (usd) or "250.00 CAD".
func formatAmount(cents int64, currency string) string {
	n := fmt.Sprintf("%d.%02d", cents/100, cents%100)
	if currency == "usd" {
		return "$" + n
	}
	return n + " " + strings.ToUpper(currency)
}

// styleHash is the CSP source of the page's one style element.
func styleHash() string {
	sum := sha256.Sum256([]byte(pageCSS))
	return "sha256-" + base64.StdEncoding.EncodeToString(sum[:])
}

const pageCSS = `
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1b1f24;background:#eef1f5}
main{max-width:30rem;margin:0 auto;padding:1rem}
.notice{background:#fff4d6;border:2px solid #b58100;border-radius:.5rem;padding:.75rem 1rem;margin:0 0 1rem}
.notice strong{display:block}
.card{background:#fff;border-radius:.75rem;padding:1.25rem;box-shadow:0 1px 3px rgba(0,0,0,.12)}
h1{font-size:1.25rem;margin:0 0 .25rem}
.amount{font-size:2.25rem;font-weight:700;margin:.5rem 0}
.muted{color:#55606e;font-size:.9rem}
form{margin:1rem 0 0}
button{display:block;width:100%;min-height:3rem;margin:.75rem 0 .25rem;border:0;border-radius:.5rem;font:inherit;font-weight:600;cursor:pointer}
button:focus-visible{outline:3px solid #1d4ed8;outline-offset:2px}
.paid{background:#15803d;color:#fff}
.failed{background:#b91c1c;color:#fff}
.expired{background:#e5e7eb;color:#1b1f24}
.says{margin:0 0 .5rem;font-size:.85rem;color:#55606e}
code{font-size:.85rem;word-break:break-all}
`

var pageTemplate = template.Must(template.New("checkout").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{if .Found}}Test checkout: {{.Amount}}{{else}}No such checkout{{end}} (local, not Stripe)</title>
<style>{{.CSS}}</style></head>
<body><main>
<p class="notice" role="note"><strong>Local test page, not Stripe.</strong> make dev shows this page instead of checkout.stripe.com. No card, no money: each button sends the Stripe event it names to this stack.</p>
<div class="card">
{{- if not .Found}}
<h1>No such checkout</h1>
<p>This stack made no checkout session with that id. A session lives as long as the make dev that made it: create the deposit again.</p>
{{- else}}
<h1>{{.Mover}}</h1>
<p class="muted">{{.Session.ProductName}}{{with .Session.Description}}: {{.}}{{end}}</p>
<p class="amount">{{.Amount}}</p>
{{- if .Ended}}
<p>This checkout has ended ({{.Ended}}); its buttons are gone.</p>
{{- else}}
<form method="post" action="{{.Path}}">
<input type="hidden" name="session" value="{{.Session.ID}}">
{{- range .Outcomes}}
<button type="submit" name="outcome" value="{{.Name}}" class="{{.Name}}">{{.Label}}</button>
<p class="says">{{.Says}}</p>
{{- end}}
</form>
{{- end}}
<p class="muted">Session <code>{{.Session.ID}}</code> on <code>{{.Session.Account}}</code>, {{.Session.Mode}} mode, deposit <code>{{.Session.DepositID}}</code>. The same events: <code>go run ./scripts/opctl deposit simulate</code>.</p>
{{- end}}
</div>
</main></body></html>
`))
