package dynamo

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/moveleads/partnerapi/shared/app/record"
	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/domain/errcode"
	"github.com/moveleads/partnerapi/shared/domain/lead"
	"github.com/moveleads/partnerapi/shared/domain/quote"
)

var quoteTenant = auth.Tenant{PartnerID: "ptn_quote", Mode: auth.Test}

// buildQuote returns an open quote id of leadID of type typ made at at,
// for a surveyed move (testMove).
func buildQuote(id, leadID string, typ quote.EstimateType, at time.Time) quote.Quote {
	in := quote.CreateInput{EstimateType: typ, PriceCents: 245_000, DepositCents: 25_000, ExpiresInDays: 30}
	return quote.Build(id, leadID, "share-"+id, in, testMove(), quote.Issuer{CompanyName: "Ada Movers LLC", Currency: "usd"}, at)
}

// testMove is a move with every field of quote.Move set.
func testMove() quote.Move {
	fv := int64(45_000)
	return quote.Move{
		FromAddress: "1 Main St, New York, NY 10001", ToAddress: "9 Oak Ave, Boston, MA 02108", MoveDate: "2027-01-15",
		Inventory:    []quote.Line{{Room: "Living room", Name: "Sofa, 3 seats", Count: 1}, {Room: "Bedroom", Name: "Bed, queen", Count: 2}},
		SpecialItems: []string{"piano"}, Services: []string{"Packing"}, FullValueCents: &fv,
	}
}

// pageToken returns a fresh page token record for leadID's quoteID,
// issued at at for 30 days.
func pageToken(leadID, quoteID string, at time.Time) record.PageToken {
	return record.PageToken{Hash: randomHex(32), LeadID: leadID, QuoteID: quoteID, IssuedAt: at, ExpiresAt: at.Add(30*24*time.Hour + 500*time.Millisecond)}
}

// newQuoteWrite is createQuote's write of q on a lead in status from whose
// quote is prev ("": none), superseding prev when supersede.
func newQuoteWrite(q quote.Quote, prev string, supersede bool, from lead.Status) record.NewQuote {
	w := record.NewQuote{LeadID: q.LeadID, Quote: q, Token: pageToken(q.LeadID, q.ID, q.CreatedAt),
		PrevQuoteID: prev, LeadFrom: from, LeadTo: lead.Quoted, At: q.CreatedAt}
	if supersede {
		w.Superseded = prev
	}
	return w
}

// quotedLead stores tn's lead leadID (new) and a quote of typ for it made
// at t0, and returns the quote.
func quotedLead(t testing.TB, s *Store, tn auth.Tenant, leadID string, typ quote.EstimateType) quote.Quote {
	t.Helper()
	putLeadIn(t, s, tn, leadID, lead.New)
	q := buildQuote("q_"+randomHex(6), leadID, typ, t0)
	if err := s.PutQuote(context.Background(), tn, newQuoteWrite(q, "", false, lead.New)); err != nil {
		t.Fatalf("PutQuote: %v", err)
	}
	return q
}

// decide decides an acceptance of q (open, its lead quoted) at at.
func decide(t testing.TB, q quote.Quote, at time.Time) quote.Decision {
	t.Helper()
	req := quote.AcceptRequest{AccepterEmail: "ada@example.com"}
	if q.EstimateType.IsBinding() {
		yes := true
		req = quote.AcceptRequest{SignerName: "Ada Lovelace", SignerEmail: "ada@example.com", Signature: []byte("\x89PNG signature"),
			LiabilityElection: quote.FullValueProtection, ESignConsentChecked: &yes}
	}
	d, err := quote.Decide(&q, nil, req, lead.Quoted, at, quote.EvidenceInput{
		IP: "::ffff:203.0.113.7", UserAgent: "Mozilla/5.0 (iPhone)", SignatureKeyPrefix: "signatures/ptn_quote/test/" + q.ID + "/"})
	if err != nil || !d.Changed {
		t.Fatalf("Decide = %+v, %v; want a new acceptance", d, err)
	}
	return d
}

