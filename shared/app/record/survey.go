package record

import (
	"errors"
	"fmt"
	"time"

	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/domain/estimate"
	"github.com/moveleads/partnerapi/shared/domain/inventory"
	"github.com/moveleads/partnerapi/shared/domain/survey"
	"github.com/moveleads/partnerapi/shared/domain/webhook"
)

// Survey is a stored survey: its state, and what the store keeps beside
// it.
type Survey struct {
	survey.Survey
	Checklist inventory.Checklist // as the customer last saved it
	// Inventory and Recommended are set when the survey reached
	// inventory_ready (Recommended stays nil when no estimate could be
	// priced).
	Inventory   *inventory.Inventory
	Recommended *estimate.Estimate
}

// LeadSurvey is what getLead shows of a lead besides the lead itself: what
// the lead item says about its latest survey (and the survey's inventory
// once it is ready), its current quote and its latest deposit. The lead
// item carries all of them, so they come from the same read.
type LeadSurvey struct {
	SurveyID    string        // "" when the lead never had a survey
	Status      survey.Status // survey.None when the lead never had a survey
	Recommended *estimate.Estimate
	// Inventory is the survey's inventory, read from the survey when
	// Status is survey.InventoryReady; nil otherwise.
	Inventory *inventory.Inventory
	// Quote and Deposit are the lead's current quote's and latest
	// deposit's refs; nil when it has none.
	Quote   *QuoteRef
	Deposit *DepositRef
}

// LiveSurveyError is the cause of StartSurvey's conflict error when the
// lead already has a survey that is not closed: the caller returns that
// survey (with a fresh token, see AddSurveyToken) instead.
type LiveSurveyError struct {
	LeadID, SurveyID string
	Status           survey.Status
}

// Error implements error; it names ids and a status, never a token.
func (e *LiveSurveyError) Error() string {
	return fmt.Sprintf("lead %s has the live survey %s (%s)", e.LeadID, e.SurveyID, e.Status)
}

// ErrClipExists is the cause of the store's conflict error for a clip id
// the survey already has.
var ErrClipExists = errors.New("clip exists")

// ErrFrameExists is the cause of the store's conflict error for a frame
// (clip and slot) the survey already has.
var ErrFrameExists = errors.New("frame exists")

// Frame is a stored frame: as announced and decided, with what the
// detector made of it (set when the frame is survey.FrameValid).
type Frame struct {
	survey.Frame
	Analysis inventory.Analysis
}

// FrameTransition is one move of a frame, for the store's AdvanceFrame:
// frame Slot of clip ClipID of survey SurveyID goes From → To at At: to
// survey.FrameValid with the detector's Analysis, or to
// survey.FrameRejected with RejectReason.
type FrameTransition struct {
	SurveyID, ClipID string
	Slot             int
	From, To         survey.FrameStatus
	At               time.Time
	RejectReason     string
	Analysis         inventory.Analysis
}

// SurveyTransition is one move of a survey's state, for the store's
// AdvanceSurvey: the survey SurveyID of lead LeadID goes From → To at At. survey.Next decides
// To; the other fields say what comes with it.
type SurveyTransition struct {
	LeadID, SurveyID string
	From, To         survey.Status
	At               time.Time
	// FailureReason is kept, for the operator, when To is survey.Failed.
	FailureReason string
	// Inventory and Recommended are stored when To is
	// survey.InventoryReady: both on the survey, Recommended on the lead
	// too (getLead's recommended_estimate). Recommended may be nil (no
	// estimate could be priced).
	Inventory   *inventory.Inventory
	Recommended *estimate.Estimate
	// Events are the webhook events the move owes (webhook.SurveyEvents),
	// written in the same transaction as the move: a state change and the
	// fact that its events are owed are never apart.
	Events []webhook.Event
}

// ClipTransition is one move of a clip's state, for the store's AdvanceClip: clip
// ClipID of survey SurveyID goes From → To at At. The processor's findings
// are stored with it when set (zero values are not); a move to
// survey.ClipRejected carries RejectCode (for machines and the customer's
// sentence) and RejectReason (for the operator).
type ClipTransition struct {
	SurveyID, ClipID string
	From, To         survey.ClipStatus
	At               time.Time

	Size         int64
	Duration     time.Duration
	Codec        string
	Width        int
	Height       int
	RejectCode   survey.RejectCode
	RejectReason string
}

// CaptureGrant is what a capture token resolves to.
type CaptureGrant struct {
	Tenant   auth.Tenant
	LeadID   string
	SurveyID string
	// ExpiresAt is the token's own expiry (whole seconds, rounded up).
	ExpiresAt time.Time
}
