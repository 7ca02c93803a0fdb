package quotepage

import (
	"bytes"
	"encoding/json"
	"io"
	"regexp"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"

	"github.com/moveleads/partnerapi/shared/app/htmlpage"
	"github.com/moveleads/partnerapi/shared/testkit/htmltest"
)

// disclosure is the E-SIGN disclosure as quote.DisclosureFor fills it in
// (abridged: the page shows whatever text it is given).
const disclosure = `Agreeing to sign electronically

By ticking the box below, you agree that Demo Movers may give you this estimate, your signed copy of it and the other records of this move electronically, and that your electronic signature counts as your handwritten signature.

Paper copies. You can ask Demo Movers for a paper copy of any of these records at any time, free of charge.

Changing your mind. You can withdraw this consent at any time by contacting Demo Movers. From then on, Demo Movers will give you the records of this move on paper. Withdrawing does not undo a signature you already gave.

What you need. A phone, tablet or computer with an up-to-date web browser, an email address, and a way to save or print a web page or a PDF file. If this changes in a way that stops you seeing or keeping the records, Demo Movers will tell you.`

// liability are the options of quote.LiabilityOptions.
var liability = []LiabilityOption{
	{Election: "full_value_protection", Title: "Full value protection",
		Explanation: "If anything is lost or damaged, the mover must repair it, replace it with a similar item, or pay you what it costs to repair or replace it today, up to the total value you declare for the shipment. " +
			"The law makes this the standard protection for moves between states, and the mover may charge for it. " +
			"Items worth more than $100 per pound (jewelry, art, antiques) are covered in full only if you list them in writing before the move."},
	{Election: "released_value", Title: "Released value",
		Explanation: "Included at no extra cost, but the protection is minimal: the mover pays no more than 60 cents per pound per article. " +
			"For example, if a 10-pound laptop worth $1,000 is lost or destroyed, the mover pays $6.00 (10 pounds × $0.60). " +
			"You must choose this option in writing, by selecting it here."},
}

var (
	expiresAt  = time.Date(2026, 11, 30, 10, 15, 0, 0, time.UTC)
	acceptedAt = time.Date(2026, 11, 20, 16, 5, 0, 0, time.FixedZone("EST", -5*3600))
)

// bindingPage is an open binding quote of $2,450.00 with a $250.00
// deposit.
func bindingPage() Page {
	return Page{
		CompanyName:      "Demo Movers",
		CarrierLegalName: "Demo Moving Services LLC",
		USDOTNumber:      "1234567",
		EstimateType:     Binding,
		PriceCents:       245000,
		DepositCents:     25000,
		Currency:         "usd",
		ExpiresAt:        expiresAt,
		Stage:            StageOpen,
		Disclosure:       disclosure,
		Liability:        liability,
		DepositStatus:    DepositNone,
		AcceptPath:       "/v1-quote/tok/accept",
		DepositPath:      "/v1-quote/tok/deposit",
		Move:             testMove(),
	}
}

// testMove is a surveyed move of ten items in two rooms, with a piano,
// two services and full value protection at $450.00.
func testMove() *Move {
	fv := int64(45000)
	return &Move{
		FromAddress: "1 Main St, New York, NY 10001", ToAddress: "9 Oak Ave, Boston, MA 02108", MoveDate: "2027-01-15",
		Inventory: []InventoryLine{
			{"Living room", "Sofa, 3 seats", 1}, {"Living room", "Armchair", 2}, {"Living room", "TV, large", 1},
			{"Living room", "Bookcase", 2}, {"Bedroom", "Bed, queen", 1}, {"Bedroom", "Dresser", 1}, {"Bedroom", "Nightstand", 2},
		},
		SpecialItems: []string{"Piano (upright)"}, Services: []string{"Packing of fragile items", "Disassembly and reassembly of beds"},
		FullValueCents: &fv,
	}
}

