package dynamo

import (
	"context"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/moveleads/partnerapi/shared/app/record"
	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/domain/deposit"
	"github.com/moveleads/partnerapi/shared/domain/errcode"
	"github.com/moveleads/partnerapi/shared/domain/lead"
	"github.com/moveleads/partnerapi/shared/domain/quote"
	"github.com/moveleads/partnerapi/shared/spec/table"
)

// Quotes and deposits (issue 12, beta). A lead's quotes are items of the
// lead's partition (sort key QUOTE#<quote_id>); the lead item carries its
// current quote's ref and its latest deposit's ref (record.QuoteRef,
// record.DepositRef: leadRefs), so getLead stays one read. Deposits have
// their own partition (deposits.go); the Stripe receiver's records (event
// dedupe, PaymentIntent index: stripe.go) live under table.StripePrefix,
// quote page tokens under table.QuoteTokenPrefix.
//
// Every write that changes a ref also moves the lead's updated_at and
// listing position (leadTouched), as SetLeadStatus does, so that delta
// sync sees it.

// ErrDuplicate is wrapped by ApplyDeposit's error when the Stripe event
// was applied before (its dedupe record exists): nothing was written. It
// is record.ErrDuplicate, so feature services test for it without
// importing the store.
var ErrDuplicate = record.ErrDuplicate

// The lead item's attributes for its current quote and latest deposit.
const (
	attrQuoteID         = "quote_id"
	attrQuoteShareLink  = "quote_share_link_id"
	attrQuoteStage      = "quote_stage"
	attrQuoteExpiresAt  = "quote_expires_at"
	attrQuoteAcceptedAt = "quote_accepted_at"
	attrQuoteSignedAt   = "quote_signed_at"
	attrDepositID       = "deposit_id"
	attrDepositStatus   = "deposit_status"
)

// leadRefs is what a lead item says about its current quote and latest
// deposit (absent attributes: none).
type leadRefs struct {
	QuoteID         string `dynamodbav:"quote_id"`
	QuoteShareLink  string `dynamodbav:"quote_share_link_id"`
	QuoteStage      string `dynamodbav:"quote_stage"`
	QuoteExpiresAt  string `dynamodbav:"quote_expires_at"`
	QuoteAcceptedAt string `dynamodbav:"quote_accepted_at"`
	QuoteSignedAt   string `dynamodbav:"quote_signed_at"`
	DepositID       string `dynamodbav:"deposit_id"`
	DepositStatus   string `dynamodbav:"deposit_status"`
}

// refs returns the refs of the lead item with partition key pk (nil when
// it has none); a stored time that does not parse is an error.
func (r leadRefs) refs(pk string) (*record.QuoteRef, *record.DepositRef, error) {
	var q *record.QuoteRef
	if r.QuoteID != "" {
		exp, err := parseTime(pk, attrQuoteExpiresAt, r.QuoteExpiresAt)
		if err != nil {
			return nil, nil, err
		}
		q = &record.QuoteRef{QuoteID: r.QuoteID, ShareLinkID: r.QuoteShareLink, Stage: quote.Stage(r.QuoteStage), ExpiresAt: exp}
		if q.AcceptedAt, err = parseOptionalTime(pk, attrQuoteAcceptedAt, r.QuoteAcceptedAt); err != nil {
			return nil, nil, err
		}
		if q.SignedAt, err = parseOptionalTime(pk, attrQuoteSignedAt, r.QuoteSignedAt); err != nil {
			return nil, nil, err
		}
	}
	var d *record.DepositRef
	if r.DepositID != "" {
		d = &record.DepositRef{DepositID: r.DepositID, Status: deposit.Status(r.DepositStatus)}
	}
	return q, d, nil
}

// parseOptionalTime is parseTime for an attribute that may be absent
// (""): nil then.
func parseOptionalTime(pk, attr, v string) (*time.Time, error) {
	if v == "" {
		return nil, nil
	}
	t, err := parseTime(pk, attr, v)
	if err != nil {
		return nil, err
	}
	return &t, nil
}

// leadTouched sets a lead item's updated_at to at and moves it to the
// matching listing position, as SetLeadStatus does.
func leadTouched(t auth.Tenant, leadID string, at time.Time) expression.UpdateBuilder {
	updated := lead.FormatTime(at)
	_, g1sk := leadListIndex(t, updated, leadID)
	return expression.Set(expression.Name("updated_at"), expression.Value(updated)).
		Set(expression.Name(table.GSI1.SK), expression.Value(g1sk))
}

