package quotes

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"time"

	"github.com/moveleads/partnerapi/shared/app/pipeline"
	"github.com/moveleads/partnerapi/shared/app/quotes/quotepage"
	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/domain/deposit"
	"github.com/moveleads/partnerapi/shared/domain/errcode"
	"github.com/moveleads/partnerapi/shared/domain/linktoken"
	"github.com/moveleads/partnerapi/shared/domain/partner"
	"github.com/moveleads/partnerapi/shared/domain/quote"
	"github.com/moveleads/partnerapi/shared/spec/manifest"
)

// PageRateLimit is how many requests one quote page link may make per
// minute: a customer loads, signs and pays in a handful; a script
// guessing at the page gets little.
const PageRateLimit = 30

// Checkout starts the deposit of the quote the page shows (shared/app/deposits'
// Service.StartForPage): it returns the checkout URL of the lead's open
// deposit for the quote, or of a new one.
type Checkout interface {
	StartForPage(ctx context.Context, t auth.Tenant, ptn partner.Partner, leadID, quoteID string, now time.Time) (string, error)
}

// pageSession is what a quote page token resolved to.
type pageSession struct {
	tenant          auth.Tenant
	leadID, quoteID string
	expired         bool
}

// quoteLink is the quote page's words for an unknown and an expired link.
var quoteLink = linktoken.Link{
	Unknown: "This quote link is not known.",
	Expired: "This quote link has expired; ask the mover for a new one.",
}

// verify is the quote page routes' token check: it resolves the token to
// its lead and quote and counts the request against the token's limit.
func (s *Service) verify() func(context.Context, *pipeline.Call) (pipeline.Grant, error) {
	return pipeline.TokenVerify(quoteLink, s.admit)
}

func (s *Service) admit(ctx context.Context, c *pipeline.Call, hash string) (pipeline.Grant, error) {
	g, u, err := s.store.AdmitQuoteToken(ctx, hash, c.Now, PageRateLimit)
	if err != nil {
		return pipeline.Grant{}, err
	}
	ss := &pageSession{tenant: g.Tenant, leadID: g.LeadID, quoteID: g.QuoteID, expired: !c.Now.Before(g.ExpiresAt)}
	return pipeline.Grant{Tenant: g.Tenant, Subject: ss, Usage: u}, nil
}

func session(c *pipeline.Call) *pageSession { return c.Subject.(*pageSession) }

// onlineOff refuses the page's accept and deposit calls when the
// partner lost the beta their routes need, in the customer's words.
func onlineOff(_ context.Context, c *pipeline.Call, ptn partner.Partner) error {
	_, msg := quotepage.OnlineOff(ptn.Name)
	return errcode.New(errcode.BetaNotEnabled, "%s", msg).WithDetail("feature", string(c.Route.Beta))
}

// PageEndpoints returns the v1-quote function's endpoints: the page, its
// accept call and its deposit call (checkout starts deposits).
func (s *Service) PageEndpoints(checkout Checkout) []pipeline.Endpoint {
	return []pipeline.Endpoint{s.quotePage(), s.quoteAccept(), s.quoteDeposit(checkout)}
}

func errorPage(err error) pipeline.Document {
	status, _ := pipeline.Render(err)
	return quotepage.ErrorPage(status, "")
}

func (s *Service) quotePage() pipeline.Endpoint {
	return pipeline.Endpoint{
		Operation: manifest.QuotePage, Verify: s.verify(), RenderError: errorPage,
		Prepare: func(ctx context.Context, c *pipeline.Call) (pipeline.Work, error) {
			ss := session(c)
			ptn, err := c.Partner(ctx)
			if err != nil {
				return pipeline.Work{}, err
			}
			return pipeline.Work{Run: func(ctx context.Context, _ string) (any, error) {
				if ss.expired {
					return s.expiredPage(ctx, ss, ptn)
				}
				p, err := s.page(ctx, c.PathParam, ptn, ss, c.Now)
				if err != nil {
					return nil, err
				}
				return quotepage.Render(p), nil
			}}, nil
		},
	}
}

// expiredPage is the 410 page of an expired link: one that says the move
// is booked when this quote's deposit was paid (a booked customer needs no
// new quote), else the one that asks for a new quote.
func (s *Service) expiredPage(ctx context.Context, ss *pageSession, ptn partner.Partner) (any, error) {
	ql, err := s.store.GetQuoteLead(ctx, ss.tenant, ss.leadID)
	if err != nil {
		return nil, err
	}
	if ql.Quote != nil && ql.Quote.QuoteID == ss.quoteID && ql.Deposit != nil && ql.Deposit.Status == deposit.Paid {
		return quotepage.BookedLinkExpiredPage(ptn.Name), nil
	}
	return quotepage.ErrorPage(410, ptn.Name), nil
}

