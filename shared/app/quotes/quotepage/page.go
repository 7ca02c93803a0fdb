package quotepage

import (
	"bytes"
	"context"
	"strings"
	"time"

	"github.com/a-h/templ"

	"github.com/moveleads/partnerapi/shared/app/htmlpage"
	"github.com/moveleads/partnerapi/shared/app/pipeline"
)

// Document is an HTML answer: status, headers and body, which the request
// pipeline returns and the edge sends as it is.
type Document = pipeline.Document

// Estimate types (quote.EstimateType values).
const (
	NonBinding         = "non_binding"
	Binding            = "binding"
	BindingNotToExceed = "binding_not_to_exceed"
)

// Quote stages (quote.Stage values).
const (
	StageOpen       = "open"
	StageAccepted   = "accepted"
	StageSigned     = "signed"
	StageExpired    = "expired"
	StageSuperseded = "superseded"
)

// Deposit statuses as getDeposit reports them (deposit.PublicDepositStatus),
// and "none" for a lead without a deposit.
const (
	DepositNone     = "none"
	DepositPending  = "pending"
	DepositPaid     = "paid"
	DepositFailed   = "failed"
	DepositRefunded = "refunded"
	DepositDisputed = "disputed"
)

// Page is what the quote page shows for one quote.
type Page struct {
	CompanyName      string // the mover's display name, e.g. "Demo Movers"; "" reads "the moving company"
	CarrierLegalName string // the carrier's legal name, e.g. "Demo Moving Services LLC"; may be ""
	USDOTNumber      string // e.g. "1234567"; may be ""
	EstimateType     string // NonBinding, Binding or BindingNotToExceed
	PriceCents       int64
	DepositCents     int64  // 0: no deposit required
	Currency         string // lowercase ISO 4217, e.g. "usd"
	ExpiresAt        time.Time
	Stage            string // StageOpen, StageAccepted, StageSigned, StageExpired or StageSuperseded
	AcceptedAt       *time.Time

	// Binding quotes only: the E-SIGN disclosure text, with the company
	// filled in (quote.DisclosureFor), and the liability options the signer
	// chooses from (quote.LiabilityOptions), in the order shown.
	Disclosure string
	Liability  []LiabilityOption

	// Move is what the price is for; nil for a quote made before quotes
	// carried their move. Copy is the signed copy of a signed quote.
	Move *Move
	Copy *SignedCopy

	// DepositStatus is the deposit's status: DepositNone, DepositPending,
	// DepositPaid, DepositFailed, DepositRefunded or DepositDisputed.
	// CheckoutURL is set only while the deposit's checkout is payable; the
	// page then links the Pay button straight to it.
	DepositStatus string
	CheckoutURL   string

	// AcceptPath and DepositPath are the page's own JSON calls, absolute
	// paths on the page's origin: "/v1-quote/<token>/accept" and
	// "/v1-quote/<token>/deposit".
	AcceptPath, DepositPath string

	// OnlineOff is set when the mover no longer takes acceptances or
	// deposits online (its deposits beta was turned off): a page that
	// would offer to accept, sign or pay is OnlineOffPage instead.
	OnlineOff bool
}

// LiabilityOption is one liability option as the page offers it.
type LiabilityOption struct {
	Election    string // "full_value_protection" or "released_value", sent as liability_election
	Title       string // e.g. "Full value protection"
	Explanation string // what it means, in plain words
	Cost        string // set by the page from Move: what it costs
}

// pageData is the quote-data JSON block the script reads.
type pageData struct {
	AcceptPath  string `json:"accept_path"`
	DepositPath string `json:"deposit_path"`
	Binding     bool   `json:"binding"`
	Company     string `json:"company"` // as a sentence starts: the script writes "Thank you. <company> has …"
}