// leadCondFailed explains a failed condition on a lead from the item as it
// was (old): none → not_found; otherwise it changed since it was read.
func leadCondFailed(old map[string]types.AttributeValue) error {
	if len(old) == 0 {
		return notFound("lead")
	}
	return changed("lead")
}

// equalsOrAbsent is the condition that attribute name is v, or absent
// when v is "".
func equalsOrAbsent(name, v string) expression.ConditionBuilder {
	if v == "" {
		return expression.AttributeNotExists(expression.Name(name))
	}
	return expression.Name(name).Equal(expression.Value(v))
}

// GetQuoteLead returns tenant t's lead id with its current quote's and
// latest deposit's refs, from one strongly consistent GetItem of the lead.
// Errors: unknown lead (or another tenant's) → not_found; a failed read is
// upstream_failed.
func (s *Store) GetQuoteLead(ctx context.Context, t auth.Tenant, leadID string) (record.Lead, error) {
	pk, sk := leadKey(t, leadID)
	var it leadWithSurvey
	if err := s.getItem(ctx, pk, sk, "lead", &it); err != nil {
		return record.Lead{}, err
	}
	l, err := it.lead()
	if err != nil {
		return record.Lead{}, err
	}
	q, d, err := it.refs(it.PK)
	if err != nil {
		return record.Lead{}, err
	}
	return record.Lead{Lead: l, Quote: q, Deposit: d}, nil
}

// quoteItem is a quote with its acceptance (the acceptance_* attributes
// and evidence are absent until it is accepted). Its expiry is not in
// expires_at, the table's TTL attribute: a quote outlives its expiry.
type quoteItem struct {
	PK           string    `dynamodbav:"pk"`
	SK           string    `dynamodbav:"sk"`
	Type         string    `dynamodbav:"type"`
	QuoteID      string    `dynamodbav:"quote_id"`
	LeadID       string    `dynamodbav:"lead_id"`
	ShareLinkID  string    `dynamodbav:"share_link_id"`
	EstimateType string    `dynamodbav:"estimate_type"`
	PriceCents   int64     `dynamodbav:"price_cents"`
	DepositCents int64     `dynamodbav:"deposit_cents"`
	Currency     string    `dynamodbav:"currency"`
	CompanyName  string    `dynamodbav:"company_name"`
	Move         *moveItem `dynamodbav:"move,omitempty"` // absent on quotes made before quotes carried their move
	ExpiresAt    string    `dynamodbav:"quote_expires_at"`
	CreatedAt    string    `dynamodbav:"created_at"`
	Stage        string    `dynamodbav:"stage"`

	AcceptanceMode string        `dynamodbav:"acceptance_mode,omitempty"`
	AcceptedAt     string        `dynamodbav:"accepted_at,omitempty"`
	AcceptedIP     string        `dynamodbav:"accepted_ip,omitempty"`
	AcceptedEmail  string        `dynamodbav:"accepted_email,omitempty"`
	EvidenceHash   string        `dynamodbav:"evidence_hash,omitempty"`
	Evidence       *evidenceItem `dynamodbav:"evidence,omitempty"`
}

// moveItem is a quote's move (quote.Move), every field kept, so that
// its ShownHash can be computed again from what is stored.
type moveItem struct {
	FromAddress    string     `dynamodbav:"from_address"`
	ToAddress      string     `dynamodbav:"to_address"`
	MoveDate       string     `dynamodbav:"move_date"`
	Inventory      []lineItem `dynamodbav:"inventory"`
	SpecialItems   []string   `dynamodbav:"special_items"`
	Services       []string   `dynamodbav:"services"`
	FullValueCents *int64     `dynamodbav:"full_value_protection_cents"` // NULL when not stated
}

type lineItem struct {
	Room  string `dynamodbav:"room"`
	Name  string `dynamodbav:"name"`
	Count int    `dynamodbav:"count"`
}

func newMoveItem(m *quote.Move) *moveItem {
	if m == nil {
		return nil
	}
	it := &moveItem{FromAddress: m.FromAddress, ToAddress: m.ToAddress, MoveDate: m.MoveDate,
		SpecialItems: m.SpecialItems, Services: m.Services, FullValueCents: m.FullValueCents}
	for _, l := range m.Inventory {
		it.Inventory = append(it.Inventory, lineItem(l))
	}
	return it
}

