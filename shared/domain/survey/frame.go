package survey

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/moveleads/partnerapi/shared/domain/errcode"
)

// Frames are still pictures (JPEG) the capture page takes from the camera
// while the customer films, or from a picked file by seeking a <video>,
// for the inventory's detector: the server decodes no video (Lambda has no
// decoder, and Rekognition's video API takes only H.264, which phones
// often do not record). Each frame uploads with a presigned PUT beside its
// clip and is validated like a clip: a JPEG of bounded size and
// dimensions, matching what the page announced.
const (
	// MaxFrames is how many frames a survey holds.
	MaxFrames = 60
	// FrameInterval is the least recording time per frame: a clip's frames
	// fall in slots of FrameInterval (slot n covers [n×2 s, (n+1)×2 s) of
	// the clip), one frame per slot.
	FrameInterval = 2 * time.Second
	// MaxFrameBytes is the largest frame accepted.
	MaxFrameBytes = 1 << 20
	// MinFrameSide and MaxFrameSide bound a frame's width and height in
	// pixels: detectors want at least a few hundred pixels and gain
	// nothing above full HD.
	MinFrameSide = 64
	MaxFrameSide = 1920
	// FrameContentType is the only content type of a frame.
	FrameContentType = "image/jpeg"
	// MaxClipSlots bounds a frame's slot: a clip lasts at most MaxClipDuration.
	MaxClipSlots = int(MaxClipDuration / FrameInterval)
)

// FrameStatus is where a frame is.
type FrameStatus string

// The frame statuses.
const (
	FrameAnnounced FrameStatus = "announced" // presigned, not yet validated
	FrameValid     FrameStatus = "valid"     // a JPEG as announced: the detector reads it
	FrameRejected  FrameStatus = "rejected"  // not as announced, or not a JPEG
)

// Final reports whether the processor has decided on a frame in state s.
func (s FrameStatus) Final() bool { return s == FrameValid || s == FrameRejected }

// FramesPerClip is how many frames one clip holds (CheckClipFrames): the
// capture page keeps at most this many of a clip, evenly spread over it,
// so that the rooms filmed last still get frames out of MaxFrames, and
// the server refuses more.
const FramesPerClip = 12

// CheckClipFrames returns nil when clip clipID, which holds existing
// frames, may take adding more: FramesPerClip in all. Otherwise it returns
// a validation_failed *errcode.Error naming the field "frames", with
// details.clip_id, details.max_frames_per_clip and
// details.clip_frames_used (existing).
func CheckClipFrames(clipID string, existing, adding int) error {
	if existing+adding <= FramesPerClip {
		return nil
	}
	return errcode.New(errcode.ValidationFailed, "A clip holds at most %d frames; clip %s has %d, so %d more do not fit.",
		FramesPerClip, clipID, existing, adding).
		WithDetail("fields", map[string]any{"frames": fmt.Sprintf("a clip holds at most %d frames", FramesPerClip)}).
		WithDetail("clip_id", clipID).
		WithDetail("max_frames_per_clip", FramesPerClip).
		WithDetail("clip_frames_used", existing)
}

// MaxFramesPerRequest is how many frames one announcement may name: a
// clip's frames go in one request.
const MaxFramesPerRequest = FramesPerClip

// Frame is one announced still of a clip.
type Frame struct {
	ClipID string `json:"clip_id" dynamodbav:"clip_id"`
	// Slot is the frame's place in its clip: Offset / FrameInterval.
	Slot          int           `json:"slot" dynamodbav:"slot"`
	Offset        time.Duration `json:"offset_ms" dynamodbav:"offset_ms"`
	AnnouncedSize int64         `json:"size" dynamodbav:"size"`
	Width         int           `json:"width" dynamodbav:"width"`
	Height        int           `json:"height" dynamodbav:"height"`
	Status        FrameStatus   `json:"status" dynamodbav:"status"`
	RejectReason  string        `json:"reject_reason,omitempty" dynamodbav:"reject_reason,omitempty"`
	AnnouncedAt   time.Time     `json:"announced_at" dynamodbav:"announced_at"`
	UpdatedAt     time.Time     `json:"updated_at" dynamodbav:"updated_at"`
}

// Waiting reports whether f may still arrive and be decided at now: it is
// not final and its upload window (UploadWindow, as for clips) is open. A
// finished survey waits for such frames before it settles.
func (f Frame) Waiting(now time.Time) bool {
	return !f.Status.Final() && now.Before(f.AnnouncedAt.Add(UploadWindow))
}

