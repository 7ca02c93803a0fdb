package dynamo

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/moveleads/partnerapi/shared/app/record"
	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/domain/errcode"
	"github.com/moveleads/partnerapi/shared/domain/estimate"
	"github.com/moveleads/partnerapi/shared/domain/inventory"
	"github.com/moveleads/partnerapi/shared/domain/lead"
	"github.com/moveleads/partnerapi/shared/domain/linktoken"
	"github.com/moveleads/partnerapi/shared/domain/survey"
	"github.com/moveleads/partnerapi/shared/testkit/dynamotest"
)

var surveyTenant = auth.Tenant{PartnerID: "ptn_survey", Mode: auth.Test}

// putLeadIn stores a lead id for tn in status st, updated at t0.
func putLeadIn(t testing.TB, s *Store, tn auth.Tenant, id string, st lead.Status) lead.Lead {
	t.Helper()
	l := fullLead(id, t0, false)
	l.Status, l.UpdatedAt = st, t0
	if err := s.PutLead(context.Background(), tn, l, false); err != nil {
		t.Fatalf("PutLead: %v", err)
	}
	return l
}

// newSurvey returns a new survey of leadID made at at, and its token.
func newSurvey(t testing.TB, leadID string, at time.Time) (survey.Survey, string) {
	t.Helper()
	sv, token, err := survey.New("srv_"+randomHex(8), leadID, survey.DefaultTokenLifetime, at)
	if err != nil {
		t.Fatalf("survey.New: %v", err)
	}
	return sv, token
}

// startSurvey stores a new survey of tn's lead leadID at at.
func startSurvey(t testing.TB, s *Store, tn auth.Tenant, leadID string, at time.Time) (survey.Survey, string) {
	t.Helper()
	sv, token := newSurvey(t, leadID, at)
	if err := s.StartSurvey(context.Background(), tn, sv); err != nil {
		t.Fatalf("StartSurvey: %v", err)
	}
	return sv, token
}

// wantCause fails unless err is an *errcode.Error with code whose chain
// holds target.
func wantCause(t testing.TB, err error, code errcode.Code, target error) {
	t.Helper()
	wantCode(t, err, code)
	if !errors.Is(err, target) {
		t.Fatalf("err = %v; want one wrapping %v", err, target)
	}
}

// rawItem returns the stored item (pk, sk), or nil.
func rawItem(t testing.TB, s *Store, pk, sk string) map[string]types.AttributeValue {
	t.Helper()
	out, err := s.db.GetItem(context.Background(), &dynamodb.GetItemInput{TableName: &s.table, Key: keyAV(pk, sk), ConsistentRead: aws.Bool(true)})
	if err != nil {
		t.Fatal(err)
	}
	return out.Item
}

// leadView reads tn's lead id with its survey.
func leadView(t testing.TB, s *Store, tn auth.Tenant, id string) (lead.Lead, record.LeadSurvey) {
	t.Helper()
	l, ls, err := s.GetLeadWithSurvey(context.Background(), tn, id)
	if err != nil {
		t.Fatalf("GetLeadWithSurvey: %v", err)
	}
	return l, ls
}

// listedSince returns the ids of tn's leads listed with updated_since at
// (a Query of gsi1 from that position).
func listedSince(t testing.TB, s *Store, tn auth.Tenant, at time.Time) []string {
	t.Helper()
	leads, _, err := s.ListLeads(context.Background(), tn, lead.ListQuery{Since: &at, Limit: 10})
	if err != nil {
		t.Fatalf("ListLeads: %v", err)
	}
	var ids []string
	for _, l := range leads {
		ids = append(ids, l.ID)
	}
	return ids
}

// equalSurvey compares surveys, times by instant.
func equalSurvey(a, b survey.Survey) bool {
	norm := func(s survey.Survey) survey.Survey {
		s.CreatedAt, s.UpdatedAt, s.TokenExpiresAt = s.CreatedAt.UTC(), s.UpdatedAt.UTC(), s.TokenExpiresAt.UTC()
		s.Tokens = append([]survey.StoredToken{}, s.Tokens...)
		for i := range s.Tokens {
			s.Tokens[i].IssuedAt, s.Tokens[i].ExpiresAt = s.Tokens[i].IssuedAt.UTC(), s.Tokens[i].ExpiresAt.UTC()
		}
		return s
	}
	return reflect.DeepEqual(norm(a), norm(b))
}

