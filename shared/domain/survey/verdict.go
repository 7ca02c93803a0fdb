package survey

// Verdict is what the capture page tells the customer about one clip.
type Verdict string

// The verdicts, in the order a clip passes them.
const (
	// VerdictSending: the upload was requested; the clip has not arrived.
	VerdictSending Verdict = "sending"
	// VerdictReceived: the clip arrived and is being checked.
	VerdictReceived Verdict = "received"
	// VerdictChecked: the clip was checked and counts.
	VerdictChecked Verdict = "checked"
	// VerdictUnusable: the clip could not be used; it does not count.
	VerdictUnusable Verdict = "unusable"
)

// customerSentences is the one table of what the capture page says about
// a rejected clip, by code; several codes may share a sentence.
var customerSentences = map[RejectCode]string{
	RejectNeverUploaded:    "The video never finished sending.",
	RejectSizeMismatch:     "Only part of the video arrived.",
	RejectTooLarge:         "The video is larger than we accept.",
	RejectTooLong:          "The video is longer than 10 minutes.",
	RejectEmpty:            "The video is empty: it has no length.",
	RejectNoPicture:        "The video has no picture.",
	RejectUnsupportedCodec: "The video is in a format we can’t play.",
	RejectCorrupt:          "The video file is damaged or was only partly saved.",
	RejectUnreadable:       "We could not read this video file.",
	RejectNotAVideo:        "This is not a video we can play.",
	RejectTypeMismatch:     "This is not a video we can play.",
}

// fallbackSentence is said for a code with no sentence: "" (a clip
// rejected before codes were stored) or one this version does not know.
const fallbackSentence = "We could not use this video."

// CustomerReason is the sentence the capture page shows for a clip
// rejected with code: plain words, never the operator's reason.
func CustomerReason(code RejectCode) string {
	if s, ok := customerSentences[code]; ok {
		return s
	}
	return fallbackSentence
}

// Verdict is what the customer is told about c, and for an unusable clip
// why (CustomerReason); the reason is "" otherwise.
func (c Clip) Verdict() (Verdict, string) {
	switch c.Status {
	case ClipProcessing:
		return VerdictReceived, ""
	case ClipPlayable:
		return VerdictChecked, ""
	case ClipRejected:
		return VerdictUnusable, CustomerReason(c.RejectCode)
	}
	return VerdictSending, ""
}