// SameAnnouncement reports whether g announces the same frame as f: the
// same clip, slot, offset, size and dimensions (a retried announcement).
func (f Frame) SameAnnouncement(g Frame) bool {
	return f.ClipID == g.ClipID && f.Slot == g.Slot && f.Offset == g.Offset &&
		f.AnnouncedSize == g.AnnouncedSize && f.Width == g.Width && f.Height == g.Height
}

// NewFrame checks an announced frame of clip clipID, taken offset into the
// clip, of size bytes and width×height pixels, for a survey that holds
// existing frames already. On failure it returns a validation_failed
// *errcode.Error naming each bad field (offset_ms, size, width, height) or,
// for a full survey, the field "frames" and details.max_frames.
func NewFrame(clipID string, offset time.Duration, size int64, width, height, existing int, now time.Time) (Frame, error) {
	if existing >= MaxFrames {
		return Frame{}, errcode.New(errcode.ValidationFailed, "A survey holds at most %d frames; this one has %d.", MaxFrames, existing).
			WithDetail("fields", map[string]any{"frames": fmt.Sprintf("a survey holds at most %d frames", MaxFrames)}).
			WithDetail("max_frames", MaxFrames)
	}
	fields := errcode.FieldErrors{}
	if offset < 0 || offset >= MaxClipDuration {
		fields.Add("offset_ms", fmt.Sprintf("must be from 0 to %d (a clip lasts at most %s); got %d", MaxClipDuration.Milliseconds()-1, MaxClipDuration, offset.Milliseconds()))
	}
	switch {
	case size <= 0:
		fields.Add("size", fmt.Sprintf("must be at least 1 byte (got %d)", size))
	case size > MaxFrameBytes:
		fields.Add("size", fmt.Sprintf("must be at most %d bytes (1 MiB); got %d", MaxFrameBytes, size))
	}
	for _, side := range []struct {
		name string
		v    int
	}{{"width", width}, {"height", height}} {
		if side.v < MinFrameSide || side.v > MaxFrameSide {
			fields.Add(side.name, fmt.Sprintf("must be from %d to %d pixels; got %d", MinFrameSide, MaxFrameSide, side.v))
		}
	}
	if err := fields.Err(); err != nil {
		return Frame{}, err
	}
	return Frame{
		ClipID: clipID, Slot: int(offset / FrameInterval), Offset: offset, AnnouncedSize: size,
		Width: width, Height: height, Status: FrameAnnounced, AnnouncedAt: now, UpdatedAt: now,
	}, nil
}

// FrameKey is the clip bucket key of frame slot of clip clipID:
// clips/<partner>/<mode>/<survey_id>/<clip_id>/frames/<slot>.jpg, beside
// the clip's own object (ObjectKey), under the prefix that triggers the
// processor.
func FrameKey(partnerID, mode, surveyID, clipID string, slot int) string {
	return ObjectKey(partnerID, mode, surveyID, clipID) + "/frames/" + strconv.Itoa(slot) + ".jpg"
}

// ErrFrameKey is returned by ParseFrameKey for a key FrameKey did not make.
var ErrFrameKey = errors.New("survey: not a frame object key")

// ParseFrameKey splits a key made by FrameKey. It fails with ErrFrameKey
// for any other key (a clip's key included).
func ParseFrameKey(key string) (partnerID, mode, surveyID, clipID string, slot int, err error) {
	clipKey, file, ok := strings.Cut(key, "/frames/")
	if !ok {
		return "", "", "", "", 0, ErrFrameKey
	}
	partnerID, mode, surveyID, clipID, err = ParseObjectKey(clipKey)
	if err != nil {
		return "", "", "", "", 0, ErrFrameKey
	}
	digits, ok := strings.CutSuffix(file, ".jpg")
	if !ok || digits == "" || len(digits) > 4 || (len(digits) > 1 && digits[0] == '0') {
		return "", "", "", "", 0, ErrFrameKey
	}
	slot, err = strconv.Atoi(digits)
	if err != nil || slot < 0 || slot >= MaxClipSlots || strconv.Itoa(slot) != digits {
		return "", "", "", "", 0, ErrFrameKey
	}
	return partnerID, mode, surveyID, clipID, slot, nil
}
