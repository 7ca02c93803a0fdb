package sample

import (
	"context"
	"fmt"
	"time"

	"github.com/moveleads/partnerapi/shared/adapter/dynamo"
	"github.com/moveleads/partnerapi/shared/app/record"
	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/domain/estimate"
	"github.com/moveleads/partnerapi/shared/domain/inventory"
	"github.com/moveleads/partnerapi/shared/domain/lead"
	"github.com/moveleads/partnerapi/shared/domain/linktoken"
	"github.com/moveleads/partnerapi/shared/domain/partner"
	"github.com/moveleads/partnerapi/shared/domain/survey"
	"github.com/moveleads/partnerapi/shared/domain/videolink"
)

// The fixtures the sample events refer to. Seed creates them in a local
// table (and PutClipObject the clips' objects in a local bucket); `make
// dev` and the tests call it.
//
// APIKey, the capture tokens and the view token are NOT secrets and must
// never grant anything real: they are printed in this file and in the
// events under events/, the key is a test-mode key (it can only ever see
// test-mode data) and the tokens open test-mode surveys of the fixture
// partner, and only local tooling creates them, in DynamoDB Local tables.
// Never seed a deployed table.
const (
	// APIKey is the fixture partner's test-mode key, with all scopes.
	APIKey = "mk_test_0000000000000000000000000000000000000000000000000000000000000001"
	// KeyID names APIKey in listings.
	KeyID = "key_0000000000000001"
	// EventsAPIKey is a second test-mode key of the fixture partner, with
	// all scopes, for the events API's samples: its own rate-limit count
	// keeps the two runs of every sample within APIKey's 120 a minute.
	EventsAPIKey = "mk_test_0000000000000000000000000000000000000000000000000000000000000003"
	// EventsKeyID names EventsAPIKey in listings.
	EventsKeyID = "key_0000000000000003"
	// PartnerID is the fixture partner (default USD rate card).
	PartnerID = "ptn_0000000000000001"
	// PartnerName is the fixture partner's name.
	PartnerName = "Sample Movers (local fixture)"
	// LeadID is the fixture partner's test-mode lead that the getLead and
	// getSurveyLink events name. It has no survey until a getSurveyLink
	// event starts one.
	LeadID = "00000000-0000-4000-8000-000000000001"

	// UnknownAPIKey is well formed but never created: it answers 401.
	UnknownAPIKey = "mk_test_0000000000000000000000000000000000000000000000000000000000000002"
	// UnknownLeadID is a UUID no lead has: it answers 404.
	UnknownLeadID = "00000000-0000-4000-8000-000000000002"

	// CaptureLeadID is a lead whose video survey CaptureSurveyID the
	// customer has not finished (invited; the clip event makes it
	// recording): its capture page answers 200.
	CaptureLeadID = "00000000-0000-4000-8000-000000000003"
	// CaptureSurveyID is CaptureLeadID's survey.
	CaptureSurveyID = "00000000-0000-4000-8000-000000000103"
	// CaptureToken is the capture token of CaptureSurveyID: the page, clip
	// and checklist events use it. A capture token is 43 base64url
	// characters; only its SHA-256 is stored.
	CaptureToken = "sample_capture_token_page_local_only_000000"
	// AnnouncedClipID is the clip the clip event asks an upload for; it
	// is never uploaded.
	AnnouncedClipID = "00000000-0000-4000-8000-000000000203"
	// FramesClipID is a clip of CaptureSurveyID, announced when seeded:
	// the frames event asks uploads for two of its frames (never sent).
	FramesClipID = "00000000-0000-4000-8000-000000000207"

	// FinishLeadID is a lead whose survey FinishSurveyID is recording, with
	// one clip (ClipID, its object PutClipObject's) and a checklist: the
	// finish event finishes it, the clip-processor event decides its clip,
	// and the two together (in either order) make it inventory_ready with
	// a recommended estimate.
	FinishLeadID = "00000000-0000-4000-8000-000000000004"
	// FinishSurveyID is FinishLeadID's survey.
	FinishSurveyID = "00000000-0000-4000-8000-000000000104"
	// FinishToken is the capture token of FinishSurveyID.
	FinishToken = "sample_capture_token_finish_local_only_0000"
	// ClipID is FinishSurveyID's clip.
	ClipID = "00000000-0000-4000-8000-000000000204"

	// UnknownCaptureToken has the form of a capture token but was never
	// issued: it answers 404.
	UnknownCaptureToken = "sample_capture_token_unknown_local_only_000"

	// VideoLeadID is a lead whose survey VideoSurveyID is recording with
	// one playable clip (VideoClipID): the createSurveyVideoAccess events
	// mint links to it and the revokeSurveyVideoAccess events close them
	// all.
	VideoLeadID = "00000000-0000-4000-8000-000000000005"
	// VideoSurveyID is VideoLeadID's survey.
	VideoSurveyID = "00000000-0000-4000-8000-000000000105"
	// VideoClipID is VideoSurveyID's clip, playable.
	VideoClipID = "00000000-0000-4000-8000-000000000205"

	// ViewLeadID is a lead whose survey ViewSurveyID is recording with one
	// playable clip (ViewClipID) and one live video link (ViewGrantID,
	// token ViewToken), which the videoPage event opens. No event revokes
	// it: the revoke events name VideoSurveyID.
	ViewLeadID = "00000000-0000-4000-8000-000000000006"
	// ViewSurveyID is ViewLeadID's survey.
	ViewSurveyID = "00000000-0000-4000-8000-000000000106"
	// ViewClipID is ViewSurveyID's clip, playable.
	ViewClipID = "00000000-0000-4000-8000-000000000206"
	// ViewGrantID is the video link of ViewSurveyID.
	ViewGrantID = "00000000-0000-4000-8000-000000000306"
	// ViewToken is ViewGrantID's token: the videoPage event's path. A video
	// link's token has a capture token's form; only its SHA-256 is stored.
	ViewToken = "sample_view_token_local_only_00000000000000"
	// ViewLabel is ViewGrantID's label.
	ViewLabel = "Sample link (local fixture)"

	// UnknownViewToken has the form of a view token but was never issued:
	// it answers 404.
	UnknownViewToken = "sample_view_token_unknown_local_only_000000"
	// UnknownSurveyID is a UUID no survey has: it answers 404.
	UnknownSurveyID = "00000000-0000-4000-8000-000000000199"
)

