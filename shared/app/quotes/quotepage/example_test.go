package quotepage_test

import (
	"fmt"
	"time"

	"github.com/moveleads/partnerapi/shared/app/quotes/quotepage"
)

// The v1-quote function hands Render the quote as the customer should see
// it, with the page's own JSON calls; the answer is sent as it is.
func ExampleRender() {
	doc := quotepage.Render(quotepage.Page{
		CompanyName:   "Demo Movers",
		EstimateType:  quotepage.NonBinding,
		PriceCents:    245000,
		DepositCents:  25000,
		Currency:      "usd",
		ExpiresAt:     time.Date(2026, 11, 30, 10, 15, 0, 0, time.UTC),
		Stage:         quotepage.StageOpen,
		DepositStatus: quotepage.DepositNone,
		AcceptPath:    "/v1-quote/TOKEN/accept",
		DepositPath:   "/v1-quote/TOKEN/deposit",
	})
	fmt.Println(doc.Status, doc.Header["Content-Type"], doc.Header["Cache-Control"])
	// Output: 200 text/html; charset=utf-8 no-store
}

// A link to a quote that a newer one replaced gets a 409 page that says
// so and whom to contact.
func ExampleErrorPage() {
	doc := quotepage.ErrorPage(409, "Demo Movers")
	fmt.Println(doc.Status, doc.Header["Referrer-Policy"])
	// Output: 409 no-referrer
}