// accepted is the store's write of decision d made at its time.
func accepted(d quote.Decision) record.QuoteAccepted {
	return record.QuoteAccepted{Quote: d.Quote, Acceptance: d.Acceptance, LeadFrom: lead.Quoted, LeadTo: d.LeadStatus, At: d.Acceptance.At}
}

// quoteLead reads tn's lead id with its refs.
func quoteLead(t testing.TB, s *Store, tn auth.Tenant, id string) record.Lead {
	t.Helper()
	ql, err := s.GetQuoteLead(context.Background(), tn, id)
	if err != nil {
		t.Fatalf("GetQuoteLead: %v", err)
	}
	return ql
}

func TestQuoteRoundTrip(t *testing.T) {
	ctx := context.Background()
	rec := &calls{}
	s := newStore(t, rec.install)
	putLeadIn(t, s, quoteTenant, "lead_1", lead.Surveying)
	q := buildQuote("q_1", "lead_1", quote.NonBinding, t0.Add(time.Minute))
	w := newQuoteWrite(q, "", false, lead.Surveying)
	if err := s.PutQuote(ctx, quoteTenant, w); err != nil {
		t.Fatalf("PutQuote: %v", err)
	}
	got, err := s.GetQuote(ctx, quoteTenant, "lead_1", "q_1")
	if err != nil || !reflect.DeepEqual(got, record.Quote{Quote: q}) {
		t.Fatalf("GetQuote = %+v, %v; want %+v", got, err, q)
	}
	rec.reset()
	ql := quoteLead(t, s, quoteTenant, "lead_1")
	if ops, ins := rec.taken(); !reflect.DeepEqual(ops, []string{"GetItem"}) || !aws.ToBool(ins[0].(*dynamodb.GetItemInput).ConsistentRead) {
		t.Errorf("GetQuoteLead calls %v; want one strongly consistent GetItem", ops)
	}
	wantRef := &record.QuoteRef{QuoteID: "q_1", ShareLinkID: "share-q_1", Stage: quote.StageOpen, ExpiresAt: q.ExpiresAt}
	if !reflect.DeepEqual(ql.Quote, wantRef) || ql.Deposit != nil || ql.Status != lead.Quoted || !ql.UpdatedAt.Equal(w.At) {
		t.Errorf("GetQuoteLead = %+v (quote %+v, deposit %+v); want status quoted, updated_at %s, quote %+v, no deposit", ql.Lead, ql.Quote, ql.Deposit, w.At, wantRef)
	}
	if got, want := gsi1SK(t, s, quoteTenant, "lead_1"), lead.FormatTime(w.At)+"#lead_1"; got != want {
		t.Errorf("gsi1sk = %q; want %q", got, want)
	}
	if ids := listedSince(t, s, quoteTenant, w.At); !reflect.DeepEqual(ids, []string{"lead_1"}) {
		t.Errorf("listed since the quote = %v; want [lead_1]", ids)
	}
	_, ls := leadView(t, s, quoteTenant, "lead_1")
	if !reflect.DeepEqual(ls.Quote, wantRef) || ls.Deposit != nil {
		t.Errorf("GetLeadWithSurvey quote %+v, deposit %+v; want %+v, nil", ls.Quote, ls.Deposit, wantRef)
	}

	t.Run("moves, sparse and absent", func(t *testing.T) {
		// An empty move (no survey, nothing stated) and a quote made
		// before quotes carried their move read back as written, so
		// their ShownHash is computed again as signed.
		for i, m := range []*quote.Move{{}, nil} {
			id := fmt.Sprintf("q_move_%d", i)
			leadID := "lead_move_" + strconv.Itoa(i)
			putLeadIn(t, s, quoteTenant, leadID, lead.Surveying)
			q := buildQuote(id, leadID, quote.Binding, t0.Add(time.Minute))
			q.Move = m
			if err := s.PutQuote(ctx, quoteTenant, newQuoteWrite(q, "", false, lead.Surveying)); err != nil {
				t.Fatalf("PutQuote: %v", err)
			}
			got, err := s.GetQuote(ctx, quoteTenant, leadID, id)
			if err != nil || !reflect.DeepEqual(got.Quote, q) || got.ShownHash() != q.ShownHash() {
				t.Errorf("GetQuote = %+v (move %+v), %v; want %+v (move %+v)", got.Quote, got.Move, err, q, q.Move)
			}
		}
	})

	t.Run("another tenant", func(t *testing.T) {
		for _, tn := range []auth.Tenant{{PartnerID: quoteTenant.PartnerID, Mode: auth.Live}, {PartnerID: "ptn_other", Mode: auth.Test}} {
			_, err := s.GetQuote(ctx, tn, "lead_1", "q_1")
			wantCode(t, err, errcode.NotFound)
			_, err = s.GetQuoteLead(ctx, tn, "lead_1")
			wantCode(t, err, errcode.NotFound)
		}
		_, err := s.GetQuote(ctx, quoteTenant, "lead_1", "q_2")
		wantCode(t, err, errcode.NotFound)
	})
	t.Run("a lead without a quote", func(t *testing.T) {
		putLeadIn(t, s, quoteTenant, "lead_2", lead.New)
		if ql := quoteLead(t, s, quoteTenant, "lead_2"); ql.Quote != nil || ql.Deposit != nil || ql.ID != "lead_2" {
			t.Errorf("GetQuoteLead = %+v; want lead_2 with no refs", ql)
		}
	})
}

