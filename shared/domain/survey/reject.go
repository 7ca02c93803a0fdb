package survey

import (
	"errors"
	"fmt"

	"github.com/moveleads/partnerapi/shared/domain/clip"
)

// RejectCode says, for machines, why a clip was rejected: the capture
// page's sentence is chosen by it (CustomerReason), never by the
// operator's RejectReason, so rewording a reason changes nothing the
// customer sees. A clip stored before codes existed has "".
type RejectCode string

// The reject codes, one per way a clip fails.
const (
	// RejectNeverUploaded: its object was not there when the customer
	// finished (Finish).
	RejectNeverUploaded RejectCode = "never_uploaded"
	// RejectSizeMismatch: the stored size differs from the announced one.
	RejectSizeMismatch RejectCode = "size_mismatch"
	// RejectTooLarge: over MaxClipBytes.
	RejectTooLarge RejectCode = "too_large"
	// RejectTooLong: longer than MaxClipDuration.
	RejectTooLong RejectCode = "too_long"
	// RejectEmpty: the video has no duration.
	RejectEmpty RejectCode = "empty"
	// RejectNoPicture: no video track, or one of zero width or height.
	RejectNoPicture RejectCode = "no_picture"
	// RejectUnsupportedCodec: the video codec is not one of Codecs.
	RejectUnsupportedCodec RejectCode = "unsupported_codec"
	// RejectCorrupt: a known container whose structure is broken or cut
	// short.
	RejectCorrupt RejectCode = "corrupt"
	// RejectUnreadable: reading the container would take too many reads.
	RejectUnreadable RejectCode = "unreadable"
	// RejectNotAVideo: not a container the processor knows (or an image).
	RejectNotAVideo RejectCode = "not_a_video"
	// RejectTypeMismatch: the container is not the type the clip was
	// uploaded as.
	RejectTypeMismatch RejectCode = "type_mismatch"
)

// Rejection is why a clip was rejected: Code for machines and the
// customer's sentence, Reason in the operator's words (sizes, codecs).
type Rejection struct {
	Code   RejectCode
	Reason string
}

// NeverUploaded is the rejection of a clip whose upload was requested but
// whose object was not there when the customer finished.
var NeverUploaded = Rejection{RejectNeverUploaded, "never uploaded"}

// SizeMismatch is the rejection of a clip stored as size bytes after
// announced bytes were announced at upload.
func SizeMismatch(size, announced int64) Rejection {
	return Rejection{RejectSizeMismatch, fmt.Sprintf("size %d bytes does not match the %d announced at upload", size, announced)}
}

// probeCodes maps each error clip.Probe and clip.Check reject a clip with
// to its code.
var probeCodes = []struct {
	err  error
	code RejectCode
}{
	{clip.ErrNotVideo, RejectNotAVideo},
	{clip.ErrCorrupt, RejectCorrupt},
	{clip.ErrUnsupportedCodec, RejectUnsupportedCodec},
	{clip.ErrNoVideoTrack, RejectNoPicture},
	{clip.ErrTooComplex, RejectUnreadable},
	{clip.ErrEmpty, RejectEmpty},
	{clip.ErrTooLong, RejectTooLong},
}

// Unplayable is the rejection of a clip that clip.Probe or clip.Check
// refused with err (one for which clip.Rejected is true), coded by the
// error it wraps. It returns false for any other error (a failed read:
// the caller retries instead).
func Unplayable(err error) (Rejection, bool) {
	for _, p := range probeCodes {
		if errors.Is(err, p.err) {
			return Rejection{p.code, "not a playable video: " + err.Error()}, true
		}
	}
	return Rejection{}, false
}