// Render returns the quote page for p: status 200 with the headers of
// Headers. It does not fail: the assets are embedded and checked by the
// package's tests (should rendering fail anyway, it answers ErrorPage
// 500). What the page offers follows p.Stage: the acceptance
// form of the estimate type while open, the deposit once accepted or
// signed, and an explanation with whom to contact otherwise (an unknown
// stage included, so nothing can be accepted from a page the caller did
// not mean to be open). With p.OnlineOff a page that would offer to
// accept, sign or pay is OnlineOffPage (403) instead.
func Render(p Page) Document {
	layout := layoutOf(p.Stage, isBinding(p.EstimateType))
	dv := depositViewOf(p, layout)
	if p.OnlineOff && offersAction(layout, dv) {
		return OnlineOffPage(p.CompanyName)
	}
	body, err := renderHTML(quotePage(pageViewOf(p, layout, dv)))
	if err != nil {
		return ErrorPage(500, p.CompanyName)
	}
	return Document{Status: 200, Header: Headers(), Body: body}
}

// pageViewOf is what the page of p shows, with its layout and deposit
// block.
func pageViewOf(p Page, layout string, dv depositView) pageView {
	a := loadAssets()
	company := companyText(p.CompanyName)
	binding := isBinding(p.EstimateType)
	deposit := htmlpage.FormatMoney(p.DepositCents, p.Currency)
	depositText := "None required"
	next := ""
	if p.DepositCents > 0 {
		depositText = deposit
		next = "Next, you can pay the deposit of " + deposit + " to book your move."
	}
	done := doneTexts(p, binding, company)
	closed := closedTexts(p, company)
	liability := make([]LiabilityOption, len(p.Liability))
	for i, o := range p.Liability {
		o.Cost = liabilityCost(o.Election, p.Move, p.Currency, company)
		liability[i] = o
	}
	payLabel := "Pay deposit"
	if p.DepositCents > 0 {
		payLabel = "Pay deposit of " + deposit
	}
	return pageView{
		Layout: layout, CSS: a.CSS, JS: a.JS,
		Data:    pageData{AcceptPath: p.AcceptPath, DepositPath: p.DepositPath, Binding: binding, Company: upperFirst(company)},
		Brand:   brand(p.CompanyName),
		Company: company, CompanyStart: upperFirst(company),
		LegalName: strings.TrimSpace(p.CarrierLegalName), USDOT: strings.TrimSpace(p.USDOTNumber),
		PriceLabel: priceLabel(p.EstimateType), Price: htmlpage.FormatMoney(p.PriceCents, p.Currency),
		EstimateWords: estimateWords(p.EstimateType, p.Move != nil),
		DepositLabel:  depositLabel(p.DepositStatus), DepositText: depositText,
		Expiry: expiryOf(p),
		Next:   next, HideNext: next == "",
		Disclosure: paragraphs(p.Disclosure), Liability: liability,
		Move: moveViewOf(p.Move), Copy: copyViewOf(p.Copy, p.Liability), HideCopyLink: p.Stage != StageOpen || !binding,
		HideDone:  layout != layoutDone,
		DoneTitle: done.title, DoneText: done.text, DoneWhen: done.when,
		PayLabel: payLabel, HasDeposit: p.DepositCents > 0, Deposit: deposit,
		HidePay:            dv.kind != depositPay && dv.kind != depositLink,
		HideFailed:         !dv.failed,
		HidePayButton:      dv.kind == depositLink,
		HidePayLink:        dv.kind != depositLink,
		CheckoutURL:        dv.checkoutURL,
		HideNoDeposit:      dv.kind != depositNone,
		HideDepositStatus:  dv.kind != depositStatus,
		DepositStatusOK:    dv.class == "is-ok",
		DepositStatusTitle: dv.title, DepositStatusText: dv.text,
		ClosedTitle: closed.title, ClosedText: closed.text,
	}
}