func TestAcceptQuoteRoundTrip(t *testing.T) {
	ctx := context.Background()
	for _, typ := range quote.EstimateTypes {
		t.Run(string(typ), func(t *testing.T) {
			s := newStore(t)
			q := quotedLead(t, s, quoteTenant, "lead_1", typ)
			d := decide(t, q, t0.Add(26*time.Hour+7*time.Microsecond))
			a := accepted(d)
			a.At = d.Acceptance.At.Add(time.Second)
			if err := s.AcceptQuote(ctx, quoteTenant, a); err != nil {
				t.Fatalf("AcceptQuote: %v", err)
			}
			got, err := s.GetQuote(ctx, quoteTenant, "lead_1", q.ID)
			if want := (record.Quote{Quote: d.Quote, Acceptance: &d.Acceptance}); err != nil || !reflect.DeepEqual(got, want) {
				t.Fatalf("GetQuote = %+v (acceptance %+v), %v;\nwant %+v (acceptance %+v)", got, got.Acceptance, err, want, want.Acceptance)
			}
			at := d.Acceptance.At
			wantRef := &record.QuoteRef{QuoteID: q.ID, ShareLinkID: q.ShareLinkID, Stage: d.Quote.Stage, ExpiresAt: q.ExpiresAt, AcceptedAt: &at}
			if typ.IsBinding() {
				if got.Stage != quote.StageSigned || got.Acceptance.Evidence == nil {
					t.Fatalf("binding quote read back in stage %s with evidence %v; want signed with evidence", got.Stage, got.Acceptance.Evidence)
				}
				if h := got.Acceptance.Evidence.Hash(); h != got.Acceptance.EvidenceHash || h != d.Acceptance.EvidenceHash {
					t.Errorf("read-back evidence hashes to %s; stored evidence_hash %s, signed %s: want all equal", h, got.Acceptance.EvidenceHash, d.Acceptance.EvidenceHash)
				}
				wantRef.SignedAt = &at
			}
			ql := quoteLead(t, s, quoteTenant, "lead_1")
			if !reflect.DeepEqual(ql.Quote, wantRef) || ql.Status != lead.Accepted || !ql.UpdatedAt.Equal(a.At) {
				t.Errorf("lead status %s, updated_at %s, quote %+v; want accepted, %s, %+v", ql.Status, ql.UpdatedAt, ql.Quote, a.At, wantRef)
			}
			if got, want := gsi1SK(t, s, quoteTenant, "lead_1"), lead.FormatTime(a.At)+"#lead_1"; got != want {
				t.Errorf("gsi1sk = %q; want %q", got, want)
			}
			// Accepting again finds the quote no longer open.
			wantCause(t, s.AcceptQuote(ctx, quoteTenant, a), errcode.Conflict, ErrChanged)
		})
	}
}