// The fixture clips' findings, as the clip processor records them for the
// fixture clip's object (clip.webm): VideoClipID and ViewClipID are seeded
// playable with them. A test checks them against the processor's own
// decision on ClipID, the same bytes.
const (
	fixtureClipCodec    = "vp8"
	fixtureClipDuration = 1980 * time.Millisecond
	fixtureClipWidth    = 320
	fixtureClipHeight   = 240
)

// SeededAt is when the fixture records say they were created.
var SeededAt = time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)

// Seed creates the fixture partner (with the deposits beta and its deposit
// settings), its key APIKey, its leads LeadID, CaptureLeadID,
// FinishLeadID, VideoLeadID and ViewLeadID, and their four surveys with
// their capture tokens, FinishSurveyID's clip record and its checklist,
// the playable clips of VideoSurveyID and ViewSurveyID, ViewSurveyID's
// video link (token ViewToken), and the deposit beta's leads with their
// quotes, quote page tokens and deposit (seedDeposits), in store's table, through
// the same store code the operator CLI and the API use. The capture tokens
// and the video link expire survey.MaxTokenLifetime and videolink.MaxTTL
// after the call, and the clips count as announced at the call (so a
// finish does not take FinishSurveyID's for never uploaded). The clips'
// objects are not in any bucket until PutClipObject puts them there. Seed
// fails, having written part of them, when any already exists: seed a
// fresh table.
func Seed(ctx context.Context, store *dynamo.Store) error {
	rc := estimate.DefaultRateCard("usd")
	err := store.CreatePartner(ctx, partner.Partner{
		ID: PartnerID, Name: PartnerName, RateCard: rc, CreatedAt: SeededAt,
		Beta: []partner.Feature{partner.Deposits}, Deposits: depositSettings,
	})
	if err != nil {
		return fmt.Errorf("seed partner %s: %w", PartnerID, err)
	}
	err = store.CreateKey(ctx, auth.Key{
		KeyID: KeyID, Digest: auth.Digest(APIKey), PartnerID: PartnerID, Mode: auth.Test,
		Scopes: auth.AllScopes, CreatedAt: SeededAt,
	})
	if err != nil {
		return fmt.Errorf("seed key %s: %w", KeyID, err)
	}
	err = store.CreateKey(ctx, auth.Key{
		KeyID: EventsKeyID, Digest: auth.Digest(EventsAPIKey), PartnerID: PartnerID, Mode: auth.Test,
		Scopes: auth.AllScopes, CreatedAt: SeededAt,
	})
	if err != nil {
		return fmt.Errorf("seed key %s: %w", EventsKeyID, err)
	}
	t := auth.Tenant{PartnerID: PartnerID, Mode: auth.Test}
	for _, id := range []string{LeadID, CaptureLeadID, FinishLeadID, VideoLeadID, ViewLeadID} {
		l := lead.Build(id, lead.CreateInput{
			CustomerName: "Grace Hopper", Email: "grace@example.com", Phone: "+15555550100",
			FromAddress: "1 Main St, New York, NY 10001", ToAddress: "9 Oak Ave, Boston, MA 02108",
			HomeSize: "2 bedroom", MoveDate: "2027-01-15", Source: "sample-fixture",
		}, rc, SeededAt)
		if err := store.PutLead(ctx, t, l, false); err != nil {
			return fmt.Errorf("seed lead %s: %w", id, err)
		}
	}
	now := time.Now().UTC()
	if err := seedSurvey(ctx, store, t, CaptureLeadID, CaptureSurveyID, CaptureToken, now); err != nil {
		return err
	}
	fc, err := survey.NewClip(FramesClipID, "Kitchen", int64(len(clipObject)), clipContentType, 0, now)
	if err != nil {
		return fmt.Errorf("seed clip %s: %w", FramesClipID, err)
	}
	if err := store.PutClip(ctx, t, CaptureSurveyID, fc); err != nil {
		return fmt.Errorf("seed clip %s: %w", FramesClipID, err)
	}
	if err := seedFinishSurvey(ctx, store, t, now); err != nil {
		return err
	}
	if err := seedPlayableSurvey(ctx, store, t, VideoLeadID, VideoSurveyID, VideoClipID, now); err != nil {
		return err
	}
	if err := seedPlayableSurvey(ctx, store, t, ViewLeadID, ViewSurveyID, ViewClipID, now); err != nil {
		return err
	}
	if err := seedVideoLink(ctx, store, t, now); err != nil {
		return err
	}
	return seedDeposits(ctx, store, t, PartnerName, rc, now)
}