// signedCopy is the copy of signedPage's signature.
func signedCopy() *SignedCopy {
	return &SignedCopy{
		SignerName: "Ada Lovelace", SignerEmail: "ada@example.com", SignedAt: acceptedAt,
		EvidenceHash: "0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a69788796a5b4c3d2e1f0", Liability: "full_value_protection",
		SignaturePNG: tinyPNG,
	}
}

// nonBindingPage is an open non-binding quote without a deposit.
func nonBindingPage() Page {
	p := bindingPage()
	p.EstimateType = NonBinding
	p.DepositCents = 0
	p.Disclosure, p.Liability = "", nil
	p.CarrierLegalName, p.USDOTNumber = "", ""
	return p
}

// signedPage is bindingPage signed, its deposit not yet asked for.
func signedPage() Page {
	p := bindingPage()
	p.Stage = StageSigned
	p.AcceptedAt = &acceptedAt
	p.Copy = signedCopy()
	return p
}

// render renders p and returns its elements, failing on broken markup or
// an id used twice.
func render(t *testing.T, p Page) (Document, []htmltest.Element, map[string]htmltest.Element) {
	t.Helper()
	doc := Render(p)
	if doc.Status != 200 {
		t.Fatalf("status %d; want 200", doc.Status)
	}
	els := htmltest.Parse(t, doc.Body)
	htmltest.IDs(t, els)
	byID := map[string]htmltest.Element{}
	for _, e := range els {
		if id := e.Attrs["id"]; id != "" {
			byID[id] = e
		}
	}
	return doc, els, byID
}

// shownText is roughly what a person reads of a rendered page: the text
// of its body, but for elements that are hidden (and all inside them),
// scripts and <noscript>, with white space collapsed. Block elements are
// separated by a space, inline ones are not.
func shownText(t *testing.T, body []byte) string {
	t.Helper()
	inline := map[string]bool{"strong": true, "span": true, "time": true, "a": true, "b": true, "em": true, "br": false}
	skip := map[string]bool{"script": true, "style": true, "noscript": true, "title": true, "head": true}
	z := html.NewTokenizer(bytes.NewReader(body))
	var stack []bool // whether each open element hides its content
	var b strings.Builder
	for {
		tt := z.Next()
		switch tt {
		case html.ErrorToken:
			if z.Err() != io.EOF {
				t.Fatalf("tokenize: %v", z.Err())
			}
			return strings.Join(strings.Fields(b.String()), " ")
		case html.StartTagToken, html.SelfClosingTagToken:
			tok := z.Token()
			if !inline[tok.Data] {
				b.WriteString(" ")
			}
			if tt == html.SelfClosingTagToken || voidTags[tok.Data] {
				continue
			}
			hide := skip[tok.Data] || (len(stack) > 0 && stack[len(stack)-1])
			for _, a := range tok.Attr {
				if a.Key == "hidden" {
					hide = true
				}
			}
			stack = append(stack, hide)
		case html.EndTagToken:
			tok := z.Token()
			if !inline[tok.Data] {
				b.WriteString(" ")
			}
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
		case html.TextToken:
			if len(stack) == 0 || !stack[len(stack)-1] {
				b.WriteString(html.UnescapeString(string(z.Text())))
			}
		}
	}
}

var voidTags = map[string]bool{"meta": true, "input": true, "br": true, "img": true, "link": true, "hr": true, "source": true}