func TestPutQuoteSupersedes(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	q1 := quotedLead(t, s, quoteTenant, "lead_1", quote.Binding)
	// Refs a new quote must clear (as a lead that had them would carry).
	lpk, lsk := leadKey(quoteTenant, "lead_1")
	expr, err := expression.NewBuilder().WithUpdate(
		expression.Set(expression.Name(attrQuoteAcceptedAt), expression.Value(lead.FormatTime(t0))).
			Set(expression.Name(attrQuoteSignedAt), expression.Value(lead.FormatTime(t0))).
			Set(expression.Name(attrDepositID), expression.Value("dep_old")).
			Set(expression.Name(attrDepositStatus), expression.Value("failed"))).Build()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: &s.table, Key: keyAV(lpk, lsk),
		UpdateExpression: expr.Update(), ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values()}); err != nil {
		t.Fatal(err)
	}
	q2 := buildQuote("q_2", "lead_1", quote.NonBinding, t0.Add(time.Hour))
	if err := s.PutQuote(ctx, quoteTenant, newQuoteWrite(q2, q1.ID, true, lead.Quoted)); err != nil {
		t.Fatalf("PutQuote superseding: %v", err)
	}
	old, err := s.GetQuote(ctx, quoteTenant, "lead_1", q1.ID)
	if err != nil || old.Stage != quote.StageSuperseded {
		t.Errorf("first quote stage %s, %v; want superseded", old.Stage, err)
	}
	old.Stage = q1.Stage
	if !reflect.DeepEqual(old.Quote, q1) {
		t.Errorf("first quote %+v; want %+v but for its stage", old.Quote, q1)
	}
	ql := quoteLead(t, s, quoteTenant, "lead_1")
	want := &record.QuoteRef{QuoteID: "q_2", ShareLinkID: "share-q_2", Stage: quote.StageOpen, ExpiresAt: q2.ExpiresAt}
	if !reflect.DeepEqual(ql.Quote, want) || ql.Deposit != nil || ql.Status != lead.Quoted {
		t.Errorf("lead quote %+v, deposit %+v, status %s; want %+v, none, quoted", ql.Quote, ql.Deposit, ql.Status, want)
	}
}