func (it *moveItem) move() *quote.Move {
	if it == nil {
		return nil
	}
	m := &quote.Move{FromAddress: it.FromAddress, ToAddress: it.ToAddress, MoveDate: it.MoveDate,
		SpecialItems: it.SpecialItems, Services: it.Services, FullValueCents: it.FullValueCents}
	for _, l := range it.Inventory {
		m.Inventory = append(m.Inventory, quote.Line(l))
	}
	return m
}

// evidenceItem is a signature's evidence (quote.Evidence), every field
// kept, so that its hash can be computed again from what is stored.
type evidenceItem struct {
	QuoteID           string `dynamodbav:"quote_id"`
	ShownHash         string `dynamodbav:"shown_hash"`
	SignerName        string `dynamodbav:"signer_name"`
	SignerEmail       string `dynamodbav:"signer_email"`
	SignatureSHA256   string `dynamodbav:"signature_sha256"`
	SignatureKey      string `dynamodbav:"signature_key"`
	LiabilityElection string `dynamodbav:"liability_election"`
	ConsentVersion    string `dynamodbav:"consent_version"`
	ConsentChecked    bool   `dynamodbav:"consent_checked"`
	At                string `dynamodbav:"at"`
	IP                string `dynamodbav:"ip"`
	UserAgent         string `dynamodbav:"user_agent"`
}

func newQuoteItem(t auth.Tenant, q quote.Quote) quoteItem {
	pk, sk := quoteKey(t, q.LeadID, q.ID)
	return quoteItem{
		PK: pk, SK: sk, Type: "quote", QuoteID: q.ID, LeadID: q.LeadID, ShareLinkID: q.ShareLinkID,
		EstimateType: string(q.EstimateType), PriceCents: q.PriceCents, DepositCents: q.DepositCents,
		Currency: q.Currency, CompanyName: q.CompanyName, Move: newMoveItem(q.Move), ExpiresAt: lead.FormatTime(q.ExpiresAt),
		CreatedAt: lead.FormatTime(q.CreatedAt), Stage: string(q.Stage),
	}
}

func newEvidenceItem(e quote.Evidence) *evidenceItem {
	return &evidenceItem{
		QuoteID: e.QuoteID, ShownHash: e.ShownHash, SignerName: e.SignerName, SignerEmail: e.SignerEmail,
		SignatureSHA256: e.SignatureSHA256, SignatureKey: e.SignatureKey, LiabilityElection: string(e.LiabilityElection),
		ConsentVersion: e.ConsentVersion, ConsentChecked: e.ConsentChecked, At: lead.FormatTime(e.At), IP: e.IP, UserAgent: e.UserAgent,
	}
}

// record returns the stored quote with its acceptance; a stored time that
// does not parse is an error naming the item.
func (it quoteItem) record() (record.Quote, error) {
	var err error
	parse := func(attr, v string) time.Time {
		if err != nil {
			return time.Time{}
		}
		var tm time.Time
		tm, err = parseTime(it.PK, attr, v)
		return tm
	}
	rec := record.Quote{Quote: quote.Quote{
		ID: it.QuoteID, LeadID: it.LeadID, ShareLinkID: it.ShareLinkID, EstimateType: quote.EstimateType(it.EstimateType),
		PriceCents: it.PriceCents, DepositCents: it.DepositCents, Currency: it.Currency, CompanyName: it.CompanyName, Move: it.Move.move(),
		ExpiresAt: parse("quote_expires_at", it.ExpiresAt), CreatedAt: parse("created_at", it.CreatedAt), Stage: quote.Stage(it.Stage),
	}}
	if it.AcceptanceMode != "" {
		a := quote.Acceptance{QuoteID: it.QuoteID, Mode: quote.Mode(it.AcceptanceMode), At: parse("accepted_at", it.AcceptedAt),
			IP: it.AcceptedIP, Email: it.AcceptedEmail, EvidenceHash: it.EvidenceHash}
		if e := it.Evidence; e != nil {
			a.Evidence = &quote.Evidence{
				QuoteID: e.QuoteID, ShownHash: e.ShownHash, SignerName: e.SignerName, SignerEmail: e.SignerEmail,
				SignatureSHA256: e.SignatureSHA256, SignatureKey: e.SignatureKey, LiabilityElection: quote.Liability(e.LiabilityElection),
				ConsentVersion: e.ConsentVersion, ConsentChecked: e.ConsentChecked, At: parse("evidence.at", e.At), IP: e.IP, UserAgent: e.UserAgent,
			}
		}
		rec.Acceptance = &a
	}
	if err != nil {
		return record.Quote{}, err
	}
	return rec, nil
}