func TestRenderOpenBindingQuote(t *testing.T) {
	doc, els, byID := render(t, bindingPage())
	text := shownText(t, doc.Body)
	for _, w := range []string{
		"Your moving quote", "From Demo Movers", "Demo Moving Services LLC · USDOT 1234567",
		"Price $2,450.00", "Binding estimate — the price will not change unless you add items or services",
		"Deposit to book $250.00", "Valid until Monday, November 30, 2026 at 10:15 AM UTC",
		"Sign this quote", "Full name", "Email address", "How should your belongings be protected?",
		"Full value protection", "Released value", "60 cents per pound per article",
		"Paper copies. You can ask Demo Movers for a paper copy", "I agree to sign electronically",
		"Your signature", "Clear signature", "Next, you can pay the deposit of $250.00 to book your move.",
		"Sign and accept quote",
	} {
		if !strings.Contains(text, w) {
			t.Errorf("the page does not say %q:\n%s", w, text)
		}
	}
	for _, absent := range []string{"Quote signed", "Pay deposit", "Accept quote"} {
		if strings.Contains(text, absent) {
			t.Errorf("an open quote's page shows %q", absent)
		}
	}
	// The disclosure keeps its paragraphs, in a box that scrolls and that
	// a keyboard can reach.
	var box htmltest.Element
	paras := 0
	for i, e := range els {
		if e.Attrs["class"] == "disclosure" {
			box = e
			for _, p := range els[i+1:] {
				if p.Tag == "p" && strings.Contains(box.Text, p.Text) {
					paras++
				}
			}
			break
		}
	}
	if box.Attrs["tabindex"] != "0" || box.Attrs["role"] != "region" || box.Attrs["aria-labelledby"] == "" {
		t.Errorf("disclosure box %v; want a focusable, named region", box.Attrs)
	}
	if paras < 5 {
		t.Errorf("the disclosure shows %d paragraphs; want its 5", paras)
	}
	if got := htmltest.ByClass(els, "disclosure-title"); len(got) != 1 || got[0].Text != "Agreeing to sign electronically" {
		t.Errorf("disclosure title %+v; want its first line", got)
	}
	// The liability options: radios of one group, none chosen, each named
	// by its title and described by its explanation.
	var radios []htmltest.Element
	for _, e := range els {
		if e.Tag == "input" && e.Attrs["type"] == "radio" {
			radios = append(radios, e)
		}
	}
	if len(radios) != 2 {
		t.Fatalf("%d radios; want 2", len(radios))
	}
	for i, r := range radios {
		if r.Attrs["name"] != "liability" || r.Attrs["value"] != liability[i].Election {
			t.Errorf("radio %d = %v", i, r.Attrs)
		}
		if _, ok := r.Attrs["checked"]; ok {
			t.Errorf("radio %d is chosen already", i)
		}
		if got := byID[r.Attrs["aria-labelledby"]].Text; got != liability[i].Title {
			t.Errorf("radio %d is named %q; want %q", i, got, liability[i].Title)
		}
		cost := []string{"Cost: $450.00 on top of the price.", "Cost: included in the price, at no extra cost."}[i]
		if got, want := byID[r.Attrs["aria-describedby"]].Text, liability[i].Explanation+" "+cost; got != want {
			t.Errorf("radio %d is described by %q; want %q", i, got, want)
		}
	}
	if c := byID["esign-consent"]; c.Tag != "input" || c.Attrs["type"] != "checkbox" {
		t.Errorf("consent = %+v; want a checkbox", c)
	}
	if _, ok := byID["esign-consent"].Attrs["checked"]; ok {
		t.Error("the consent box is ticked already")
	}
	if c := byID["signature"]; c.Tag != "canvas" || c.Attrs["aria-labelledby"] != "signature-label" {
		t.Errorf("signature pad = %+v", c)
	}
	data := quoteData(t, els)
	if want := (pageData{AcceptPath: "/v1-quote/tok/accept", DepositPath: "/v1-quote/tok/deposit", Binding: true, Company: "Demo Movers"}); data != want {
		t.Errorf("quote-data = %+v; want %+v", data, want)
	}
	checkScriptIDs(t, byID)
	checkHeaders(t, doc)
}

// quoteData decodes the page's quote-data block.
func quoteData(t *testing.T, els []htmltest.Element) pageData {
	t.Helper()
	var blocks []htmltest.Element
	for _, e := range els {
		if e.Tag == "script" && e.Attrs["id"] == "quote-data" {
			blocks = append(blocks, e)
		}
	}
	if len(blocks) != 1 || blocks[0].Attrs["type"] != "application/json" {
		t.Fatalf("quote-data blocks %+v; want one of type application/json", blocks)
	}
	var d pageData
	dec := json.NewDecoder(strings.NewReader(blocks[0].Text))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&d); err != nil {
		t.Fatalf("quote-data is not the JSON the script reads: %v\n%s", err, blocks[0].Text)
	}
	return d
}