func TestStartSurvey(t *testing.T) {
	ctx := context.Background()
	at := t0.Add(time.Hour)
	t.Run("first survey of a new lead", func(t *testing.T) {
		rec := &calls{}
		s := newStore(t, rec.install)
		putLeadIn(t, s, surveyTenant, "lead_1", lead.New)
		if ids := listedSince(t, s, surveyTenant, at); len(ids) != 0 {
			t.Fatalf("listed since %s before the survey: %v; want none", at, ids)
		}
		rec.reset()
		sv, token := startSurvey(t, s, surveyTenant, "lead_1", at)
		if ops, _ := rec.taken(); !reflect.DeepEqual(ops, []string{"TransactWriteItems"}) {
			t.Errorf("StartSurvey calls = %v; want one TransactWriteItems", ops)
		}
		l, ls := leadView(t, s, surveyTenant, "lead_1")
		if l.Status != lead.Surveying || !l.UpdatedAt.Equal(at) {
			t.Errorf("lead status %s updated_at %s; want surveying, %s", l.Status, l.UpdatedAt, at)
		}
		if want := (record.LeadSurvey{SurveyID: sv.ID, Status: survey.Invited}); !reflect.DeepEqual(ls, want) {
			t.Errorf("lead survey = %+v; want %+v", ls, want)
		}
		if ids := listedSince(t, s, surveyTenant, at); !reflect.DeepEqual(ids, []string{"lead_1"}) {
			t.Errorf("listed since %s = %v; want [lead_1]", at, ids)
		}
		got, err := s.GetSurvey(ctx, surveyTenant, sv.ID)
		if err != nil || !equalSurvey(got.Survey, sv) {
			t.Errorf("GetSurvey = %+v, %v; want %+v", got.Survey, err, sv)
		}
		tn, _, err := s.SurveyByToken(ctx, linktoken.Hash(token), at)
		if err != nil || tn != surveyTenant {
			t.Errorf("SurveyByToken = %+v, %v; want %+v", tn, err, surveyTenant)
		}
	})
	t.Run("lead of another tenant or mode", func(t *testing.T) {
		s := newStore(t)
		putLeadIn(t, s, surveyTenant, "lead_1", lead.New)
		for _, tn := range []auth.Tenant{{PartnerID: surveyTenant.PartnerID, Mode: auth.Live}, {PartnerID: "ptn_other", Mode: auth.Test}} {
			sv, token := newSurvey(t, "lead_1", at)
			wantCode(t, s.StartSurvey(ctx, tn, sv), errcode.NotFound)
			_, err := s.GetSurvey(ctx, tn, sv.ID)
			wantCode(t, err, errcode.NotFound)
			_, _, err = s.SurveyByToken(ctx, linktoken.Hash(token), at)
			wantCause(t, err, errcode.NotFound, survey.ErrTokenUnknown)
		}
		if _, ls := leadView(t, s, surveyTenant, "lead_1"); ls.Status != survey.None {
			t.Errorf("lead survey status %s; want none", ls.Status)
		}
	})
	t.Run("duplicate start names the live survey", func(t *testing.T) {
		s := newStore(t)
		putLeadIn(t, s, surveyTenant, "lead_1", lead.New)
		first, _ := startSurvey(t, s, surveyTenant, "lead_1", at)
		second, token := newSurvey(t, "lead_1", at.Add(time.Minute))
		err := s.StartSurvey(ctx, surveyTenant, second)
		wantCode(t, err, errcode.Conflict)
		var live *record.LiveSurveyError
		if !errors.As(err, &live) || live.SurveyID != first.ID || live.Status != survey.Invited {
			t.Fatalf("err = %v; want a *record.LiveSurveyError naming %s (invited)", err, first.ID)
		}
		if _, err := s.GetSurvey(ctx, surveyTenant, second.ID); errcode.As(err) == nil || errcode.As(err).Code != errcode.NotFound {
			t.Errorf("second survey stored (GetSurvey error %v); want nothing written", err)
		}
		_, _, err = s.SurveyByToken(ctx, linktoken.Hash(token), at)
		wantCause(t, err, errcode.NotFound, survey.ErrTokenUnknown)
		if l, ls := leadView(t, s, surveyTenant, "lead_1"); ls.SurveyID != first.ID || !l.UpdatedAt.Equal(at) {
			t.Errorf("lead survey %s updated_at %s; want %s, %s", ls.SurveyID, l.UpdatedAt, first.ID, at)
		}
	})
	t.Run("a closed survey makes way for a new one", func(t *testing.T) {
		s := newStore(t)
		putLeadIn(t, s, surveyTenant, "lead_1", lead.New)
		first, _ := startSurvey(t, s, surveyTenant, "lead_1", at)
		est := &estimate.Estimate{Min: 900, Max: 1400, Currency: "usd"}
		for i, step := range []record.SurveyTransition{
			{From: survey.Invited, To: survey.Recording},
			{From: survey.Recording, To: survey.Processing},
			{From: survey.Processing, To: survey.InventoryReady, Inventory: &inventory.Inventory{Rooms: []inventory.Room{}}, Recommended: est},
		} {
			step.LeadID, step.SurveyID, step.At = "lead_1", first.ID, at.Add(time.Duration(i+1)*time.Minute)
			if err := s.AdvanceSurvey(ctx, surveyTenant, step); err != nil {
				t.Fatalf("AdvanceSurvey to %s: %v", step.To, err)
			}
		}
		if _, ls := leadView(t, s, surveyTenant, "lead_1"); !reflect.DeepEqual(ls.Recommended, est) {
			t.Fatalf("recommended estimate %+v; want %+v", ls.Recommended, est)
		}
		later := at.Add(time.Hour)
		second, _ := startSurvey(t, s, surveyTenant, "lead_1", later)
		l, ls := leadView(t, s, surveyTenant, "lead_1")
		if want := (record.LeadSurvey{SurveyID: second.ID, Status: survey.Invited}); !reflect.DeepEqual(ls, want) {
			t.Errorf("lead survey = %+v; want the newest %+v (no estimate yet)", ls, want)
		}
		if !l.UpdatedAt.Equal(later) || l.Status != lead.Surveying {
			t.Errorf("lead updated_at %s status %s; want %s surveying", l.UpdatedAt, l.Status, later)
		}
	})
	t.Run("other lead statuses are kept", func(t *testing.T) {
		tests := []struct {
			status  lead.Status
			want    lead.Status
			attempt int // TransactWriteItems calls
		}{
			{lead.New, lead.Surveying, 1},
			{lead.Surveying, lead.Surveying, 1},
			{lead.Quoted, lead.Quoted, 2},
			{lead.Booked, lead.Booked, 2},
		}
		for _, tt := range tests {
			t.Run(string(tt.status), func(t *testing.T) {
				rec := &calls{}
				s := newStore(t, rec.install)
				putLeadIn(t, s, surveyTenant, "lead_1", tt.status)
				rec.reset()
				startSurvey(t, s, surveyTenant, "lead_1", at)
				if l, ls := leadView(t, s, surveyTenant, "lead_1"); l.Status != tt.want || ls.Status != survey.Invited || !l.UpdatedAt.Equal(at) {
					t.Errorf("lead status %s, survey %s, updated_at %s; want %s, invited, %s", l.Status, ls.Status, l.UpdatedAt, tt.want, at)
				}
				if n := rec.count("TransactWriteItems"); n != tt.attempt {
					t.Errorf("%d transactions; want %d", n, tt.attempt)
				}
			})
		}
	})
	t.Run("a lead that keeps changing", func(t *testing.T) {
		rec := &calls{}
		s := newStore(t, rec.install)
		putLeadIn(t, s, surveyTenant, "lead_1", lead.Quoted)
		rec.before = func(op string, n int) error {
			if op == "TransactWriteItems" && n == 2 { // between the attempts
				_, err := other(t, s).SetLeadStatus(ctx, surveyTenant, "lead_1", lead.Accepted, at)
				return err
			}
			return nil
		}
		sv, _ := newSurvey(t, "lead_1", at.Add(time.Minute))
		wantCause(t, s.StartSurvey(ctx, surveyTenant, sv), errcode.Conflict, ErrChanged)
		if _, ls := leadView(t, s, surveyTenant, "lead_1"); ls.Status != survey.None {
			t.Errorf("lead survey status %s; want none (nothing written)", ls.Status)
		}
	})
	t.Run("refuses a survey not from survey.New", func(t *testing.T) {
		s := newStore(t)
		sv, _ := newSurvey(t, "lead_1", at)
		sv.Status = survey.Recording
		if err := s.StartSurvey(ctx, surveyTenant, sv); err == nil {
			t.Error("StartSurvey(recording survey) = nil; want an error")
		}
	})
}

