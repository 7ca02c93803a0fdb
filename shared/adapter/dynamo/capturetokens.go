package dynamo

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/moveleads/partnerapi/shared/app/record"
	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/domain/errcode"
	"github.com/moveleads/partnerapi/shared/domain/lead"
	"github.com/moveleads/partnerapi/shared/domain/linktoken"
	"github.com/moveleads/partnerapi/shared/domain/survey"
	"github.com/moveleads/partnerapi/shared/spec/table"
)

// tokenItem is a capture token's lookup record: from the token's hash to
// its survey, for the capture page, which knows no tenant. DynamoDB's TTL
// deletes it after expires_at (late: readers check it themselves).
type tokenItem struct {
	PK        string `dynamodbav:"pk"`
	SK        string `dynamodbav:"sk"`
	Type      string `dynamodbav:"type"`
	PartnerID string `dynamodbav:"partner_id"`
	Mode      string `dynamodbav:"mode"`
	LeadID    string `dynamodbav:"lead_id"`
	SurveyID  string `dynamodbav:"survey_id"`
	IssuedAt  string `dynamodbav:"issued_at"`
	ExpiresAt int64  `dynamodbav:"expires_at"` // TTL, epoch seconds, rounded up
}

func newTokenItem(t auth.Tenant, sv survey.Survey, tok survey.StoredToken) tokenItem {
	pk, sk := captureTokenKey(tok.Hash)
	exp := tok.ExpiresAt.Unix()
	if tok.ExpiresAt.Nanosecond() > 0 {
		exp++ // never before the token's own expiry
	}
	return tokenItem{PK: pk, SK: sk, Type: "capture_token", PartnerID: t.PartnerID, Mode: string(t.Mode),
		LeadID: sv.LeadID, SurveyID: sv.ID, IssuedAt: lead.FormatTime(tok.IssuedAt), ExpiresAt: exp}
}

func tokenItems(t auth.Tenant, sv survey.Survey) []any {
	out := make([]any, len(sv.Tokens))
	for i, tok := range sv.Tokens {
		out[i] = newTokenItem(t, sv, tok)
	}
	return out
}

// AddSurveyToken mints a fresh capture token for sv, tenant t's survey as
// last read (GetSurvey, SurveyByToken), valid for lifetime from now (see
// survey.Survey.IssueToken, which keeps the survey's survey.MaxTokens
// newest tokens), and stores it in one TransactWriteItems: the token's
// lookup record, and the survey's new token list, conditioned on the survey
// not being closed and on its token list being the one in sv (so that two
// concurrent calls never lose a token or keep more than MaxTokens). It
// returns the token in plain text, for the capture URL (only its hash is
// stored), and the survey with it. The survey's state and the lead do not
// change: a new link is not a transition.
//
// Errors: a closed survey (in sv or as stored) → conflict wrapping
// survey.ErrClosed; a lifetime out of range → an error wrapping
// survey.ErrLifetime, before any write; unknown survey (or another
// tenant's) → not_found; a token list changed since sv was read → conflict
// wrapping ErrChanged; any other failure → upstream_failed. On every error
// nothing was written.
func (s *Store) AddSurveyToken(ctx context.Context, t auth.Tenant, sv survey.Survey, lifetime time.Duration, now time.Time) (string, survey.Survey, error) {
	token, err := linktoken.New()
	if err != nil {
		return "", survey.Survey{}, err
	}
	after, err := s.PutSurveyToken(ctx, t, sv, token, lifetime, now)
	if err != nil {
		return "", survey.Survey{}, err
	}
	return token, after, nil
}

// PutSurveyToken is AddSurveyToken with the given token
// (linktoken.Derive's). A token sv already has writes nothing: a
// retried call under the same Idempotency-Key computes the same token.
func (s *Store) PutSurveyToken(ctx context.Context, t auth.Tenant, sv survey.Survey, token string, lifetime time.Duration, now time.Time) (survey.Survey, error) {
	after := sv
	after.Tokens = slices.Clone(sv.Tokens)
	err := after.AddToken(token, lifetime, now)
	if errors.Is(err, survey.ErrClosed) {
		return survey.Survey{}, surveyClosed(sv.ID)
	}
	if err != nil {
		return survey.Survey{}, fmt.Errorf("add capture token to survey %s: %w", sv.ID, err)
	}
	if sv.HasToken(token) {
		return sv, nil
	}
	hash := linktoken.Hash(token)
	i := slices.IndexFunc(after.Tokens, func(st survey.StoredToken) bool { return st.Hash == hash })
	put, err := s.putNew(newTokenItem(t, after, after.Tokens[i]))
	if err != nil {
		return survey.Survey{}, fmt.Errorf("add capture token to survey %s: %w", sv.ID, err)
	}
	tokens := expression.Name("tokens")
	cond := expression.AttributeExists(expression.Name(table.PK)).
		And(expression.Not(expression.Name("status").In(expression.Value(string(survey.InventoryReady)), expression.Value(string(survey.Failed))))).
		And(tokens.Size().Equal(expression.Value(len(sv.Tokens))))
	if n := len(sv.Tokens); n > 0 {
		cond = cond.And(expression.Name(fmt.Sprintf("tokens[%d].hash", n-1)).Equal(expression.Value(sv.Tokens[n-1].Hash)))
	}
	upd := expression.Set(tokens, expression.Value(tokenEntries(after.Tokens))).
		Set(expression.Name("token_expires_at"), expression.Value(lead.FormatTime(after.TokenExpiresAt)))
	expr, err := expression.NewBuilder().WithUpdate(upd).WithCondition(cond).Build()
	if err != nil {
		return survey.Survey{}, fmt.Errorf("build capture token update: %w", err)
	}
	pk, sk := surveyKey(t, sv.ID)
	_, err = s.db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{
		TransactItems: []types.TransactWriteItem{put, s.update(pk, sk, expr)}, ReturnConsumedCapacity: capacity,
	})
	if err == nil {
		return after, nil
	}
	tx := cancelled(err)
	if failed, old := tx.failedAt(1); failed {
		return survey.Survey{}, surveyCondFailed(sv.ID, old, func(st survey.Status) bool { return !st.Final() })
	}
	if failed, _ := tx.failedAt(0); failed {
		return survey.Survey{}, errcode.New(errcode.Conflict, "That capture token already exists; nothing was written.")
	}
	return survey.Survey{}, tx.otherwise("survey", "add capture token")
}