func TestPutQuoteConditions(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	putLeadIn(t, s, quoteTenant, "lead_1", lead.New)
	first := newQuoteWrite(buildQuote("q_1", "lead_1", quote.NonBinding, t0), "", false, lead.New)
	if err := s.PutQuote(ctx, quoteTenant, first); err != nil {
		t.Fatal(err)
	}
	q1 := first.Quote
	accepted1 := quotedLead(t, s, quoteTenant, "lead_acc", quote.NonBinding)
	if err := s.AcceptQuote(ctx, quoteTenant, accepted(decide(t, accepted1, t0.Add(time.Hour)))); err != nil {
		t.Fatal(err)
	}
	later := t0.Add(2 * time.Hour)
	next := func(leadID, prev string, supersede bool, from lead.Status) record.NewQuote {
		return newQuoteWrite(buildQuote("q_new", leadID, quote.NonBinding, later), prev, supersede, from)
	}
	tests := []struct {
		name   string
		tenant auth.Tenant
		w      record.NewQuote
		code   errcode.Code
		cause  error
	}{
		{"unknown lead", quoteTenant, next("lead_nobody", "", false, lead.New), errcode.NotFound, nil},
		{"another tenant's lead", auth.Tenant{PartnerID: quoteTenant.PartnerID, Mode: auth.Live}, next("lead_1", q1.ID, true, lead.Quoted), errcode.NotFound, nil},
		{"another partner's lead", auth.Tenant{PartnerID: "ptn_other", Mode: auth.Test}, next("lead_1", q1.ID, true, lead.Quoted), errcode.NotFound, nil},
		{"lead status changed", quoteTenant, next("lead_1", q1.ID, true, lead.Surveying), errcode.Conflict, ErrChanged},
		{"lead's quote changed (none read)", quoteTenant, next("lead_1", "", false, lead.Quoted), errcode.Conflict, ErrChanged},
		{"lead's quote changed (another read)", quoteTenant, next("lead_1", "q_older", false, lead.Quoted), errcode.Conflict, ErrChanged},
		{"superseded quote no longer open", quoteTenant, next("lead_acc", accepted1.ID, true, lead.Accepted), errcode.Conflict, ErrChanged},
		{"taken quote id", quoteTenant, newQuoteWrite(buildQuote(q1.ID, "lead_1", quote.Binding, later), q1.ID, false, lead.Quoted), errcode.Conflict, nil},
		{"taken token hash", quoteTenant, func() record.NewQuote {
			w := next("lead_1", q1.ID, true, lead.Quoted)
			w.Token.Hash = first.Token.Hash
			return w
		}(), errcode.Conflict, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := tt.w
			lpk, lsk := leadKey(quoteTenant, w.LeadID)
			opk, osk := quoteKey(quoteTenant, w.LeadID, w.PrevQuoteID)
			npk, nsk := quoteKey(tt.tenant, w.LeadID, w.Quote.ID)
			tpk, tsk := quoteTokenKey(w.Token.Hash)
			beforeLead, beforeOld, beforeNew, beforeTok := rawItem(t, s, lpk, lsk), rawItem(t, s, opk, osk), rawItem(t, s, npk, nsk), rawItem(t, s, tpk, tsk)
			err := s.PutQuote(ctx, tt.tenant, w)
			wantCode(t, err, tt.code)
			if tt.cause != nil {
				wantCause(t, err, tt.code, tt.cause)
			} else if errors.Is(err, ErrChanged) {
				t.Errorf("err = %v; want no ErrChanged", err)
			}
			for _, it := range []struct {
				what   string
				pk, sk string
				was    map[string]types.AttributeValue
			}{{"lead", lpk, lsk, beforeLead}, {"previous quote", opk, osk, beforeOld}, {"new quote", npk, nsk, beforeNew}, {"token record", tpk, tsk, beforeTok}} {
				if !reflect.DeepEqual(rawItem(t, s, it.pk, it.sk), it.was) {
					t.Errorf("the %s changed; want nothing written", it.what)
				}
			}
		})
	}
	t.Run("superseded other than the lead's quote", func(t *testing.T) {
		w := next("lead_1", q1.ID, true, lead.Quoted)
		w.Superseded = "q_other"
		if err := s.PutQuote(ctx, quoteTenant, w); err == nil || errcode.As(err) != nil {
			t.Errorf("PutQuote = %v; want a plain error (the caller's bug)", err)
		}
	})
}