// checkScriptIDs checks that every element the script looks up by id on
// this kind of page is there. The script looks up the form's elements only
// when the form is there, and the deposit's only when the Pay button is.
func checkScriptIDs(t *testing.T, byID map[string]htmltest.Element) {
	t.Helper()
	for _, m := range regexp.MustCompile(`\$\("([a-z-]+)"\)`).FindAllStringSubmatch(string(loadAssets().JS), -1) {
		id := m[1]
		need := true
		switch {
		case id == "signature" || id == "pad" || id == "clear-signature" || id == "signature-status" || strings.HasPrefix(id, "signer-") || id == "esign-consent":
			need = byID["signature"].Tag != ""
		case id == "accepter-email":
			need = byID["accept-form"].Tag != "" && byID["signature"].Tag == ""
		case id == "expiry-row" || id == "print-copy":
			need = false // looked up only where it is
		case id == "copy-link":
			need = byID["done"].Tag != ""
		case id == "accept" || id == "submit" || id == "reload" || id == "next-step" || strings.HasPrefix(id, "form-") || strings.HasPrefix(id, "error-") || id == "accept-form":
			need = byID["accept-form"].Tag != ""
		case strings.HasPrefix(id, "done") || strings.HasPrefix(id, "deposit-") || strings.HasPrefix(id, "pay"):
			need = byID["done"].Tag != ""
		}
		if need && byID[id].Tag == "" {
			t.Errorf("the script uses #%s, which the page does not have", id)
		}
	}
}

func TestRenderOpenNonBindingQuote(t *testing.T) {
	doc, els, byID := render(t, nonBindingPage())
	text := shownText(t, doc.Body)
	for _, w := range []string{
		"From Demo Movers", "Estimated price $2,450.00", "Non-binding estimate — your final price may differ",
		"Deposit to book None required", "Accept this quote", "Email address", "Accept quote",
	} {
		if !strings.Contains(text, w) {
			t.Errorf("the page does not say %q:\n%s", w, text)
		}
	}
	for _, absent := range []string{"USDOT", "signature", "Sign", "protected", "pay the deposit"} {
		if strings.Contains(text, absent) {
			t.Errorf("a non-binding quote's page says %q:\n%s", absent, text)
		}
	}
	in := byID["accepter-email"]
	if in.Tag != "input" || in.Attrs["type"] != "email" || in.Attrs["autocomplete"] != "email" {
		t.Errorf("email input = %+v", in)
	}
	if byID["signature"].Tag != "" || byID["mover"].Tag != "" {
		t.Error("a non-binding quote's page has a signature pad")
	}
	if d := quoteData(t, els); d.Binding {
		t.Error("quote-data says binding")
	}
	checkScriptIDs(t, byID)
	checkHeaders(t, doc)
}

func TestDisclosureHTML(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Title\n\nBody one.\r\n\r\nBody two,\nsame paragraph.", `<p class="disclosure-title">Title</p><p>Body one.</p><p>Body two,<br>same paragraph.</p>`},
		{"A sentence first.\n\nThen more.", `<p>A sentence first.</p><p>Then more.</p>`},
		{"\n\n  \n\nOnly <b>this</b>\n\n\n\n", `<p class="disclosure-title">Only &lt;b&gt;this&lt;/b&gt;</p>`},
		{"", ""},
	}
	for _, tt := range tests {
		got := strings.ReplaceAll(disclosureHTML(tt.in), "\n    ", "")
		if got != tt.want {
			t.Errorf("disclosureHTML(%q) = %q; want %q", tt.in, got, tt.want)
		}
	}
}

func TestRenderNotToExceedQuoteIsSigned(t *testing.T) {
	p := bindingPage()
	p.EstimateType = BindingNotToExceed
	doc, _, byID := render(t, p)
	text := shownText(t, doc.Body)
	for _, w := range []string{"Most you will pay $2,450.00", "Not-to-exceed estimate — you pay this or less", "Sign this quote"} {
		if !strings.Contains(text, w) {
			t.Errorf("the page does not say %q:\n%s", w, text)
		}
	}
	if byID["signature"].Tag != "canvas" {
		t.Error("a not-to-exceed quote is not signed")
	}
}

