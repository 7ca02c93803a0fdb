// Package surveys is the video-survey feature's service: getSurveyLink
// (a partner starts or continues a lead's survey and gets a capture link),
// the capture page's calls (request a clip upload, save the checklist,
// finish), and the clip processor (validate each uploaded clip, then settle
// the survey: inventory and recommended estimate, or failed). It is plain Go
// over the survey domain: storage is the Store interface (shared/adapter/dynamo),
// the clip bucket the Objects interface (shared/adapter/s3store, adapted in
// shared/wire/catalog), and the page's HTML comes from shared/app/surveys/capturepage.
package surveys

import (
	"context"
	"io"
	"log/slog"
	"time"

	"github.com/moveleads/partnerapi/shared/app/record"
	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/domain/inventory"
	"github.com/moveleads/partnerapi/shared/domain/lead"
	"github.com/moveleads/partnerapi/shared/domain/partner"
	"github.com/moveleads/partnerapi/shared/domain/survey"
)

// Store is the survey storage the service needs (shared/adapter/dynamo's Store).
// Its errors carry errcodes; see each method's documentation there.
type Store interface {
	GetLead(ctx context.Context, t auth.Tenant, id string) (lead.Lead, error)
	GetLeadWithSurvey(ctx context.Context, t auth.Tenant, id string) (lead.Lead, record.LeadSurvey, error)
	GetPartner(ctx context.Context, id string) (partner.Partner, error)

	GetSurvey(ctx context.Context, t auth.Tenant, id string) (record.Survey, error)
	StartSurvey(ctx context.Context, t auth.Tenant, sv survey.Survey) error
	PutSurveyToken(ctx context.Context, t auth.Tenant, sv survey.Survey, token string, lifetime time.Duration, now time.Time) (survey.Survey, error)
	AdmitCaptureToken(ctx context.Context, tokenHash string, now time.Time, limit int) (record.CaptureGrant, auth.Usage, error)
	AdvanceSurvey(ctx context.Context, t auth.Tenant, tr record.SurveyTransition) error
	SetChecklist(ctx context.Context, t auth.Tenant, id string, c inventory.Checklist) error

	PutClip(ctx context.Context, t auth.Tenant, surveyID string, c survey.Clip) error
	GetClip(ctx context.Context, t auth.Tenant, surveyID, clipID string) (survey.Clip, error)
	ListClips(ctx context.Context, t auth.Tenant, surveyID string) ([]survey.Clip, error)
	AdvanceClip(ctx context.Context, t auth.Tenant, ct record.ClipTransition) error

	PutFrames(ctx context.Context, t auth.Tenant, surveyID string, frames []survey.Frame) error
	GetFrame(ctx context.Context, t auth.Tenant, surveyID, clipID string, slot int) (record.Frame, error)
	ListFrames(ctx context.Context, t auth.Tenant, surveyID string) ([]record.Frame, error)
	AdvanceFrame(ctx context.Context, t auth.Tenant, ft record.FrameTransition) error
}

// Upload is a presigned upload: send the clip's bytes as the body of
// Method to URL with exactly Headers, before ExpiresAt.
type Upload struct {
	Method    string
	URL       string
	Headers   map[string]string
	ExpiresAt time.Time
}

// Objects is the clip bucket.
type Objects interface {
	// PresignUpload signs an upload of exactly size bytes of contentType
	// to key, valid for ttl.
	PresignUpload(ctx context.Context, key, contentType string, size int64, ttl time.Duration) (Upload, error)
	// Size returns the size of the object at key, and false when there is
	// none.
	Size(ctx context.Context, key string) (int64, bool, error)
	// Open reads the object at key, of size bytes, by ranges: memory does
	// not grow with the object.
	Open(ctx context.Context, key string, size int64) io.ReaderAt
	// Origin is the scheme and host presigned URLs point at, for the
	// capture page's Content-Security-Policy.
	Origin() string
	// Touch stores an empty object at key (a marker whose object-created
	// event starts the processor: survey.FinishKey).
	Touch(ctx context.Context, key string) error
}

// Service runs the survey operations.
type Service struct {
	store    Store
	objects  Objects
	baseURL  string
	builder  inventory.Builder
	detector inventory.Detector
	log      *slog.Logger
	newID    func() string
	linkKey  func(context.Context) ([]byte, error)
}

// Deps is what a Service needs; functions that do not touch the bucket
// (getSurveyLink) leave Objects nil.
type Deps struct {
	Store   Store
	Objects Objects
	// BaseURL is the API's public origin (settings.PublicBaseURL), from
	// which capture links are made.
	BaseURL string
	// Builder turns a finished survey into its inventory; nil is the
	// customer's checklist merged with the frames' detections
	// (inventory.FramesBuilder).
	Builder inventory.Builder
	// Detector analyses each frame as it arrives (the clip processor):
	// Rekognition in AWS, the local sidecar on the local stack. Nil
	// records each frame as not analysed ("no detector is configured").
	Detector inventory.Detector
	Log      *slog.Logger
	// NewID makes survey ids; nil is random UUIDs.
	NewID func() string
	// LinkKey loads the capture link key (manifest.SecretCaptureLink),
	// from which getSurveyLink derives the token of a call under an
	// Idempotency-Key; read on first use. Nil: such calls fail (500).
	LinkKey func(context.Context) ([]byte, error)
}

// New returns the service over d.
func New(d Deps) *Service {
	if d.Builder == nil {
		d.Builder = inventory.FramesBuilder{}
	}
	if d.Log == nil {
		d.Log = slog.New(slog.DiscardHandler)
	}
	if d.NewID == nil {
		d.NewID = newUUID
	}
	return &Service{store: d.Store, objects: d.Objects, baseURL: d.BaseURL, builder: d.Builder, detector: d.Detector, log: d.Log, newID: d.NewID, linkKey: linkKeyFrom(d.LinkKey)}
}

// Limits of the capture page's calls.
const (
	// CaptureRateLimit is how many requests a capture token may make per
	// minute: the page makes a handful per clip, so 120 leaves room for
	// retries and a reload or two, and stops a script hammering a link.
	CaptureRateLimit = 120
	// UploadTTL is how long a presigned clip upload stays valid. The
	// upload must start before it ends (S3 checks the signature when the
	// request arrives); a retry asks for a fresh URL.
	UploadTTL = 15 * time.Minute
)

// CapturePath is the path of the capture page of token, under the API's
// public origin: the page's own JSON calls live below it.
func CapturePath(token string) string { return "/v1-capture/" + token }
