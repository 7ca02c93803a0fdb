package survey

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// Media is what the clip processor read from a clip's container.
type Media struct {
	Container string        // "mp4", "mov" or "webm"
	Codec     string        // the video track's codec, as the parser names it (see NormalizeCodec)
	Size      int64         // bytes of the stored object
	Duration  time.Duration // of the video track; MediaRecorder's WebM has none, so it is computed from the clusters
	Width     int           // pixels
	Height    int           // pixels
}

// containers maps each container to the media types it may be uploaded as.
// MP4 and QuickTime are both ISO base media files, and browsers label them
// either way, so each is accepted under both types.
var containers = map[string][]string{
	"mp4":  {"video/mp4", "video/quicktime"},
	"mov":  {"video/mp4", "video/quicktime"},
	"webm": {"video/webm"},
}

// codecNames maps the names parsers give video codecs (MP4 sample entry
// types, WebM CodecIDs, MIME codec strings) to the names of Codecs.
var codecNames = map[string]string{
	"avc1": "avc1", "avc3": "avc1", "h264": "avc1", "v_mpeg4/iso/avc": "avc1",
	"hvc1": "hvc1", "hev1": "hvc1", "hevc": "hvc1", "h265": "hvc1", "v_mpegh/iso/hevc": "hvc1",
	"vp8": "vp8", "vp08": "vp8", "v_vp8": "vp8",
	"vp9": "vp9", "vp09": "vp9", "v_vp9": "vp9",
}

// NormalizeCodec returns the name in Codecs of a video codec as a parser
// reports it, e.g. "vp09" (VP9 in fragmented MP4, which Chromium records)
// and "V_VP9" (its WebM CodecID) are both "vp9". A MIME codec string's
// profile suffix is ignored ("avc1.42E01E" is "avc1"). It returns false for
// a codec not in Codecs.
func NormalizeCodec(codec string) (string, bool) {
	c := strings.ToLower(strings.TrimSpace(codec))
	if !strings.HasPrefix(c, "v_") {
		c, _, _ = strings.Cut(c, ".")
	}
	name, ok := codecNames[c]
	return name, ok
}

// Inspect decides what becomes of clip c given what the processor read from
// it: ClipPlayable with a zero Rejection, or ClipRejected with its code
// and a reason kept for the operator. A clip is rejected when its size
// differs from the size announced at upload (or exceeds MaxClipBytes), its
// container is not MP4, MOV or WebM or does not match the type it was
// uploaded as, its video codec is not one of Codecs, it has no picture or
// no duration (not a playable video), or it is longer than
// MaxClipDuration. A file the processor cannot read at all is rejected by
// the processor without calling Inspect (see Unplayable).
func Inspect(c Clip, m Media) (ClipStatus, Rejection) {
	if r := rejection(c, m); r.Code != "" {
		return ClipRejected, r
	}
	return ClipPlayable, Rejection{}
}

func rejection(c Clip, m Media) Rejection {
	switch {
	case m.Size != c.AnnouncedSize:
		return SizeMismatch(m.Size, c.AnnouncedSize)
	case m.Size > MaxClipBytes:
		return Rejection{RejectTooLarge, fmt.Sprintf("size %d bytes is over the %d-byte limit", m.Size, MaxClipBytes)}
	}
	types, ok := containers[m.Container]
	if !ok {
		return Rejection{RejectNotAVideo, fmt.Sprintf("container %q is not MP4, MOV or WebM", m.Container)}
	}
	if !slices.Contains(types, c.ContentType) {
		return Rejection{RejectTypeMismatch, fmt.Sprintf("a %s file was uploaded as %s", strings.ToUpper(m.Container), c.ContentType)}
	}
	if _, ok := NormalizeCodec(m.Codec); !ok {
		return Rejection{RejectUnsupportedCodec, fmt.Sprintf("video codec %q is not one of %s", m.Codec, strings.Join(Codecs, ", "))}
	}
	switch {
	case m.Width <= 0 || m.Height <= 0:
		return Rejection{RejectNoPicture, "no video picture (width or height is 0)"}
	case m.Duration <= 0:
		return Rejection{RejectEmpty, "no playable video (duration is 0)"}
	case m.Duration > MaxClipDuration:
		return Rejection{RejectTooLong, fmt.Sprintf("duration %s is over the %s limit", m.Duration.Round(time.Second), MaxClipDuration)}
	}
	return Rejection{}
}

// Finished decides the state of a finished survey from its clips at now:
//
//   - Processing while a clip is still on its way: announced or uploading
//     within UploadWindow of its announcement, or processing;
//   - InventoryReady once every clip is decided (or abandoned: announced
//     or uploading for longer than UploadWindow) and at least one is
//     playable;
//   - Failed otherwise, with a reason for the operator: that no clip was
//     uploaded, or how many were rejected and why.
//
// Finished only reads the clips; the survey moves through Survey.Settle.
// No event arrives when a clip is abandoned, so the pipeline must look
// again after UploadWindow (a schedule, or the next event of the survey).
func Finished(clips []Clip, now time.Time) (Status, string) {
	playable := 0
	var reasons []string
	for _, c := range clips {
		switch {
		case c.Status == ClipPlayable:
			playable++
		case c.Status == ClipRejected:
			reasons = append(reasons, c.RejectReason)
		case c.Status == ClipProcessing:
			return Processing, ""
		case now.Sub(c.AnnouncedAt) <= UploadWindow:
			return Processing, ""
		default:
			reasons = append(reasons, NeverUploaded.Reason)
		}
	}
	switch {
	case playable > 0:
		return InventoryReady, ""
	case len(clips) == 0:
		return Failed, "no clip was uploaded"
	}
	return Failed, failureReason(reasons)
}

// failureReason summarises why none of the clips is playable, each distinct
// reason once with its count, e.g. "no playable clip: 2 never uploaded;
// 1 duration 10m1s is over the 10m0s limit".
func failureReason(reasons []string) string {
	counts := map[string]int{}
	var order []string
	for _, r := range reasons {
		if r == "" {
			r = "rejected"
		}
		if counts[r] == 0 {
			order = append(order, r)
		}
		counts[r]++
	}
	parts := make([]string, len(order))
	for i, r := range order {
		parts[i] = fmt.Sprintf("%d %s", counts[r], r)
	}
	return "no playable clip: " + strings.Join(parts, "; ")
}