// GetQuote returns tenant t's quote quoteID of lead leadID with its
// acceptance (strongly consistent). Unknown → not_found; a failed read is
// upstream_failed.
func (s *Store) GetQuote(ctx context.Context, t auth.Tenant, leadID, quoteID string) (record.Quote, error) {
	pk, sk := quoteKey(t, leadID, quoteID)
	var it quoteItem
	if err := s.getItem(ctx, pk, sk, "quote", &it); err != nil {
		return record.Quote{}, err
	}
	return it.record()
}

// quoteTokenItem is a quote page token's lookup record: from the token's
// hash to its lead and quote, for the quote page, which knows no tenant.
// DynamoDB's TTL deletes it after expires_at (late: readers check it).
type quoteTokenItem struct {
	PK        string `dynamodbav:"pk"`
	SK        string `dynamodbav:"sk"`
	Type      string `dynamodbav:"type"`
	PartnerID string `dynamodbav:"partner_id"`
	Mode      string `dynamodbav:"mode"`
	LeadID    string `dynamodbav:"lead_id"`
	QuoteID   string `dynamodbav:"quote_id"`
	IssuedAt  string `dynamodbav:"issued_at"`
	ExpiresAt int64  `dynamodbav:"expires_at"` // TTL, epoch seconds, rounded up
}

func newQuoteTokenItem(t auth.Tenant, tok record.PageToken) quoteTokenItem {
	pk, sk := quoteTokenKey(tok.Hash)
	return quoteTokenItem{PK: pk, SK: sk, Type: "quote_token", PartnerID: t.PartnerID, Mode: string(t.Mode),
		LeadID: tok.LeadID, QuoteID: tok.QuoteID, IssuedAt: lead.FormatTime(tok.IssuedAt), ExpiresAt: ttlSeconds(tok.ExpiresAt)}
}

// ttlSeconds is at in epoch seconds, rounded up: never before at itself.
func ttlSeconds(at time.Time) int64 {
	s := at.Unix()
	if at.Nanosecond() > 0 {
		s++
	}
	return s
}

// checkPageToken refuses a token record that names no hash, or another
// lead or quote than the write it comes with: the caller's bug, refused
// before any write.
func checkPageToken(tok record.PageToken, leadID, quoteID string) error {
	if tok.Hash == "" || tok.LeadID != leadID || tok.QuoteID != quoteID {
		return fmt.Errorf("page token (hash %q, lead %q, quote %q) for lead %q, quote %q: want a hash and the same lead and quote",
			tok.Hash, tok.LeadID, tok.QuoteID, leadID, quoteID)
	}
	return nil
}