// SurveyByToken returns the tenant and the survey of the capture token
// whose hash is tokenHash (see linktoken.Parse), for the capture page,
// which knows nothing else. It takes two strongly consistent reads: the
// token's lookup record, then the survey. The lookup record could carry a
// copy of the survey for the page's first render, but the survey changes
// (state, clip count, checklist) and up to survey.MaxTokens records would
// each need every change; the second read is cheaper than that.
//
// Whether the holder may record is decided by survey.Survey.Access at now,
// and the token's own expires_at is checked too, because DynamoDB deletes
// expired records late. Errors:
//   - unknown token, one dropped from the survey's newest tokens, or one
//     whose record DynamoDB already deleted → not_found wrapping
//     survey.ErrTokenUnknown;
//   - expired token → not_found wrapping survey.ErrTokenExpired;
//   - finished survey (processing or closed; this wins over expired) →
//     conflict wrapping survey.ErrClosed;
//   - a failed read → upstream_failed.
//
// With ErrTokenExpired and ErrClosed it also returns the tenant and the
// survey, so the page can say what happens next.
func (s *Store) SurveyByToken(ctx context.Context, tokenHash string, now time.Time) (auth.Tenant, record.Survey, error) {
	unknown := func() error {
		e := errcode.New(errcode.NotFound, "This capture link is not known.")
		e.Cause = survey.ErrTokenUnknown
		return e
	}
	pk, sk := captureTokenKey(tokenHash)
	var tok tokenItem
	if err := s.getItem(ctx, pk, sk, "capture token", &tok); err != nil {
		if e := errcode.As(err); e != nil && e.Code == errcode.NotFound {
			return auth.Tenant{}, record.Survey{}, unknown()
		}
		return auth.Tenant{}, record.Survey{}, err
	}
	t := auth.Tenant{PartnerID: tok.PartnerID, Mode: auth.Mode(tok.Mode)}
	rec, err := s.GetSurvey(ctx, t, tok.SurveyID)
	if e := errcode.As(err); e != nil && e.Code == errcode.NotFound {
		return auth.Tenant{}, record.Survey{}, unknown()
	}
	if err != nil {
		return auth.Tenant{}, record.Survey{}, err
	}
	err = rec.Access(tokenHash, now)
	if err == nil && !now.Before(time.Unix(tok.ExpiresAt, 0)) {
		err = survey.ErrTokenExpired
	}
	switch {
	case err == nil:
		return t, rec, nil
	case errors.Is(err, survey.ErrTokenExpired):
		e := errcode.New(errcode.NotFound, "This capture link has expired.")
		e.Cause = err
		return t, rec, e
	case errors.Is(err, survey.ErrClosed):
		return t, rec, surveyClosed(rec.ID)
	}
	return auth.Tenant{}, record.Survey{}, unknown()
}

// AdmitCaptureToken resolves the capture token whose hash is tokenHash and
// counts one request against its fixed minute window (limit requests), in
// one conditional UpdateItem of the token's lookup record, so an unknown
// token costs one failed write and writes nothing. Whether the token has
// expired or its survey is finished is the caller's to decide (the capture
// page says something different for each): the grant carries the token's
// expiry and the survey to read.
//
// It returns not_found wrapping survey.ErrTokenUnknown for an unknown token
// (or one DynamoDB's TTL already deleted); at the limit, the grant with
// Usage.Admitted false; upstream_failed when the update fails.
func (s *Store) AdmitCaptureToken(ctx context.Context, tokenHash string, now time.Time, limit int) (record.CaptureGrant, auth.Usage, error) {
	pk, sk := captureTokenKey(tokenHash)
	var tok tokenItem
	u, found, err := s.count(ctx, pk, sk, now, limit, false, &tok)
	switch {
	case err != nil:
		return record.CaptureGrant{}, auth.Usage{}, upstream("admit capture token", err)
	case !found:
		e := errcode.New(errcode.NotFound, "This capture link is not known.")
		e.Cause = survey.ErrTokenUnknown
		return record.CaptureGrant{}, auth.Usage{}, e
	}
	return record.CaptureGrant{
		Tenant: auth.Tenant{PartnerID: tok.PartnerID, Mode: auth.Mode(tok.Mode)},
		LeadID: tok.LeadID, SurveyID: tok.SurveyID, ExpiresAt: time.Unix(tok.ExpiresAt, 0).UTC(),
	}, u, nil
}