func TestAcceptQuoteConditions(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	q1 := quotedLead(t, s, quoteTenant, "lead_1", quote.Binding)
	// lead_2's current quote is q_b, made without superseding q_a: q_a is
	// open but no longer the lead's.
	qa := quotedLead(t, s, quoteTenant, "lead_2", quote.NonBinding)
	qb := buildQuote("q_b", "lead_2", quote.NonBinding, t0.Add(time.Minute))
	if err := s.PutQuote(ctx, quoteTenant, newQuoteWrite(qb, qa.ID, false, lead.Quoted)); err != nil {
		t.Fatal(err)
	}
	at := t0.Add(time.Hour)
	tests := []struct {
		name   string
		tenant auth.Tenant
		a      func() record.QuoteAccepted
		code   errcode.Code
		cause  error
	}{
		{"unknown quote", quoteTenant, func() record.QuoteAccepted {
			return accepted(decide(t, buildQuote("q_nobody", "lead_1", quote.Binding, t0), at))
		}, errcode.NotFound, nil},
		{"unknown lead", quoteTenant, func() record.QuoteAccepted {
			return accepted(decide(t, buildQuote("q_nobody", "lead_nobody", quote.Binding, t0), at))
		}, errcode.NotFound, nil},
		{"another tenant", auth.Tenant{PartnerID: "ptn_other", Mode: auth.Test}, func() record.QuoteAccepted {
			return accepted(decide(t, q1, at))
		}, errcode.NotFound, nil},
		{"lead status changed", quoteTenant, func() record.QuoteAccepted {
			a := accepted(decide(t, q1, at))
			a.LeadFrom = lead.New
			return a
		}, errcode.Conflict, ErrChanged},
		{"lead's quote is another", quoteTenant, func() record.QuoteAccepted {
			return accepted(decide(t, qa, at))
		}, errcode.Conflict, ErrChanged},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := tt.a()
			lpk, lsk := leadKey(quoteTenant, a.Quote.LeadID)
			qpk, qsk := quoteKey(quoteTenant, a.Quote.LeadID, a.Quote.ID)
			beforeLead, beforeQuote := rawItem(t, s, lpk, lsk), rawItem(t, s, qpk, qsk)
			err := s.AcceptQuote(ctx, tt.tenant, a)
			wantCode(t, err, tt.code)
			if tt.cause != nil {
				wantCause(t, err, tt.code, tt.cause)
			}
			if !reflect.DeepEqual(rawItem(t, s, lpk, lsk), beforeLead) || !reflect.DeepEqual(rawItem(t, s, qpk, qsk), beforeQuote) {
				t.Error("the lead or the quote changed; want nothing written")
			}
		})
	}
	t.Run("inconsistent acceptance", func(t *testing.T) {
		a := accepted(decide(t, q1, at))
		a.Quote.Stage = quote.StageAccepted // signed mode
		if err := s.AcceptQuote(ctx, quoteTenant, a); err == nil || errcode.As(err) != nil {
			t.Errorf("AcceptQuote = %v; want a plain error (the caller's bug)", err)
		}
	})
}

func TestQuoteTokens(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	putLeadIn(t, s, quoteTenant, "lead_1", lead.New)
	q := buildQuote("q_1", "lead_1", quote.NonBinding, t0)
	w := newQuoteWrite(q, "", false, lead.New)
	if err := s.PutQuote(ctx, quoteTenant, w); err != nil {
		t.Fatal(err)
	}
	wantGrant := record.QuotePageGrant{Tenant: quoteTenant, LeadID: "lead_1", QuoteID: "q_1",
		ExpiresAt: w.Token.ExpiresAt.Truncate(time.Second).Add(time.Second).UTC()}
	now := time.Date(2026, 11, 21, 12, 5, 10, 0, time.UTC)
	for i, wantAdmitted := range []bool{true, true, false, false} {
		g, u, err := s.AdmitQuoteToken(ctx, w.Token.Hash, now, 2)
		if err != nil || g != wantGrant || u.Admitted != wantAdmitted {
			t.Fatalf("request %d: AdmitQuoteToken = %+v, %+v, %v; want %+v admitted %v", i+1, g, u, err, wantGrant, wantAdmitted)
		}
		if want := max(2-(i+1), 0); u.Remaining != want {
			t.Errorf("request %d: remaining %d; want %d", i+1, u.Remaining, want)
		}
	}
	if _, u, err := s.AdmitQuoteToken(ctx, w.Token.Hash, now.Add(time.Minute), 2); err != nil || !u.Admitted {
		t.Errorf("next minute: %+v, %v; want admitted", u, err)
	}
	_, _, err := s.AdmitQuoteToken(ctx, randomHex(32), now, 2)
	wantCode(t, err, errcode.NotFound)

	t.Run("a fresh link", func(t *testing.T) {
		tok := pageToken("lead_1", "q_1", t0.Add(time.Hour))
		if err := s.AddQuoteToken(ctx, quoteTenant, tok); err != nil {
			t.Fatalf("AddQuoteToken: %v", err)
		}
		g, u, err := s.AdmitQuoteToken(ctx, tok.Hash, now, 2)
		if err != nil || !u.Admitted || g.QuoteID != "q_1" || g.Tenant != quoteTenant {
			t.Errorf("AdmitQuoteToken of the fresh link = %+v, %+v, %v; want q_1 of the tenant, admitted", g, u, err)
		}
		wantCode(t, s.AddQuoteToken(ctx, quoteTenant, tok), errcode.Conflict)
	})
}