func TestGetLeadWithSurveyIsOneRead(t *testing.T) {
	rec := &calls{}
	s := newStore(t, rec.install)
	putLeadIn(t, s, surveyTenant, "lead_1", lead.New)
	_, ls := leadView(t, s, surveyTenant, "lead_1")
	if want := (record.LeadSurvey{Status: survey.None}); !reflect.DeepEqual(ls, want) {
		t.Errorf("lead without survey = %+v; want %+v", ls, want)
	}
	sv, _ := startSurvey(t, s, surveyTenant, "lead_1", t0.Add(time.Hour))
	// The lead item itself carries the survey, under the attribute names
	// getLead's one GetItem reads.
	pk, sk := leadKey(surveyTenant, "lead_1")
	item := rawItem(t, s, pk, sk)
	for attr, want := range map[string]string{attrSurveyID: sv.ID, attrSurveyStatus: "invited"} {
		if v, ok := item[attr].(*types.AttributeValueMemberS); !ok || v.Value != want {
			t.Errorf("lead item %s = %#v; want %q", attr, item[attr], want)
		}
	}
	rec.reset()
	leadView(t, s, surveyTenant, "lead_1")
	if ops, _ := rec.taken(); !reflect.DeepEqual(ops, []string{"GetItem"}) {
		t.Errorf("GetLeadWithSurvey calls = %v; want one GetItem", ops)
	}
	_, _, err := s.GetLeadWithSurvey(context.Background(), auth.Tenant{PartnerID: surveyTenant.PartnerID, Mode: auth.Live}, "lead_1")
	wantCode(t, err, errcode.NotFound)
	// The existing reads ignore the survey attributes.
	if l, err := s.GetLead(context.Background(), surveyTenant, "lead_1"); err != nil || l.Status != lead.Surveying {
		t.Errorf("GetLead = %s, %v; want surveying, nil", l.Status, err)
	}
}

