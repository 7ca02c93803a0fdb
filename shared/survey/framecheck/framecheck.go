// Package framecheck validates an uploaded survey frame's bytes (a JPEG)
// against what the capture page announced.
//
// It is apart from package survey because image/jpeg registers its
// decoder with package image at init, so every binary that imports
// image/jpeg links the whole decoder, used or not. Package survey is
// imported by nearly every function (tokens, keys, statuses); only the
// functions that check frames (shared/surveys) import this one.
package framecheck

import (
	"bytes"
	"fmt"
	"image/jpeg"

	"github.com/moveleads/partnerapi/shared/survey"
)

// CorruptReason is the reason recorded for a frame whose JPEG header is
// sound but whose image data does not decode.
const CorruptReason = "JPEG image data is corrupt"

// Check validates an uploaded frame's bytes against f as announced: the
// size, a JPEG (its header parses and it ends with the end-of-image
// marker, so a cut-off upload is refused) whose dimensions are those
// announced, and whose image data decodes whole (a real header over
// garbage is the customer's bad frame, not a detector failure). The
// decode is bounded: at most survey.MaxFrameBytes of input and
// survey.MaxFrameSide pixels a side, checked before it. It returns the
// reason to record when the frame is rejected, "" when it is valid.
func Check(f survey.Frame, data []byte) string {
	if int64(len(data)) != f.AnnouncedSize {
		return fmt.Sprintf("size %d bytes, announced %d", len(data), f.AnnouncedSize)
	}
	cfg, err := jpeg.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return "not a JPEG image"
	}
	if !bytes.HasSuffix(data, []byte{0xff, 0xd9}) {
		return "JPEG image cut short (no end-of-image marker)"
	}
	if cfg.Width != f.Width || cfg.Height != f.Height {
		return fmt.Sprintf("%d×%d pixels, announced %d×%d", cfg.Width, cfg.Height, f.Width, f.Height)
	}
	if _, err := jpeg.Decode(bytes.NewReader(data)); err != nil {
		return CorruptReason
	}
	return ""
}
