package survey

import (
	"errors"
	"fmt"
	"mime"
	"slices"
	"strings"
	"time"

	"github.com/moveleads/partnerapi/shared/domain/errcode"
)

// Limits of a survey's clips.
const (
	// MaxClips is how many clips a survey holds. A clip counts from the
	// moment its upload is requested until the processor rejects it: a
	// rejected clip gives its place back, so the customer can film the
	// room again. Retrying a failed upload reuses the clip.
	MaxClips = 20
	// MaxClipUploads is how many uploads a survey takes in all, rejected
	// ones included, so that a customer (or a script holding the link)
	// cannot fill storage by uploading rejected files.
	MaxClipUploads = 2 * MaxClips
	// MaxClipBytes is the largest clip accepted: 500 MiB. The presigned
	// upload enforces it, and the processor checks it again.
	MaxClipBytes = 500 << 20
	// MaxClipDuration is the longest clip accepted.
	MaxClipDuration = 10 * time.Minute
	// UploadWindow is how long after its upload was requested a clip may
	// still arrive. Past it, a clip that never arrived no longer holds up
	// the survey (see Finished). Two hours carry a 500 MiB clip over an
	// uplink of about 600 kbit/s.
	UploadWindow = 2 * time.Hour
)

// ContentTypes are the media types a clip may be uploaded as: MP4 (what
// MediaRecorder makes where it offers H.264 or fragmented MP4), WebM (what
// Chromium's MediaRecorder makes by default) and QuickTime (what an
// iPhone's camera saves, chosen through the file picker).
var ContentTypes = []string{"video/mp4", "video/webm", "video/quicktime"}

// Codecs are the video codecs a clip may use, as Inspect reports them.
var Codecs = []string{"avc1", "hvc1", "vp8", "vp9"}

// ClipStatus is where a clip is on its way from the phone to playable.
type ClipStatus string

// The clip states, in order. Playable and Rejected are final.
const (
	// ClipAnnounced: an upload was requested (the presigned request is out),
	// nothing has arrived.
	ClipAnnounced ClipStatus = "announced"
	// ClipUploading: the page reported that the transfer began.
	ClipUploading ClipStatus = "uploading"
	// ClipProcessing: the object arrived; the processor is reading it.
	ClipProcessing ClipStatus = "processing"
	// ClipPlayable: the processor accepted it; it counts.
	ClipPlayable ClipStatus = "playable"
	// ClipRejected: the processor refused it (RejectCode and RejectReason
	// say why); it does not count.
	ClipRejected ClipStatus = "rejected"
)

func (s ClipStatus) rank() int {
	switch s {
	case ClipAnnounced:
		return 1
	case ClipUploading:
		return 2
	case ClipProcessing:
		return 3
	case ClipPlayable, ClipRejected:
		return 4
	}
	return 0
}

// Final reports whether the processor has decided on a clip in state s.
func (s ClipStatus) Final() bool { return s == ClipPlayable || s == ClipRejected }

// ErrUnknownClipStatus is wrapped by AdvanceClip's error for a state this
// version does not know.
var ErrUnknownClipStatus = errors.New("survey: unknown clip status")

// AdvanceClip returns the state of a clip in state current that is told it
// reached next, and whether that differs from current. Like Next for
// surveys, it only moves forward and a final state absorbs everything: S3
// delivers object-created events at least once, so a duplicate event (or
// one that arrives after the clip was decided) changes nothing. It fails,
// returning current, when either state is unknown.
func AdvanceClip(current, next ClipStatus) (ClipStatus, bool, error) {
	if current.rank() == 0 || next.rank() == 0 {
		return current, false, fmt.Errorf("%w: %q → %q", ErrUnknownClipStatus, current, next)
	}
	if current.Final() || next.rank() <= current.rank() {
		return current, false, nil
	}
	return next, true, nil
}