// TestRenderAcceptedStates opens the page of an accepted or signed quote
// in each deposit state.
func TestRenderAcceptedStates(t *testing.T) {
	tests := []struct {
		name   string
		change func(p *Page)
		want   []string
		absent []string
		pay    string // "button", "link" or "" (none)
	}{
		{"signed, deposit due", func(p *Page) {},
			[]string{"Quote signed", "Thank you. Demo Movers has your signed quote.", "You signed this quote on Friday, November 20, 2026 at 9:05 PM UTC.",
				"To book your move, pay the deposit of $250.00.", "Pay deposit of $250.00"},
			[]string{"Sign this quote", "Valid until", "did not go through", "No deposit"}, "button"},
		{"accepted, no deposit", func(p *Page) { p.EstimateType = NonBinding; p.Stage = StageAccepted; p.DepositCents = 0 },
			[]string{"Quote accepted", "You accepted this quote on", "No deposit is needed. Demo Movers will be in touch to confirm your moving date."},
			[]string{"Pay deposit", "Accept quote"}, ""},
		{"checkout open", func(p *Page) {
			p.DepositStatus = DepositPending
			p.CheckoutURL = "https://checkout.stripe.com/c/pay/cs_test_1?a=1&b=2"
		}, []string{"Pay deposit of $250.00", "Deposit to book $250.00"}, []string{"Payment processing"}, "link"},
		{"failed", func(p *Page) { p.DepositStatus = DepositFailed },
			[]string{"Your last payment did not go through. You can try again.", "Pay deposit of $250.00"}, nil, "button"},
		{"processing", func(p *Page) { p.DepositStatus = DepositPending },
			[]string{"Payment processing", "You don’t need to pay again."}, []string{"Pay deposit"}, ""},
		{"paid", func(p *Page) {
			p.DepositStatus = DepositPaid
			p.CheckoutURL = "https://checkout.stripe.com/c/pay/stale"
		},
			[]string{"Deposit received — your move is booked", "Demo Movers has your deposit of $250.00.", "Deposit paid $250.00"}, []string{"Pay deposit", "Deposit to book"}, ""},
		{"refunded", func(p *Page) { p.DepositStatus = DepositRefunded },
			[]string{"Deposit refunded", "Deposit refunded $250.00"}, []string{"Pay deposit", "booked", "Deposit to book"}, ""},
		{"disputed", func(p *Page) { p.DepositStatus = DepositDisputed },
			[]string{"Deposit payment disputed", "Please contact Demo Movers", "Deposit (disputed) $250.00"}, []string{"Pay deposit", "Deposit to book"}, ""},
		{"a checkout address that is no web address", func(p *Page) { p.CheckoutURL = "javascript:alert(1)" },
			[]string{"Pay deposit of $250.00"}, nil, "button"},
		{"a checkout the partner opened without a deposit on the quote", func(p *Page) {
			p.DepositCents = 0
			p.CheckoutURL = "https://checkout.stripe.com/c/pay/cs_test_2"
		}, []string{"To book your move, pay the deposit. Pay deposit"}, []string{"$0.00", "No deposit"}, "link"},
		{"no time of acceptance", func(p *Page) { p.AcceptedAt = nil },
			[]string{"Quote signed", "Pay deposit of $250.00"}, []string{"You signed this quote on"}, "button"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := signedPage()
			tt.change(&p)
			doc, _, byID := render(t, p)
			text := shownText(t, doc.Body)
			for _, w := range tt.want {
				if !strings.Contains(text, w) {
					t.Errorf("the page does not say %q:\n%s", w, text)
				}
			}
			for _, w := range tt.absent {
				if strings.Contains(text, w) {
					t.Errorf("the page says %q:\n%s", w, text)
				}
			}
			if byID["accept-form"].Tag != "" {
				t.Error("an accepted quote's page has the acceptance form")
			}
			_, buttonHidden := byID["pay"].Attrs["hidden"]
			_, linkHidden := byID["pay-link"].Attrs["hidden"]
			_, blockHidden := byID["deposit-pay"].Attrs["hidden"]
			got := ""
			switch {
			case blockHidden:
			case !buttonHidden && linkHidden:
				got = "button"
			case buttonHidden && !linkHidden:
				got = "link"
			default:
				t.Errorf("pay button hidden %v, link hidden %v; want one of them", buttonHidden, linkHidden)
			}
			if got != tt.pay {
				t.Errorf("pay control %q; want %q", got, tt.pay)
			}
			if got == "link" && byID["pay-link"].Attrs["href"] != p.CheckoutURL {
				t.Errorf("pay link goes to %q; want %q", byID["pay-link"].Attrs["href"], p.CheckoutURL)
			}
			checkScriptIDs(t, byID)
		})
	}
}

