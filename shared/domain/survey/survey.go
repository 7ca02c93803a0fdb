package survey

import (
	"errors"
	"fmt"
	"time"

	"github.com/moveleads/partnerapi/shared/domain/linktoken"
)

// Survey is one video survey of a lead. A lead may have had several; the
// newest is the one getLead reports.
type Survey struct {
	ID     string `json:"survey_id" dynamodbav:"survey_id"`
	LeadID string `json:"lead_id" dynamodbav:"lead_id"`
	Status Status `json:"status" dynamodbav:"status"`
	// FailureReason says, for the operator, why a Failed survey failed.
	FailureReason string    `json:"failure_reason,omitempty" dynamodbav:"failure_reason,omitempty"`
	CreatedAt     time.Time `json:"created_at" dynamodbav:"created_at"`
	UpdatedAt     time.Time `json:"updated_at" dynamodbav:"updated_at"`
	// TokenExpiresAt is when the newest capture link expires.
	TokenExpiresAt time.Time `json:"token_expires_at" dynamodbav:"token_expires_at"`
	// Tokens are the capture tokens issued for the survey, oldest first, at
	// most MaxTokens of them. Only their hashes are stored.
	Tokens []StoredToken `json:"tokens" dynamodbav:"tokens"`
	// ClipCount is how many clips were announced (see MaxClips).
	ClipCount int `json:"clip_count" dynamodbav:"clip_count"`
	// FrameCount is how many frames were announced (see MaxFrames).
	FrameCount int `json:"frame_count" dynamodbav:"frame_count"`
}

// Errors of Access (what a capture link's holder is told, with the status
// the capture page answers), IssueToken and Settle.
var (
	ErrTokenUnknown = fmt.Errorf("survey: unknown capture token: %w", linktoken.ErrUnknown) // 404
	ErrTokenExpired = fmt.Errorf("survey: capture token expired: %w", linktoken.ErrExpired) // 410
	ErrClosed       = errors.New("survey: survey is finished")                              // 409
	ErrNotFinished  = errors.New("survey: survey has not been finished")                    // Settle before the finish
	ErrLifetime     = errors.New("survey: capture link lifetime out of range")              // see CheckTokenLifetime
)

// New starts survey id of lead leadID at now, in state Invited, with one
// capture token valid for lifetime. It returns the survey and the token (in
// plain text: put it in the capture URL and forget it). It fails when
// lifetime is out of range (see CheckTokenLifetime) or when no token can be
// drawn.
func New(id, leadID string, lifetime time.Duration, now time.Time) (Survey, string, error) {
	token, err := linktoken.New()
	if err != nil {
		return Survey{}, "", err
	}
	s, err := NewWithToken(id, leadID, token, lifetime, now)
	return s, token, err
}

// NewWithToken is New with the given capture token (linktoken.Derive's).
func NewWithToken(id, leadID, token string, lifetime time.Duration, now time.Time) (Survey, error) {
	s := Survey{ID: id, LeadID: leadID, Status: Invited, CreatedAt: now, UpdatedAt: now}
	if err := s.AddToken(token, lifetime, now); err != nil {
		return Survey{}, err
	}
	return s, nil
}

// IssueToken mints a fresh capture token for s, valid for lifetime from now,
// and returns it in plain text. It does not change UpdatedAt: a new link is
// not a change of the survey's state.
//
// Each call mints a new token rather than returning the previous URL:
// only hashes are stored, so the previous URL cannot be rebuilt without
// keeping the token in plain text (or deriving it from a deployed secret,
// which could then never be revoked link by link). Earlier links keep
// working until they expire, because the customer may already hold one;
// s keeps its MaxTokens newest tokens, so a partner calling getSurveyLink
// in a loop cannot grow the survey without bound.
//
// It fails with ErrClosed when s is final (start a new survey instead), with
// an error wrapping ErrLifetime when lifetime is out of range, and when the
// random source fails.
func (s *Survey) IssueToken(lifetime time.Duration, now time.Time) (string, error) {
	token, err := linktoken.New()
	if err != nil {
		return "", err
	}
	return token, s.AddToken(token, lifetime, now)
}

// AddToken is IssueToken with the given token (linktoken.Derive's, which a
// retried call computes again). A token s already has is left as it is,
// with its own expiry: HasToken tells the caller there is nothing to
// write.
func (s *Survey) AddToken(token string, lifetime time.Duration, now time.Time) error {
	if s.Status.Final() {
		return fmt.Errorf("issue capture token for survey %s: %w", s.ID, ErrClosed)
	}
	if err := CheckTokenLifetime(lifetime); err != nil {
		return fmt.Errorf("%w: %w", ErrLifetime, err)
	}
	if s.HasToken(token) {
		return nil
	}
	exp := now.Add(lifetime)
	s.Tokens = addToken(s.Tokens, StoredToken{Hash: linktoken.Hash(token), IssuedAt: now, ExpiresAt: exp})
	if exp.After(s.TokenExpiresAt) {
		s.TokenExpiresAt = exp
	}
	return nil
}

// HasToken reports whether token is one of s's stored tokens.
func (s *Survey) HasToken(token string) bool {
	_, ok := findToken(s.Tokens, linktoken.Hash(token))
	return ok
}

// Access decides whether the holder of a capture token whose hash is hash
// (see linktoken.Parse) may record into s at now. It returns nil when they may,
// ErrTokenUnknown when the hash is not one of s's tokens, ErrClosed when the
// survey was finished (Processing or final; the page shows what happens
// next), and ErrTokenExpired when the token has expired. A finished survey
// answers ErrClosed even when the token has expired too: "you already
// finished" helps the customer more than "this link expired".
func (s Survey) Access(hash string, now time.Time) error {
	t, ok := findToken(s.Tokens, hash)
	switch {
	case !ok:
		return ErrTokenUnknown
	case !s.Status.Open():
		return ErrClosed
	case !now.Before(t.ExpiresAt):
		return ErrTokenExpired
	}
	return nil
}

// Record applies ev to s at now (see Next) and reports whether the state
// changed; UpdatedAt moves only when it did, so the caller moves the lead's
// updated_at exactly then. A NoPlayableClip event recorded without a reason
// (a replay) keeps a generic one. It fails, changing nothing, only for an
// unknown status or event.
func (s *Survey) Record(ev Event, now time.Time) (bool, error) {
	next, changed, err := Next(s.Status, ev)
	if err != nil {
		return false, fmt.Errorf("record %s on survey %s: %w", ev, s.ID, err)
	}
	if !changed {
		return false, nil
	}
	s.Status, s.UpdatedAt = next, now
	if next == Failed && s.FailureReason == "" {
		s.FailureReason = "no playable clip"
	}
	return true, nil
}

// Settle closes a finished survey when its clips allow (see Finished):
// InventoryReady, or Failed with Finished's reason kept in FailureReason.
// It reports whether the state changed. While a clip is still on its way it
// changes nothing; once s is final it changes nothing either, whatever the
// clips say now. It fails with ErrNotFinished when the customer has not
// finished yet (Invited or Recording): clips processed while the customer is
// still recording never close a survey.
func (s *Survey) Settle(clips []Clip, now time.Time) (bool, error) {
	if s.Status.Final() {
		return false, nil
	}
	if s.Status != Processing {
		return false, fmt.Errorf("settle survey %s in state %s: %w", s.ID, s.Status, ErrNotFinished)
	}
	to, reason := Finished(clips, now)
	switch to {
	case InventoryReady:
		return s.Record(InventoryBuilt, now)
	case Failed:
		s.FailureReason = reason
		return s.Record(NoPlayableClip, now)
	}
	return false, nil
}