// Clip is one video of a survey.
type Clip struct {
	ID            string     `json:"clip_id" dynamodbav:"clip_id"`
	Room          string     `json:"room" dynamodbav:"room"`
	Status        ClipStatus `json:"status" dynamodbav:"status"`
	AnnouncedSize int64      `json:"announced_size" dynamodbav:"announced_size"` // bytes, as the page announced
	ContentType   string     `json:"content_type" dynamodbav:"content_type"`     // one of ContentTypes
	AnnouncedAt   time.Time  `json:"announced_at" dynamodbav:"announced_at"`
	UpdatedAt     time.Time  `json:"updated_at" dynamodbav:"updated_at"`

	// Set by the processor.
	Size         int64         `json:"size,omitempty" dynamodbav:"size,omitempty"` // bytes stored
	Duration     time.Duration `json:"duration,omitempty" dynamodbav:"duration,omitempty"`
	Codec        string        `json:"codec,omitempty" dynamodbav:"codec,omitempty"` // one of Codecs
	Width        int           `json:"width,omitempty" dynamodbav:"width,omitempty"`
	Height       int           `json:"height,omitempty" dynamodbav:"height,omitempty"`
	RejectReason string        `json:"reject_reason,omitempty" dynamodbav:"reject_reason,omitempty"` // for the operator
	RejectCode   RejectCode    `json:"reject_code,omitempty" dynamodbav:"reject_code,omitempty"`     // for machines and the customer
}

// ParseContentType returns the media type of a clip's Content-Type, without
// parameters and in lowercase ("video/webm;codecs=vp8,opus" is
// "video/webm"). Parameters are ignored rather than parsed: MediaRecorder
// reports its type with an unquoted comma in the codecs parameter, which
// RFC 2045 does not allow. It fails, with a reason for the customer, when
// the value is not a media type or not one of ContentTypes.
func ParseContentType(s string) (string, error) {
	base, _, _ := strings.Cut(s, ";")
	mt, _, err := mime.ParseMediaType(base)
	if err != nil {
		return "", fmt.Errorf("must be a media type such as video/mp4")
	}
	if !slices.Contains(ContentTypes, mt) {
		return "", fmt.Errorf("must be one of %s (got %q)", strings.Join(ContentTypes, ", "), mt)
	}
	return mt, nil
}

// NewClip returns the clip a capture page asks to upload: clip id, into
// room, size bytes of contentType, requested at now, for a survey that
// already holds existing clips. The clip is ClipAnnounced with its room
// (see ParseRoom) and media type (see ParseContentType) normalised.
//
// On failure it returns a validation_failed *errcode.Error: details.fields
// names each bad field (room, size, content_type) with the reason, and a
// survey that already holds MaxClips clips fails with the field "clips" and
// details.max_clips. Nothing about the survey's state is checked here; see
// Survey.Access.
func NewClip(id, room string, size int64, contentType string, existing int, now time.Time) (Clip, error) {
	if existing >= MaxClips {
		return Clip{}, errcode.New(errcode.ValidationFailed, "A survey holds at most %d clips; this one has %d.", MaxClips, existing).
			WithDetail("fields", map[string]any{"clips": fmt.Sprintf("a survey holds at most %d clips", MaxClips)}).
			WithDetail("max_clips", MaxClips)
	}
	fields := errcode.FieldErrors{}
	r, err := ParseRoom(room)
	if err != nil {
		fields.Add("room", strings.TrimPrefix(err.Error(), ErrRoom.Error()+": "))
	}
	switch {
	case size <= 0:
		fields.Add("size", fmt.Sprintf("must be at least 1 byte (got %d)", size))
	case size > MaxClipBytes:
		fields.Add("size", fmt.Sprintf("must be at most %d bytes (500 MiB); got %d", MaxClipBytes, size))
	}
	mt, err := ParseContentType(contentType)
	if err != nil {
		fields.Add("content_type", err.Error())
	}
	if err := fields.Err(); err != nil {
		return Clip{}, err
	}
	return Clip{ID: id, Room: r, Status: ClipAnnounced, AnnouncedSize: size, ContentType: mt, AnnouncedAt: now, UpdatedAt: now}, nil
}

// UploadsUsedUp is the validation_failed error of a survey that has taken
// MaxClipUploads uploads (used of them), with the field "clips" and
// details.max_clip_uploads.
func UploadsUsedUp(used int) error {
	return errcode.New(errcode.ValidationFailed, "A survey takes at most %d uploads, rejected ones included; this one has taken %d.", MaxClipUploads, used).
		WithDetail("fields", map[string]any{"clips": fmt.Sprintf("a survey takes at most %d uploads", MaxClipUploads)}).
		WithDetail("max_clip_uploads", MaxClipUploads)
}
