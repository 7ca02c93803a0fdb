// Package quotepage renders the hosted quote page: the page a moving
// company's customer opens from a quote link (/v1-quote/{token}) to read a
// moving quote, accept it (a non-binding estimate, with an email address)
// or sign it (a binding or not-to-exceed estimate: name, email, liability
// option, E-SIGN consent and a drawn signature), and then pay the deposit
// that books the move (docs/QUOTES.md, docs/DEPOSITS.md).
//
// Like the capture page (shared/app/surveys/capturepage) it is one HTML document whose
// stylesheet and script are inlined from files embedded in the binary
// (assets/) and allowed by the Content-Security-Policy through their
// SHA-256 hashes, never by 'unsafe-inline'. The markup is made of templ
// components (page.templ and its sections, error.templ; their generated
// x_templ.go files are committed: `make generate`), which escape every
// value for its context. It is not html/template: that executor's
// reflective method lookup keeps every method of every linked type in the
// binary. What the script needs (the page's two JSON calls, the kind of
// quote, the company) travels in a <script type="application/json"
// id="quote-data"> block of encoding/json output, which the browser never
// executes. The page makes no request to a third party: its JSON calls go
// to Page.AcceptPath and Page.DepositPath on its own origin, and paying is
// a top-level navigation to the checkout address the deposit call answers
// (or Page.CheckoutURL).
//
// Every state is rendered on the server (open, accepted or signed with each
// deposit status, expired, superseded), so reopening the link shows where
// the customer is; the script only moves from the form to the accepted
// state after a successful call, without a reload.
//
// The package does no I/O and imports no AWS or HTTP package: the v1-quote
// function looks the quote up and hands Render a Page, or answers ErrorPage
// for an unknown, expired or replaced link.
package quotepage