func TestRenderClosedStages(t *testing.T) {
	tests := []struct {
		stage  string
		want   []string
		absent []string
	}{
		{StageExpired, []string{"This quote has expired", "It can no longer be accepted. To go ahead with your move, please contact Demo Movers for a new quote.",
			"Expired Monday, November 30, 2026 at 10:15 AM UTC", "Price $2,450.00"}, []string{"Valid until"}},
		{StageSuperseded, []string{"This quote has been replaced", "Demo Movers has sent you a newer quote, so this one can no longer be accepted."}, []string{"Expired", "Valid until"}},
		{"", []string{"This quote can’t be accepted online", "Please contact Demo Movers about this quote."}, nil},
		{"withdrawn", []string{"This quote can’t be accepted online"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.stage, func(t *testing.T) {
			p := bindingPage()
			p.Stage = tt.stage
			doc, _, byID := render(t, p)
			text := shownText(t, doc.Body)
			for _, w := range tt.want {
				if !strings.Contains(text, w) {
					t.Errorf("the page does not say %q:\n%s", w, text)
				}
			}
			for _, w := range append(tt.absent, "Sign this quote", "Accept quote", "Pay deposit", "Quote signed") {
				if strings.Contains(text, w) {
					t.Errorf("the page says %q:\n%s", w, text)
				}
			}
			for _, id := range []string{"accept-form", "signature", "pay", "done"} {
				if byID[id].Tag != "" {
					t.Errorf("a %q quote's page has #%s", tt.stage, id)
				}
			}
		})
	}
}

func TestRenderWithoutCompany(t *testing.T) {
	p := signedPage()
	p.CompanyName = "  "
	p.DepositCents = 0
	doc, els, byID := render(t, p)
	text := shownText(t, doc.Body)
	for _, w := range []string{"Moving quote", "From the moving company", "No deposit is needed. The moving company will be in touch"} {
		if !strings.Contains(text, w) {
			t.Errorf("the page does not say %q:\n%s", w, text)
		}
	}
	if got := strings.TrimSpace(byID["done-text"].Text); got != "Thank you. The moving company has your signed quote." {
		t.Errorf("done text %q", got)
	}
	if d := quoteData(t, els); d.Company != "The moving company" {
		t.Errorf("quote-data company %q; want the stand-in as a sentence starts", d.Company)
	}
	p.Stage = StageSuperseded
	doc, _, _ = render(t, p)
	if text := shownText(t, doc.Body); !strings.Contains(text, "The moving company has sent you a newer quote") {
		t.Errorf("the superseded page reads:\n%s", text)
	}
	p.Stage, p.DepositCents, p.DepositStatus = StageSigned, 100, DepositPaid
	doc, _, _ = render(t, p)
	if text := shownText(t, doc.Body); !strings.Contains(text, "The moving company has your deposit of $1.00.") {
		t.Errorf("the paid page reads:\n%s", text)
	}
}

func TestUserTextIsEscaped(t *testing.T) {
	const hostile = `</script><script>alert(1)</script><img src=x onerror=alert(2)>"'&`
	p := bindingPage()
	p.CompanyName = hostile
	p.CarrierLegalName = hostile
	p.USDOTNumber = hostile
	p.Disclosure = hostile + "\n\n" + hostile
	p.Liability = []LiabilityOption{{Election: `x" onclick="alert(3)`, Title: hostile, Explanation: hostile}}
	p.AcceptPath = `/a</script><script>alert(4)</script>`
	p.Currency = `<b>`
	docs := map[string]Document{"open": Render(p), "error": ErrorPage(410, hostile)}
	p.Stage, p.CheckoutURL = StageSigned, `https://pay.example.com/"><script>alert(5)</script>`
	docs["signed"] = Render(p)
	p.CheckoutURL = `https://pay.example.com/?a=1&b="2"`
	docs["signed, odd checkout"] = Render(p)
	for name, doc := range docs {
		t.Run(name, func(t *testing.T) {
			for _, bad := range []string{"<script>alert", "<img", "<b>", `"'&`, `" onclick=`} {
				if bytes.Contains(doc.Body, []byte(bad)) {
					t.Errorf("%q reached the page unescaped", bad)
				}
			}
			els := htmltest.Parse(t, doc.Body)
			scripts, inline := 0, 0
			for _, e := range els {
				if e.Tag == "script" {
					scripts++
					if e.Attrs["type"] != "application/json" {
						inline++
					}
				}
				if e.Tag == "img" {
					t.Error("the page has an <img>")
				}
				if e.Attrs["class"] == "brand" && e.Text != hostile {
					t.Errorf("the header shows %q; want the name as text", e.Text)
				}
			}
			if want := map[string]int{"error": 0}[name]; name == "error" && scripts != want {
				t.Errorf("%d scripts on the error page; want none", scripts)
			} else if name != "error" && (scripts != 2 || inline != 1) {
				t.Errorf("%d scripts, %d executable; want the data block and the page's script", scripts, inline)
			}
			htmltest.CheckNoInlineAttrs(t, els)
			if name == "open" {
				d := quoteData(t, els)
				if d.Company != hostile || d.AcceptPath != p.AcceptPath {
					t.Errorf("quote-data %+v; want the values as given", d)
				}
			}
		})
	}
}

func TestAssetsCannotBreakOutOfTheirElements(t *testing.T) {
	a := loadAssets()
	for name, body := range map[string]string{"quote.js": string(a.JS), "quote.css": string(a.CSS)} {
		lower := strings.ToLower(body)
		for _, bad := range []string{"</script", "</style", "<!--"} {
			if strings.Contains(lower, bad) {
				t.Errorf("%s contains %q, which would end its inline element early", name, bad)
			}
		}
		for _, remote := range []string{"http://", "https://", "@import", " url(", ":url(", "@font-face"} {
			if strings.Contains(lower, remote) {
				t.Errorf("%s contains %q: the page loads nothing from outside", name, remote)
			}
		}
	}
	for _, js := range []string{"innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function"} {
		if strings.Contains(string(a.JS), js) {
			t.Errorf("quote.js uses %s: text reaches the page through textContent only", js)
		}
	}
	// Every layout inlines the stylesheet and the script exactly once,
	// verbatim; the error page only the stylesheet, and no script.
	style, script := "<style>"+a.CSS+"</style>", "<script>"+a.JS+"</script>"
	closed := bindingPage()
	closed.Stage = StageExpired
	for name, p := range map[string]Page{"sign": bindingPage(), "accept": nonBindingPage(), "done": signedPage(), "closed": closed} {
		body := string(Render(p).Body)
		if strings.Count(body, style) != 1 || strings.Count(body, script) != 1 || strings.Count(body, "<style") != 1 || strings.Count(body, "<script>") != 1 {
			t.Errorf("the %s page does not inline the stylesheet and the script exactly once", name)
		}
	}
	if e := string(ErrorPage(404, "").Body); strings.Count(e, style) != 1 || strings.Contains(e, "<script") {
		t.Error("the error page must inline the stylesheet and run no script")
	}
}

// TestEveryPlaceholderIsFilled renders every layout and the error page and
// checks no %%NAME%% is left.
func TestEveryPlaceholderIsFilled(t *testing.T) {
	open := bindingPage()
	simple := nonBindingPage()
	signed := signedPage()
	closed := bindingPage()
	closed.Stage = StageExpired
	for _, doc := range []Document{Render(open), Render(simple), Render(signed), Render(closed), ErrorPage(404, "")} {
		if m := regexp.MustCompile(`%%[A-Z_]+%%`).Find(doc.Body); m != nil {
			t.Errorf("placeholder %s left in the page", m)
		}
	}
}

// TestAccessibleNames checks the names a person (and the browser tests)
// find the controls by: each label and button, exactly once, and every
// input labelled.
func TestAccessibleNames(t *testing.T) {
	for name, p := range map[string]Page{"binding": bindingPage(), "non-binding": nonBindingPage(), "signed": signedPage()} {
		t.Run(name, func(t *testing.T) {
			_, els, _ := render(t, p)
			labels := map[string]int{}
			buttons := map[string]int{}
			for _, e := range els {
				if e.Tag == "label" {
					labels[e.Attrs["for"]]++
				}
				if e.Tag == "button" {
					buttons[strings.TrimSpace(e.Text)]++
				}
			}
			for _, e := range els {
				if e.Tag != "input" {
					continue
				}
				if labels[e.Attrs["id"]] != 1 {
					t.Errorf("input #%s has %d labels; want 1", e.Attrs["id"], labels[e.Attrs["id"]])
				}
				if ty := e.Attrs["type"]; ty != "radio" && ty != "checkbox" && ty != "email" && ty != "text" {
					t.Errorf("input #%s of type %q", e.Attrs["id"], ty)
				}
			}
			for b, n := range buttons {
				if n != 1 {
					t.Errorf("%d buttons named %q; want 1", n, b)
				}
			}
		})
	}
}

// tinyPNG is a 60 × 20 signature: one stroke across.
var tinyPNG = []byte{137, 80, 78, 71, 13, 10, 26, 10, 0, 0, 0, 13, 73, 72, 68, 82, 0, 0, 0, 60, 0, 0, 0, 20, 8, 6, 0, 0, 0, 209, 3, 94, 41, 0, 0, 0, 43, 73, 68, 65, 84, 120, 156, 237, 208, 65, 13, 0, 48, 8, 0, 49, 12, 160, 96, 50, 240, 175, 13, 84, 44, 60, 104, 147, 51, 112, 17, 0, 0, 124, 146, 175, 250, 82, 219, 191, 1, 128, 67, 6, 37, 143, 81, 25, 70, 91, 69, 18, 0, 0, 0, 0, 73, 69, 78, 68, 174, 66, 96, 130}

// TestTimesUseTheSharedFormat: every time on the page is written as all
// pages write one, <time datetime=RFC3339 data-local> with
// htmlpage.FormatTime's text, which htmlpage.LocalTimeJS (at the start of
// the page's script) rewrites in the reader's zone.
func TestTimesUseTheSharedFormat(t *testing.T) {
	expired := bindingPage()
	expired.Stage = StageExpired
	for name, p := range map[string]Page{"open": bindingPage(), "signed": signedPage(), "expired": expired} {
		t.Run(name, func(t *testing.T) {
			doc, els, _ := render(t, p)
			times := 0
			for _, e := range els {
				if e.Tag != "time" {
					continue
				}
				times++
				at, err := time.Parse(time.RFC3339, e.Attrs["datetime"])
				_, local := e.Attrs["data-local"]
				if err != nil || !local || e.Attrs["class"] != "" || e.Text != htmlpage.FormatTime(at) {
					t.Errorf("<time %v>%s</time>; want datetime=RFC3339, data-local and htmlpage.FormatTime's text", e.Attrs, e.Text)
				}
			}
			if times == 0 {
				t.Error("the page shows no time")
			}
			if !strings.Contains(string(doc.Body), htmlpage.LocalTimeJS) {
				t.Error("the page's script does not include htmlpage.LocalTimeJS")
			}
		})
	}
}