// seedSurvey starts survey id of lead leadID, invited, with the one capture
// token token, valid for survey.MaxTokenLifetime from now. survey.New
// draws its token at random; the fixture's is fixed, so the survey is
// built here with the token's hash, as survey.New would store it.
func seedSurvey(ctx context.Context, store *dynamo.Store, t auth.Tenant, leadID, id, token string, now time.Time) error {
	hash, err := linktoken.Parse(token)
	if err != nil {
		return fmt.Errorf("seed survey %s: token %q: %w", id, token, err)
	}
	exp := now.Add(survey.MaxTokenLifetime)
	sv := survey.Survey{
		ID: id, LeadID: leadID, Status: survey.Invited, CreatedAt: SeededAt, UpdatedAt: SeededAt,
		TokenExpiresAt: exp, Tokens: []survey.StoredToken{{Hash: hash, IssuedAt: SeededAt, ExpiresAt: exp}},
	}
	if err := store.StartSurvey(ctx, t, sv); err != nil {
		return fmt.Errorf("seed survey %s: %w", id, err)
	}
	return nil
}

// seedFinishSurvey seeds FinishSurveyID as the capture page would leave it
// just before the customer presses Finish: recording, with the clip ClipID
// announced (its upload requested) and a checklist saved.
func seedFinishSurvey(ctx context.Context, store *dynamo.Store, t auth.Tenant, now time.Time) error {
	if err := seedSurvey(ctx, store, t, FinishLeadID, FinishSurveyID, FinishToken, now); err != nil {
		return err
	}
	c, err := survey.NewClip(ClipID, "Living room", int64(len(clipObject)), clipContentType, 0, now)
	if err != nil {
		return fmt.Errorf("seed clip %s: %w", ClipID, err)
	}
	if err := store.PutClip(ctx, t, FinishSurveyID, c); err != nil {
		return fmt.Errorf("seed clip %s: %w", ClipID, err)
	}
	err = store.AdvanceSurvey(ctx, t, record.SurveyTransition{
		LeadID: FinishLeadID, SurveyID: FinishSurveyID, From: survey.Invited, To: survey.Recording, At: SeededAt,
	})
	if err != nil {
		return fmt.Errorf("seed survey %s recording: %w", FinishSurveyID, err)
	}
	checklist := inventory.Checklist{Rooms: []inventory.ChecklistRoom{
		{Name: "Living room", Items: []inventory.ChecklistItem{{Key: "sofa_3_seat", Count: 1}, {Key: "armchair", Count: 2}}},
		{Name: "Bedroom", Items: []inventory.ChecklistItem{{Key: "bed_queen", Count: 1}}},
	}}
	if err := store.SetChecklist(ctx, t, FinishSurveyID, checklist); err != nil {
		return fmt.Errorf("seed checklist of survey %s: %w", FinishSurveyID, err)
	}
	return nil
}

