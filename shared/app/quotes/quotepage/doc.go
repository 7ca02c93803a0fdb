// Package quotepage renders the hosted quote page: the page a moving
// company's customer opens from a quote link (/v1-quote/{token}) to read a
// moving quote, accept it (a non-binding estimate, with an email address)
// or sign it (a binding or not-to-exceed estimate: name, email, liability
// option, E-SIGN consent and a drawn signature), and then pay the deposit
// that books the move.
//
// [Render] renders a [Page] in any state (open, accepted or signed with
// each deposit status, expired, superseded) on the server; [ErrorPage]
// answers an unknown, expired or replaced link. The page's script makes its JSON
// calls only to Page.AcceptPath and Page.DepositPath on its own origin, and
// paying is a top-level navigation to the checkout address the deposit call
// answers (or Page.CheckoutURL); it makes no request to a third party. The
// markup is templ components (page.templ, error.templ; the generated
// x_templ.go files are committed: make generate).
//
// The package does no I/O and imports no AWS or HTTP package: the v1-quote
// function looks the quote up and hands Render a Page.
//
// Design (inlined assets allowed by hash, templ over html/template): the
// page section of docs/CAPTURE.md; the flow: docs/QUOTES.md,
// docs/DEPOSITS.md.
package quotepage