// page reads what the quote page shows: the token's quote (superseded
// when the lead has a newer one), its acceptance and the lead's deposit.
func (s *Service) page(ctx context.Context, token string, ptn partner.Partner, ss *pageSession, now time.Time) (quotepage.Page, error) {
	ql, err := s.store.GetQuoteLead(ctx, ss.tenant, ss.leadID)
	if err != nil {
		return quotepage.Page{}, err
	}
	qr, err := s.store.GetQuote(ctx, ss.tenant, ss.leadID, ss.quoteID)
	if err != nil {
		return quotepage.Page{}, err
	}
	stage := qr.StageAt(now)
	if ql.Quote == nil || ql.Quote.QuoteID != qr.ID {
		if stage == quote.StageOpen || stage == quote.StageExpired {
			stage = quote.StageSuperseded
		}
	}
	base := PagePath(token)
	p := quotepage.Page{
		CompanyName: qr.CompanyName, CarrierLegalName: ptn.Deposits.CarrierLegalName, USDOTNumber: ptn.Deposits.USDOTNumber,
		EstimateType: string(qr.EstimateType), PriceCents: qr.PriceCents, DepositCents: qr.DepositCents,
		Currency: qr.Currency, ExpiresAt: qr.ExpiresAt, Stage: string(stage),
		DepositStatus: string(deposit.PublicNone), AcceptPath: base + "/accept", DepositPath: base + "/deposit",
		// The page's accept and deposit calls need the beta (one feature).
		OnlineOff: !ptn.BetaEnabled(manifest.ByOperation(manifest.QuoteAccept).Beta),
	}
	if m := qr.Move; m != nil {
		p.Move = &quotepage.Move{FromAddress: m.FromAddress, ToAddress: m.ToAddress, MoveDate: m.MoveDate,
			SpecialItems: m.SpecialItems, Services: m.Services, FullValueCents: m.FullValueCents}
		for _, l := range m.Inventory {
			p.Move.Inventory = append(p.Move.Inventory, quotepage.InventoryLine(l))
		}
	}
	if qr.Acceptance != nil {
		at := qr.Acceptance.At
		p.AcceptedAt = &at
		if e := qr.Acceptance.Evidence; e != nil && qr.Acceptance.Mode == quote.ModeSigned {
			p.Copy = &quotepage.SignedCopy{SignerName: e.SignerName, SignerEmail: e.SignerEmail, SignedAt: e.At,
				EvidenceHash: qr.Acceptance.EvidenceHash, Liability: string(e.LiabilityElection),
				SignaturePNG: s.signatureImage(ctx, e)}
		}
	}
	if qr.EstimateType.IsBinding() {
		p.Disclosure = quote.DisclosureFor(qr.CompanyName)
		for _, o := range quote.LiabilityOptions {
			p.Liability = append(p.Liability, quotepage.LiabilityOption{Election: string(o.Election), Title: o.Title, Explanation: o.Explanation})
		}
	}
	if ql.Deposit != nil && ql.Quote != nil && ql.Quote.QuoteID == qr.ID {
		d, err := s.store.GetDeposit(ctx, ss.tenant, ql.Deposit.DepositID)
		if err != nil {
			return quotepage.Page{}, err
		}
		p.DepositStatus = string(d.Status.PublicStatus())
		if d.Payable(now) {
			p.CheckoutURL = d.CheckoutURL
		}
	}
	return p, nil
}

// signatureImage is the signed copy's signature image: the one e names,
// read back from the bucket. The copy is shown without it (nil) when it
// cannot be read, is over SignatureReadLimit, or is not the image the
// evidence hashed: the evidence hash still proves what was signed.
func (s *Service) signatureImage(ctx context.Context, e *quote.Evidence) []byte {
	if s.sigs == nil || e.SignatureKey == "" {
		return nil
	}
	png, err := s.sigs.GetSignature(ctx, e.SignatureKey, SignatureReadLimit)
	if err != nil {
		s.log.WarnContext(ctx, "signed copy without its signature image", "key", e.SignatureKey, "error", err.Error())
		return nil
	}
	if sum := sha256.Sum256(png); hex.EncodeToString(sum[:]) != e.SignatureSHA256 {
		s.log.WarnContext(ctx, "signed copy without its signature image: not the image signed", "key", e.SignatureKey)
		return nil
	}
	return png
}

func (s *Service) quoteAccept() pipeline.Endpoint {
	return pipeline.Endpoint{
		Operation: manifest.QuoteAccept, Verify: s.verify(), BetaOff: onlineOff,
		Prepare: func(ctx context.Context, c *pipeline.Call) (pipeline.Work, error) {
			ss := session(c)
			if ss.expired {
				return pipeline.Work{}, quoteLink.ExpiredError()
			}
			req, err := quote.ParseAccept(c.Body, quote.CheckSignaturePNG)
			if err != nil {
				return pipeline.Work{}, err
			}
			from := Caller{IP: c.SourceIP, UserAgent: c.UserAgent}
			return pipeline.Work{Run: func(ctx context.Context, _ string) (any, error) {
				return s.Accept(ctx, ss.tenant, ss.leadID, ss.quoteID, req, from, c.Now)
			}}, nil
		},
	}
}

// DepositView is the quote page's deposit call's answer.
type DepositView struct {
	CheckoutURL string `json:"checkout_url"`
}

func (s *Service) quoteDeposit(checkout Checkout) pipeline.Endpoint {
	return pipeline.Endpoint{
		Operation: manifest.QuoteDeposit, Verify: s.verify(), BetaOff: onlineOff,
		Prepare: func(ctx context.Context, c *pipeline.Call) (pipeline.Work, error) {
			ss := session(c)
			if ss.expired {
				return pipeline.Work{}, quoteLink.ExpiredError()
			}
			if b := strings.TrimSpace(string(c.Body)); b != "" && b != "{}" {
				return pipeline.Work{}, errcode.New(errcode.ValidationFailed, "This call takes no fields; send {} or nothing.")
			}
			ptn, err := c.Partner(ctx)
			if err != nil {
				return pipeline.Work{}, err
			}
			return pipeline.Work{Run: func(ctx context.Context, _ string) (any, error) {
				url, err := checkout.StartForPage(ctx, ss.tenant, ptn, ss.leadID, ss.quoteID, c.Now)
				if err != nil {
					return nil, err
				}
				return DepositView{CheckoutURL: url}, nil
			}}, nil
		},
	}
}