// seedPlayableSurvey seeds survey id of lead leadID as the capture page and
// the clip processor leave it once the customer's first clip is checked:
// recording, with clip clipID playable (the fixture clip's findings). Its
// capture token is random: no event uses it.
func seedPlayableSurvey(ctx context.Context, store *dynamo.Store, t auth.Tenant, leadID, id, clipID string, now time.Time) error {
	token, err := linktoken.New()
	if err != nil {
		return fmt.Errorf("seed survey %s: %w", id, err)
	}
	if err := seedSurvey(ctx, store, t, leadID, id, token, now); err != nil {
		return err
	}
	c, err := survey.NewClip(clipID, "Living room", int64(len(clipObject)), clipContentType, 0, now)
	if err != nil {
		return fmt.Errorf("seed clip %s: %w", clipID, err)
	}
	if err := store.PutClip(ctx, t, id, c); err != nil {
		return fmt.Errorf("seed clip %s: %w", clipID, err)
	}
	err = store.AdvanceSurvey(ctx, t, record.SurveyTransition{
		LeadID: leadID, SurveyID: id, From: survey.Invited, To: survey.Recording, At: SeededAt,
	})
	if err != nil {
		return fmt.Errorf("seed survey %s recording: %w", id, err)
	}
	err = store.AdvanceClip(ctx, t, record.ClipTransition{
		SurveyID: id, ClipID: clipID, From: c.Status, To: survey.ClipPlayable, At: now,
		Size: int64(len(clipObject)), Duration: fixtureClipDuration, Codec: fixtureClipCodec,
		Width: fixtureClipWidth, Height: fixtureClipHeight,
	})
	if err != nil {
		return fmt.Errorf("seed clip %s playable: %w", clipID, err)
	}
	return nil
}

// seedVideoLink mints ViewSurveyID's video link ViewGrantID with the fixed
// token ViewToken (videolinks mints a random one; the fixture's is fixed,
// so the grant is stored here with the token's hash, as a mint stores it),
// live for videolink.MaxTTL from now.
func seedVideoLink(ctx context.Context, store *dynamo.Store, t auth.Tenant, now time.Time) error {
	hash, err := linktoken.Parse(ViewToken)
	if err != nil {
		return fmt.Errorf("seed video link %s: token %q: %w", ViewGrantID, ViewToken, err)
	}
	set, err := store.VideoLinkSet(ctx, t, ViewSurveyID)
	if err != nil {
		return fmt.Errorf("seed video link %s: %w", ViewGrantID, err)
	}
	g := videolink.Grant{
		ID: ViewGrantID, SurveyID: ViewSurveyID, Label: ViewLabel, TokenHash: hash,
		CreatedAt: now, ExpiresAt: now.Add(videolink.MaxTTL).Truncate(time.Second),
	}
	if err := store.MintVideoLink(ctx, t, g, set, now); err != nil {
		return fmt.Errorf("seed video link %s: %w", ViewGrantID, err)
	}
	return nil
}