// PutQuote writes q (see record.NewQuote) in one TransactWriteItems.
// Errors: unknown lead → not_found; a lead whose status or quote changed
// since it was read (or a superseded quote no longer open) → conflict
// wrapping record.ErrChanged; a taken quote id or token hash →
// conflict; any other failure → upstream_failed. On every error nothing
// was written.
//
// A quote of another lead than q.LeadID, a token for another quote, or a
// superseded quote other than PrevQuoteID is the caller's bug: an error
// before any write.
func (s *Store) PutQuote(ctx context.Context, t auth.Tenant, q record.NewQuote) error {
	switch {
	case q.Quote.ID == "" || q.Quote.LeadID != q.LeadID:
		return fmt.Errorf("put quote %q of lead %q for lead %q: want a quote of that lead", q.Quote.ID, q.Quote.LeadID, q.LeadID)
	case q.Superseded != "" && q.Superseded != q.PrevQuoteID:
		return fmt.Errorf("put quote %s: superseded %q is not the lead's quote %q", q.Quote.ID, q.Superseded, q.PrevQuoteID)
	}
	if err := checkPageToken(q.Token, q.LeadID, q.Quote.ID); err != nil {
		return fmt.Errorf("put quote %s: %w", q.Quote.ID, err)
	}
	items := make([]types.TransactWriteItem, 0, 4)
	for _, it := range []any{newQuoteItem(t, q.Quote), newQuoteTokenItem(t, q.Token)} {
		put, err := s.putNew(it)
		if err != nil {
			return fmt.Errorf("put quote %s: %w", q.Quote.ID, err)
		}
		items = append(items, put)
	}
	stage := expression.Name("stage")
	if q.Superseded != "" {
		expr, err := expression.NewBuilder().
			WithUpdate(expression.Set(stage, expression.Value(string(quote.StageSuperseded)))).
			WithCondition(expression.AttributeExists(expression.Name(table.PK)).And(stage.Equal(expression.Value(string(quote.StageOpen))))).Build()
		if err != nil {
			return fmt.Errorf("build superseded quote update: %w", err)
		}
		pk, sk := quoteKey(t, q.LeadID, q.Superseded)
		items = append(items, s.update(pk, sk, expr))
	}
	qq := q.Quote
	upd := leadTouched(t, q.LeadID, q.At).
		Set(expression.Name("status"), expression.Value(string(q.LeadTo))).
		Set(expression.Name(attrQuoteID), expression.Value(qq.ID)).
		Set(expression.Name(attrQuoteShareLink), expression.Value(qq.ShareLinkID)).
		Set(expression.Name(attrQuoteStage), expression.Value(string(qq.Stage))).
		Set(expression.Name(attrQuoteExpiresAt), expression.Value(lead.FormatTime(qq.ExpiresAt))).
		Remove(expression.Name(attrQuoteAcceptedAt)).Remove(expression.Name(attrQuoteSignedAt)).
		Remove(expression.Name(attrDepositID)).Remove(expression.Name(attrDepositStatus))
	cond := expression.AttributeExists(expression.Name(table.PK)).
		And(expression.Name("status").Equal(expression.Value(string(q.LeadFrom)))).
		And(equalsOrAbsent(attrQuoteID, q.PrevQuoteID))
	expr, err := expression.NewBuilder().WithUpdate(upd).WithCondition(cond).Build()
	if err != nil {
		return fmt.Errorf("build quote lead update: %w", err)
	}
	pk, sk := leadKey(t, q.LeadID)
	leadAt := len(items)
	items = append(items, s.update(pk, sk, expr))

	_, err = s.db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: items, ReturnConsumedCapacity: capacity})
	if err == nil {
		return nil
	}
	tx := cancelled(err)
	if failed, old := tx.failedAt(leadAt); failed {
		return leadCondFailed(old)
	}
	if q.Superseded != "" {
		if failed, _ := tx.failedAt(2); failed {
			return changed("quote")
		}
	}
	if tx.anyFailed(0, 2) {
		return errcode.New(errcode.Conflict, "A quote with id %s or the same page token already exists; nothing was written.", q.Quote.ID)
	}
	return tx.otherwise("lead", "put quote")
}

// AddQuoteToken stores another page token record for tenant t's quote
// (a replayed createQuote answers a fresh link). A taken hash → conflict;
// a failed write is upstream_failed.
func (s *Store) AddQuoteToken(ctx context.Context, t auth.Tenant, tok record.PageToken) error {
	if err := checkPageToken(tok, tok.LeadID, tok.QuoteID); err != nil {
		return fmt.Errorf("add quote token: %w", err)
	}
	created, err := s.putIfNew(ctx, newQuoteTokenItem(t, tok), "put quote token")
	if err == nil && !created {
		return errcode.New(errcode.Conflict, "That quote page token already exists; nothing was written.")
	}
	return err
}

// AdmitQuoteToken resolves the quote page token whose hash is tokenHash
// and counts one request against its fixed minute window (limit), in one
// conditional UpdateItem of the token's record (as AdmitCaptureToken).
// Unknown token → not_found; at the limit the grant with Usage.Admitted
// false; a failed update is upstream_failed. Expiry is the caller's to
// judge (the grant carries it: whole seconds, rounded up).
func (s *Store) AdmitQuoteToken(ctx context.Context, tokenHash string, now time.Time, limit int) (record.QuotePageGrant, auth.Usage, error) {
	pk, sk := quoteTokenKey(tokenHash)
	var tok quoteTokenItem
	u, found, err := s.count(ctx, pk, sk, now, limit, false, &tok)
	switch {
	case err != nil:
		return record.QuotePageGrant{}, auth.Usage{}, upstream("admit quote token", err)
	case !found:
		return record.QuotePageGrant{}, auth.Usage{}, errcode.New(errcode.NotFound, "This quote link is not known.")
	}
	return record.QuotePageGrant{
		Tenant: auth.Tenant{PartnerID: tok.PartnerID, Mode: auth.Mode(tok.Mode)},
		LeadID: tok.LeadID, QuoteID: tok.QuoteID, ExpiresAt: time.Unix(tok.ExpiresAt, 0).UTC(),
	}, u, nil
}

