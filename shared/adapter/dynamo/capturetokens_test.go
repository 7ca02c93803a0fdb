package dynamo

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/moveleads/partnerapi/shared/app/record"
	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/domain/errcode"
	"github.com/moveleads/partnerapi/shared/domain/lead"
	"github.com/moveleads/partnerapi/shared/domain/linktoken"
	"github.com/moveleads/partnerapi/shared/domain/survey"
)

func TestAddSurveyToken(t *testing.T) {
	ctx := context.Background()
	t.Run("a fresh link, earlier links keep working", func(t *testing.T) {
		s := newStore(t)
		putLeadIn(t, s, surveyTenant, "lead_1", lead.New)
		sv, first := startSurvey(t, s, surveyTenant, "lead_1", t0)
		l0, _ := leadView(t, s, surveyTenant, "lead_1")
		at := t0.Add(time.Hour)
		token, after, err := s.AddSurveyToken(ctx, surveyTenant, sv, 2*time.Hour, at)
		if err != nil {
			t.Fatalf("AddSurveyToken: %v", err)
		}
		if token == first || len(after.Tokens) != 2 {
			t.Fatalf("AddSurveyToken = %q with %d tokens; want a new token, 2 tokens", token, len(after.Tokens))
		}
		stored, err := s.GetSurvey(ctx, surveyTenant, sv.ID)
		if err != nil || !equalSurvey(stored.Survey, after) {
			t.Errorf("stored survey = %+v, %v; want %+v", stored.Survey, err, after)
		}
		for _, tok := range []string{first, token} {
			if _, _, err := s.SurveyByToken(ctx, linktoken.Hash(tok), at); err != nil {
				t.Errorf("SurveyByToken(%s…) = %v; want nil", tok[:6], err)
			}
		}
		if l, _ := leadView(t, s, surveyTenant, "lead_1"); !l.UpdatedAt.Equal(l0.UpdatedAt) {
			t.Errorf("lead updated_at moved to %s; want %s (a new link is no transition)", l.UpdatedAt, l0.UpdatedAt)
		}
	})
	t.Run("a given token twice is written once", func(t *testing.T) {
		s := newStore(t)
		putLeadIn(t, s, surveyTenant, "lead_1", lead.New)
		sv, _ := startSurvey(t, s, surveyTenant, "lead_1", t0)
		token, err := linktoken.Derive([]byte(strings.Repeat("k", linktoken.MinKey)), "lead_1", "idem")
		if err != nil {
			t.Fatal(err)
		}
		after, err := s.PutSurveyToken(ctx, surveyTenant, sv, token, survey.DefaultTokenLifetime, t0.Add(time.Minute))
		if err != nil || len(after.Tokens) != 2 {
			t.Fatalf("PutSurveyToken = %d tokens, %v; want 2, nil", len(after.Tokens), err)
		}
		// A retry after a lost answer: the same token, nothing written.
		again, err := s.PutSurveyToken(ctx, surveyTenant, after, token, survey.DefaultTokenLifetime, t0.Add(2*time.Minute))
		if err != nil || len(again.Tokens) != 2 {
			t.Fatalf("PutSurveyToken again = %d tokens, %v; want 2, nil", len(again.Tokens), err)
		}
		stored, err := s.GetSurvey(ctx, surveyTenant, sv.ID)
		if err != nil || !equalSurvey(stored.Survey, after) {
			t.Errorf("stored survey = %+v, %v; want %+v", stored.Survey, err, after)
		}
		if _, _, err := s.SurveyByToken(ctx, linktoken.Hash(token), t0.Add(time.Hour)); err != nil {
			t.Errorf("SurveyByToken of the given token = %v; want nil", err)
		}
	})
	t.Run("keeps the newest tokens only", func(t *testing.T) {
		s := newStore(t)
		putLeadIn(t, s, surveyTenant, "lead_1", lead.New)
		sv, first := startSurvey(t, s, surveyTenant, "lead_1", t0)
		var last string
		for i := range survey.MaxTokens {
			var err error
			last, sv, err = s.AddSurveyToken(ctx, surveyTenant, sv, survey.DefaultTokenLifetime, t0.Add(time.Duration(i+1)*time.Minute))
			if err != nil {
				t.Fatalf("AddSurveyToken %d: %v", i+1, err)
			}
		}
		stored, err := s.GetSurvey(ctx, surveyTenant, sv.ID)
		if err != nil || len(stored.Tokens) != survey.MaxTokens {
			t.Fatalf("stored %d tokens, %v; want %d", len(stored.Tokens), err, survey.MaxTokens)
		}
		at := t0.Add(time.Hour)
		_, _, err = s.SurveyByToken(ctx, linktoken.Hash(first), at)
		wantCause(t, err, errcode.NotFound, survey.ErrTokenUnknown)
		if _, _, err := s.SurveyByToken(ctx, linktoken.Hash(last), at); err != nil {
			t.Errorf("SurveyByToken(newest) = %v; want nil", err)
		}
	})
	t.Run("a survey read before a concurrent link", func(t *testing.T) {
		s := newStore(t)
		putLeadIn(t, s, surveyTenant, "lead_1", lead.New)
		sv, _ := startSurvey(t, s, surveyTenant, "lead_1", t0)
		_, winner, err := s.AddSurveyToken(ctx, surveyTenant, sv, survey.DefaultTokenLifetime, t0.Add(time.Minute))
		if err != nil {
			t.Fatal(err)
		}
		token, _, err := s.AddSurveyToken(ctx, surveyTenant, sv, survey.DefaultTokenLifetime, t0.Add(time.Minute))
		wantCause(t, err, errcode.Conflict, ErrChanged)
		if token != "" {
			t.Errorf("AddSurveyToken returned token %q with its error; want none", token)
		}
		if stored, _ := s.GetSurvey(ctx, surveyTenant, sv.ID); !equalSurvey(stored.Survey, winner) {
			t.Errorf("stored survey = %+v; want the first writer's %+v", stored.Survey, winner)
		}
	})
	t.Run("a survey read before a concurrent link, at MaxTokens", func(t *testing.T) {
		// The token list keeps its length once full: only its newest
		// entry tells the two writes apart.
		s := newStore(t)
		putLeadIn(t, s, surveyTenant, "lead_1", lead.New)
		sv, _ := startSurvey(t, s, surveyTenant, "lead_1", t0)
		for i := range survey.MaxTokens {
			var err error
			if _, sv, err = s.AddSurveyToken(ctx, surveyTenant, sv, survey.DefaultTokenLifetime, t0.Add(time.Duration(i+1)*time.Minute)); err != nil {
				t.Fatal(err)
			}
		}
		at := t0.Add(time.Hour)
		_, winner, err := s.AddSurveyToken(ctx, surveyTenant, sv, survey.DefaultTokenLifetime, at)
		if err != nil {
			t.Fatal(err)
		}
		_, _, err = s.AddSurveyToken(ctx, surveyTenant, sv, survey.DefaultTokenLifetime, at)
		wantCause(t, err, errcode.Conflict, ErrChanged)
		if stored, _ := s.GetSurvey(ctx, surveyTenant, sv.ID); !equalSurvey(stored.Survey, winner) {
			t.Errorf("stored survey = %+v; want the first writer's %+v", stored.Survey, winner)
		}
	})
	t.Run("refusals", func(t *testing.T) {
		s := newStore(t)
		putLeadIn(t, s, surveyTenant, "lead_1", lead.New)
		sv, _ := startSurvey(t, s, surveyTenant, "lead_1", t0)
		closed := sv
		closed.Status = survey.Failed
		_, _, err := s.AddSurveyToken(ctx, surveyTenant, closed, survey.DefaultTokenLifetime, t0)
		wantCause(t, err, errcode.SurveyClosed, survey.ErrClosed)
		if _, _, err := s.AddSurveyToken(ctx, surveyTenant, sv, time.Minute, t0); !errors.Is(err, survey.ErrLifetime) {
			t.Errorf("lifetime of a minute: %v; want ErrLifetime", err)
		}
		for _, tn := range []auth.Tenant{{PartnerID: surveyTenant.PartnerID, Mode: auth.Live}, {PartnerID: "ptn_other", Mode: auth.Test}} {
			_, _, err := s.AddSurveyToken(ctx, tn, sv, survey.DefaultTokenLifetime, t0)
			wantCode(t, err, errcode.NotFound)
		}
		// Stored as failed, read as live.
		advanceAll(t, s, surveyTenant, sv, survey.Failed, t0.Add(time.Minute))
		_, _, err = s.AddSurveyToken(ctx, surveyTenant, sv, survey.DefaultTokenLifetime, t0.Add(time.Hour))
		wantCause(t, err, errcode.SurveyClosed, survey.ErrClosed)
		if stored, _ := s.GetSurvey(ctx, surveyTenant, sv.ID); len(stored.Tokens) != 1 {
			t.Errorf("stored %d tokens after the refusals; want 1", len(stored.Tokens))
		}
	})
}

