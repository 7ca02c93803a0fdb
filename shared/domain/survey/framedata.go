package survey

import (
	"bytes"
	"fmt"
	"image/jpeg"
)

// FrameCorruptReason is the reason recorded for a frame whose JPEG header
// is sound but whose image data does not decode.
const FrameCorruptReason = "JPEG image data is corrupt"

// CheckData validates an uploaded frame's bytes against f as announced: the
// size, a JPEG (its header parses and it ends with the end-of-image
// marker, so a cut-off upload is refused) whose dimensions are those
// announced, and whose image data decodes whole (a real header over
// garbage is the customer's bad frame, not a detector failure). The
// decode is bounded: at most MaxFrameBytes of input and MaxFrameSide
// pixels a side, checked before it. It returns the reason to record when
// the frame is rejected, "" when it is valid.
func (f Frame) CheckData(data []byte) string {
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
		return FrameCorruptReason
	}
	return ""
}
