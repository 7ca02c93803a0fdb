package quotepage

import (
	"net/url"
	"strings"

	"github.com/moveleads/partnerapi/shared/app/htmlpage"
)

// Kinds of deposit block the accepted state shows.
const (
	depositPay    = "pay"    // a Pay button that asks DepositPath for a checkout
	depositLink   = "link"   // a Pay button linking straight to CheckoutURL
	depositNone   = "none"   // no deposit is needed
	depositStatus = "status" // paid, processing, refunded or disputed: nothing to pay
)

// depositView is the deposit block of the accepted state.
type depositView struct {
	kind        string
	failed      bool   // depositPay after a payment that did not go through
	checkoutURL string // depositLink's address
	class       string // depositStatus: "is-ok" for paid, "" otherwise
	title, text string // depositStatus's words
}

// depositViewOf decides the deposit block. Money already moved decides
// first (paid, refunded, disputed), then a payable checkout (CheckoutURL),
// then a payment waiting for the bank (pending); otherwise the quote's
// deposit asks for a payment (none or failed, or a status the page does
// not know: the deposit call refuses a deposit that cannot be paid) or
// for nothing. While the quote is open the block is hidden, and offers
// the Pay button, which the script shows when the acceptance says a
// deposit is required.
func depositViewOf(p Page, layout string) depositView {
	company := companyText(p.CompanyName)
	if layout != layoutDone {
		return depositView{kind: depositPay}
	}
	amount := ""
	if p.DepositCents > 0 {
		amount = " of " + htmlpage.FormatMoney(p.DepositCents, p.Currency)
	}
	switch p.DepositStatus {
	case DepositPaid:
		return depositView{kind: depositStatus, class: "is-ok",
			title: "Deposit received — your move is booked",
			text:  upperFirst(company) + " has your deposit" + amount + ". They will be in touch about the next steps."}
	case DepositRefunded:
		return depositView{kind: depositStatus, title: "Deposit refunded",
			text: upperFirst(company) + " has refunded your deposit" + amount + ". If you have questions, please contact them."}
	case DepositDisputed:
		return depositView{kind: depositStatus, title: "Deposit payment disputed",
			text: "The deposit payment is being disputed with your bank. Please contact " + company + " about your booking."}
	}
	if u, ok := checkoutURL(p.CheckoutURL); ok {
		return depositView{kind: depositLink, checkoutURL: u}
	}
	switch {
	case p.DepositStatus == DepositPending:
		return depositView{kind: depositStatus, title: "Payment processing",
			text: "Your deposit payment was sent and is waiting for your bank to confirm it. Your move is booked as soon as it arrives. You don’t need to pay again."}
	case p.DepositCents <= 0:
		return depositView{kind: depositNone}
	}
	return depositView{kind: depositPay, failed: p.DepositStatus == DepositFailed}
}

// checkoutURL returns s when it is an absolute http or https address with
// a host, which the page may link to, and false otherwise (a javascript:
// or relative address, white space, a user name), in which case the page
// asks DepositPath for a checkout instead.
func checkoutURL(s string) (string, bool) {
	if s == "" || strings.ContainsAny(s, " \t\r\n\\\"'<>`") {
		return "", false
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.User != nil || u.Opaque != "" {
		return "", false
	}
	return s, true
}