// AcceptQuote writes a (see record.QuoteAccepted) in one TransactWriteItems.
// Errors: unknown quote or lead → not_found; a quote no longer open or a
// lead whose status or quote changed → conflict wrapping
// record.ErrChanged; any other failure → upstream_failed.
//
// An acceptance of another quote, or a quote whose stage is not the one
// its acceptance's mode gives (accepted, signed), is the caller's bug: an
// error before any write. Nothing is written on error.
func (s *Store) AcceptQuote(ctx context.Context, t auth.Tenant, a record.QuoteAccepted) error {
	q, acc := a.Quote, a.Acceptance
	wantStage := quote.StageAccepted
	if acc.Mode == quote.ModeSigned {
		wantStage = quote.StageSigned
	}
	if acc.QuoteID != q.ID || q.Stage != wantStage || (acc.Mode == quote.ModeSigned) != (acc.Evidence != nil) {
		return fmt.Errorf("accept quote %q: acceptance of %q in mode %q (evidence %t) with the quote %s: inconsistent",
			q.ID, acc.QuoteID, acc.Mode, acc.Evidence != nil, q.Stage)
	}
	stage := expression.Name("stage")
	upd := expression.Set(stage, expression.Value(string(q.Stage))).
		Set(expression.Name("acceptance_mode"), expression.Value(string(acc.Mode))).
		Set(expression.Name("accepted_at"), expression.Value(lead.FormatTime(acc.At))).
		Set(expression.Name("accepted_ip"), expression.Value(acc.IP)).
		Set(expression.Name("accepted_email"), expression.Value(acc.Email))
	if acc.Evidence != nil {
		upd = upd.Set(expression.Name("evidence"), expression.Value(newEvidenceItem(*acc.Evidence))).
			Set(expression.Name("evidence_hash"), expression.Value(acc.EvidenceHash))
	}
	qExpr, err := expression.NewBuilder().WithUpdate(upd).WithCondition(
		expression.AttributeExists(expression.Name(table.PK)).And(stage.Equal(expression.Value(string(quote.StageOpen))))).Build()
	if err != nil {
		return fmt.Errorf("build quote acceptance: %w", err)
	}
	at := lead.FormatTime(acc.At)
	lUpd := leadTouched(t, q.LeadID, a.At).
		Set(expression.Name("status"), expression.Value(string(a.LeadTo))).
		Set(expression.Name(attrQuoteStage), expression.Value(string(q.Stage))).
		Set(expression.Name(attrQuoteAcceptedAt), expression.Value(at))
	if acc.Mode == quote.ModeSigned {
		lUpd = lUpd.Set(expression.Name(attrQuoteSignedAt), expression.Value(at))
	}
	lExpr, err := expression.NewBuilder().WithUpdate(lUpd).WithCondition(
		expression.AttributeExists(expression.Name(table.PK)).
			And(expression.Name("status").Equal(expression.Value(string(a.LeadFrom)))).
			And(expression.Name(attrQuoteID).Equal(expression.Value(q.ID)))).Build()
	if err != nil {
		return fmt.Errorf("build lead acceptance: %w", err)
	}
	qpk, qsk := quoteKey(t, q.LeadID, q.ID)
	lpk, lsk := leadKey(t, q.LeadID)
	_, err = s.db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{
		TransactItems:          []types.TransactWriteItem{s.update(qpk, qsk, qExpr), s.update(lpk, lsk, lExpr)},
		ReturnConsumedCapacity: capacity,
	})
	if err == nil {
		return nil
	}
	tx := cancelled(err)
	if failed, old := tx.failedAt(0); failed {
		if len(old) == 0 {
			return notFound("quote")
		}
		return changed("quote")
	}
	if failed, old := tx.failedAt(1); failed {
		return leadCondFailed(old)
	}
	return tx.otherwise("quote", "accept quote")
}