// TestNoTokenInAnyItem scans the whole test table (allowed in tests
// only) for the plain text of every capture token issued.
func TestNoTokenInAnyItem(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	putLeadIn(t, s, surveyTenant, "lead_1", lead.New)
	sv, token := startSurvey(t, s, surveyTenant, "lead_1", t0)
	tokens := []string{token}
	for i := range 3 {
		tok, after, err := s.AddSurveyToken(ctx, surveyTenant, sv, survey.DefaultTokenLifetime, t0.Add(time.Duration(i+1)*time.Minute))
		if err != nil {
			t.Fatalf("AddSurveyToken: %v", err)
		}
		sv, tokens = after, append(tokens, tok)
	}
	all := scanStrings(t, s)
	for _, tok := range tokens {
		if strings.Contains(all, tok) {
			t.Errorf("token %q stored in plain text", tok)
		}
		// The hash is stored: the scan would have seen a token too.
		if !strings.Contains(all, linktoken.Hash(tok)) {
			t.Errorf("hash of token %q not found in the table; the scan saw too little", tok)
		}
	}
}

// scanStrings returns every attribute name and string value of every item
// of s's table, for a test that searches it for a secret.
func scanStrings(t testing.TB, s *Store) string {
	t.Helper()
	return dynamotest.ScanStrings(t, s.db, s.table)
}