// pageView is what quotePage and its sections show; templ escapes every
// value for its context (the checkout address as a URL), and writes Data
// as JSON that cannot end its element. CSS and JS are the embedded assets,
// inlined verbatim.
type pageView struct {
	Layout                                string
	CSS, JS                               string
	Data                                  pageData
	Brand, Company, CompanyStart          string
	LegalName, USDOT                      string
	PriceLabel, Price, EstimateWords      string
	DepositLabel, DepositText             string
	Expiry                                *expiryView
	Next                                  string
	HideNext                              bool
	Disclosure                            []paragraph
	Liability                             []LiabilityOption
	Move                                  *moveView
	Copy                                  *copyView
	HideCopyLink                          bool
	HideDone                              bool
	DoneTitle, DoneText                   string
	DoneWhen                              *whenView
	PayLabel, Deposit                     string
	HasDeposit                            bool
	HidePay, HideFailed, HidePayButton    bool
	HidePayLink, HideNoDeposit            bool
	HideDepositStatus                     bool
	CheckoutURL                           string
	DepositStatusOK                       bool // paid: the block is styled as good news
	DepositStatusTitle, DepositStatusText string
	ClosedTitle, ClosedText               string
}

// renderHTML renders c.
func renderHTML(c templ.Component) ([]byte, error) {
	var b bytes.Buffer
	if err := c.Render(context.Background(), &b); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// offersAction reports whether a page of layout and deposit block dv
// offers the customer something to do: accept, sign or pay.
func offersAction(layout string, dv depositView) bool {
	switch layout {
	case layoutSign, layoutAccept:
		return true
	case layoutDone:
		return dv.kind == depositPay || dv.kind == depositLink
	}
	return false
}

// depositLabel names the deposit in the quote's facts: what it is for
// until it was collected, then what became of it.
func depositLabel(status string) string {
	switch status {
	case DepositPaid:
		return "Deposit paid"
	case DepositRefunded:
		return "Deposit refunded"
	case DepositDisputed:
		return "Deposit (disputed)"
	}
	return "Deposit to book"
}

// layoutOf picks the page's sections from the quote's stage.
func layoutOf(stage string, binding bool) string {
	switch stage {
	case StageOpen:
		if binding {
			return layoutSign
		}
		return layoutAccept
	case StageAccepted, StageSigned:
		return layoutDone
	default:
		return layoutClosed
	}
}

// isBinding reports whether a quote of estimateType is signed rather than
// accepted with an email address.
func isBinding(estimateType string) bool {
	return estimateType == Binding || estimateType == BindingNotToExceed
}

// anyCompany stands in for a company without a name.
const anyCompany = "the moving company"

// companyText is the company as the page's sentences name it.
func companyText(company string) string {
	if strings.TrimSpace(company) == "" {
		return anyCompany
	}
	return company
}

// upperFirst is companyText's result at the start of a sentence: "The
// moving company"; a company's own name is left as it is written.
func upperFirst(company string) string {
	if company == anyCompany {
		return "The" + company[3:]
	}
	return company
}

func brand(company string) string {
	if strings.TrimSpace(company) == "" {
		return "Moving quote"
	}
	return company
}

// estimateWords says what kind of estimate the quote is, in plain words
// (49 CFR 375.401–405); "" for a type the page does not know. listed says
// the page lists the move's items and services, which a binding price
// then refers to.
func estimateWords(estimateType string, listed bool) string {
	switch estimateType {
	case NonBinding:
		return "Non-binding estimate — your final price may differ"
	case Binding:
		if listed {
			return "Binding estimate — the price will not change unless you add items or services to those listed under “Your move”"
		}
		return "Binding estimate — the price will not change unless you add items or services"
	case BindingNotToExceed:
		return "Not-to-exceed estimate — you pay this or less"
	}
	return ""
}

// priceLabel names the price as the estimate type makes it.
func priceLabel(estimateType string) string {
	switch estimateType {
	case NonBinding:
		return "Estimated price"
	case BindingNotToExceed:
		return "Most you will pay"
	}
	return "Price"
}

// timeView is a <time data-local> element: htmlpage.FormatTime's UTC
// text, which htmlpage.LocalTimeJS rewrites in the reader's time zone.
type timeView struct{ ISO, Text string }

func timeOf(t time.Time) timeView {
	return timeView{ISO: t.UTC().Format(time.RFC3339), Text: htmlpage.FormatTime(t)}
}

// expiryView is the "Valid until" row of the quote's details.
type expiryView struct {
	Label string
	At    timeView
}

// expiryOf is the expiry row: shown while the quote is open and once it
// expired, not when the date no longer matters (accepted, signed or
// replaced) nor when it is unknown (nil).
func expiryOf(p Page) *expiryView {
	if p.ExpiresAt.IsZero() {
		return nil
	}
	switch p.Stage {
	case StageOpen:
		return &expiryView{"Valid until", timeOf(p.ExpiresAt)}
	case StageExpired:
		return &expiryView{"Expired", timeOf(p.ExpiresAt)}
	}
	return nil
}

// paragraph is one paragraph of the E-SIGN disclosure, its line breaks
// kept.
type paragraph struct {
	Title bool
	Lines []string
}

// paragraphs splits the E-SIGN disclosure: a blank line between
// paragraphs, a line break kept within one. A first paragraph that is one
// short line without a full stop is the text's title ("Agreeing to sign
// electronically") and is shown as one.
func paragraphs(text string) []paragraph {
	text = strings.ReplaceAll(strings.ReplaceAll(text, "\r\n", "\n"), "\r", "\n")
	var out []paragraph
	for _, para := range strings.Split(text, "\n\n") {
		para = strings.TrimSpace(para)
		if para == "" {
			continue
		}
		title := len(out) == 0 && len(para) <= 80 && !strings.ContainsAny(para, "\n.")
		out = append(out, paragraph{Title: title, Lines: strings.Split(para, "\n")})
	}
	return out
}

// disclosureHTML is the markup of the disclosure, as the page shows it.
func disclosureHTML(text string) string {
	b, err := renderHTML(disclosureParagraphs(paragraphs(text)))
	if err != nil {
		return ""
	}
	return string(b)
}

// doneView is what the accepted state says above the deposit.
type doneView struct {
	title, text string
	when        *whenView // when it was accepted; nil when not said
}

// whenView says when the quote was accepted or signed.
type whenView struct {
	Verb string // "accepted" or "signed"
	At   timeView
}

// doneTexts words the accepted state. While the quote is open the section
// is hidden, worded for the acceptance the form makes, and the script sets
// its title again from the call's answer.
func doneTexts(p Page, binding bool, company string) doneView {
	signed := p.Stage == StageSigned || (p.Stage == StageOpen && binding)
	v := doneView{title: "Quote accepted", text: "Thank you. " + upperFirst(company) + " has your acceptance."}
	verb := "accepted"
	if signed {
		v = doneView{title: "Quote signed", text: "Thank you. " + upperFirst(company) + " has your signed quote."}
		verb = "signed"
	}
	if p.AcceptedAt != nil && !p.AcceptedAt.IsZero() && p.Stage != StageOpen {
		v.when = &whenView{Verb: verb, At: timeOf(*p.AcceptedAt)}
	}
	return v
}

// closedView is what a quote that can no longer be accepted says.
type closedView struct{ title, text string }

func closedTexts(p Page, company string) closedView {
	switch p.Stage {
	case StageExpired:
		return closedView{"This quote has expired",
			"It can no longer be accepted. To go ahead with your move, please contact " + company + " for a new quote."}
	case StageSuperseded:
		return closedView{"This quote has been replaced",
			upperFirst(company) + " has sent you a newer quote, so this one can no longer be accepted. Look for the newer link in your messages, or contact " + company + "."}
	}
	return closedView{"This quote can’t be accepted online", "Please contact " + company + " about this quote."}
}