// advanceAll moves tn's survey sv forward to final through every state,
// one minute apart from at.
func advanceAll(t testing.TB, s *Store, tn auth.Tenant, sv survey.Survey, final survey.Status, at time.Time) {
	t.Helper()
	from := sv.Status
	for i, to := range []survey.Status{survey.Recording, survey.Processing, final} {
		if _, moved, _ := survey.Next(from, eventTo[to]); !moved {
			continue
		}
		tr := record.SurveyTransition{LeadID: sv.LeadID, SurveyID: sv.ID, From: from, To: to, At: at.Add(time.Duration(i) * time.Minute)}
		if err := s.AdvanceSurvey(context.Background(), tn, tr); err != nil {
			t.Fatalf("AdvanceSurvey %s → %s: %v", from, to, err)
		}
		from = to
	}
}

func TestSurveyByToken(t *testing.T) {
	ctx := context.Background()
	rec := &calls{}
	s := newStore(t, rec.install)
	putLeadIn(t, s, surveyTenant, "lead_1", lead.New)
	sv, token := startSurvey(t, s, surveyTenant, "lead_1", t0)
	expiry := sv.Tokens[0].ExpiresAt
	rec.reset()
	tn, got, err := s.SurveyByToken(ctx, linktoken.Hash(token), t0)
	if err != nil || tn != surveyTenant || !equalSurvey(got.Survey, sv) {
		t.Fatalf("SurveyByToken = %+v, %+v, %v; want %+v, %+v", tn, got.Survey, err, surveyTenant, sv)
	}
	if ops, _ := rec.taken(); !reflect.DeepEqual(ops, []string{"GetItem", "GetItem"}) {
		t.Errorf("SurveyByToken calls = %v; want two GetItem (token record, survey)", ops)
	}
	other, _ := linktoken.New()
	tests := []struct {
		name     string
		hash     string
		at       time.Time
		code     errcode.Code
		cause    error
		withData bool
	}{
		{"unknown token", linktoken.Hash(other), t0, errcode.NotFound, survey.ErrTokenUnknown, false},
		{"empty hash", "", t0, errcode.NotFound, survey.ErrTokenUnknown, false},
		{"just before expiry", linktoken.Hash(token), expiry.Add(-time.Millisecond), "", nil, true},
		// DynamoDB Local has not deleted it: the store's own check.
		{"expired, record not yet deleted", linktoken.Hash(token), expiry, errcode.NotFound, survey.ErrTokenExpired, true},
		{"long expired", linktoken.Hash(token), expiry.Add(30 * 24 * time.Hour), errcode.NotFound, survey.ErrTokenExpired, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tn, got, err := s.SurveyByToken(ctx, tt.hash, tt.at)
			if tt.cause == nil {
				if err != nil {
					t.Fatalf("SurveyByToken = %v; want nil", err)
				}
			} else {
				wantCause(t, err, tt.code, tt.cause)
			}
			if has := tn == surveyTenant && got.ID == sv.ID; has != tt.withData {
				t.Errorf("returned tenant %+v survey %q; want them returned = %v", tn, got.ID, tt.withData)
			}
		})
	}
	t.Run("the token record's own expiry", func(t *testing.T) {
		// A record whose expires_at passed while the survey still lists
		// the token as live (the two are written together; this checks
		// that the record's TTL is honoured on its own).
		item := newTokenItem(surveyTenant, sv, sv.Tokens[0])
		item.ExpiresAt = t0.Add(time.Hour).Unix()
		if err := putItem(ctx, s, item); err != nil {
			t.Fatal(err)
		}
		_, _, err := s.SurveyByToken(ctx, linktoken.Hash(token), t0.Add(time.Hour))
		wantCause(t, err, errcode.NotFound, survey.ErrTokenExpired)
		if err := putItem(ctx, s, newTokenItem(surveyTenant, sv, sv.Tokens[0])); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("finished survey", func(t *testing.T) {
		tr := record.SurveyTransition{LeadID: "lead_1", SurveyID: sv.ID, From: survey.Invited, To: survey.Processing, At: t0.Add(time.Minute)}
		if err := s.AdvanceSurvey(ctx, surveyTenant, tr); err != nil {
			t.Fatal(err)
		}
		for _, at := range []time.Time{t0.Add(time.Hour), expiry.Add(time.Hour)} {
			tn, got, err := s.SurveyByToken(ctx, linktoken.Hash(token), at)
			wantCause(t, err, errcode.SurveyClosed, survey.ErrClosed)
			if tn != surveyTenant || got.Status != survey.Processing {
				t.Errorf("at %s: returned %+v, status %s; want the tenant and the processing survey", at, tn, got.Status)
			}
		}
	})
}
