package quote_test

import (
	"fmt"
	"time"

	"github.com/moveleads/partnerapi/shared/domain/errcode"
	"github.com/moveleads/partnerapi/shared/domain/lead"
	"github.com/moveleads/partnerapi/shared/domain/quote"
)

func ExampleDecide() {
	now := time.Date(2025, 6, 2, 15, 0, 0, 0, time.UTC)
	in, err := quote.ParseCreate([]byte(`{"estimate_type":"non_binding","price_cents":245000,"deposit_cents":25000,"expires_in_days":14}`))
	if err != nil {
		panic(err)
	}
	q := quote.Build("q-1", "lead-1", "6f1c2a8e-2b44-4d4e-9a57-3c1f5b2d7e90", in, quote.Move{}, quote.Issuer{CompanyName: "Ada Movers LLC", Currency: "usd"}, now)
	status, _ := quote.LeadStatusAfterQuote(lead.Surveying)
	fmt.Println("quote", q.Stage, "expires", q.ExpiresAt.Format(time.DateOnly), "lead", status)

	req, _ := quote.ParseAccept([]byte(`{"accepter_email":"ada@example.com"}`), quote.CheckSignaturePNG)
	ip := quote.EvidenceInput{IP: "203.0.113.7"}
	d, _ := quote.Decide(&q, nil, req, status, now.Add(time.Hour), ip)
	fmt.Println(d.Acceptance.Mode, "changed", d.Changed, "lead", d.LeadStatus, "deposit required", d.Quote.DepositRequired())

	// The same again changes nothing; another email is a conflict.
	d2, _ := quote.Decide(&d.Quote, &d.Acceptance, req, d.LeadStatus, now.Add(2*time.Hour), ip)
	fmt.Println(d2.Acceptance.Mode, "changed", d2.Changed)
	other, _ := quote.ParseAccept([]byte(`{"accepter_email":"bob@example.com"}`), quote.CheckSignaturePNG)
	_, err = quote.Decide(&d.Quote, &d.Acceptance, other, d.LeadStatus, now.Add(2*time.Hour), ip)
	e := errcode.As(err)
	fmt.Println(errcode.Status(e.Code), e.Code)
	// Output:
	// quote open expires 2025-06-16 lead quoted
	// accepted changed true lead accepted deposit required true
	// accepted changed false
	// 409 quote_already_accepted
}
