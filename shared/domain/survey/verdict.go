package survey

import "strings"

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

// rejectSentences maps what a RejectReason starts with or contains (the
// operator's words, made by Inspect, the processor and Finish) to a
// sentence the customer understands. The first match wins; a reason no
// row matches gets fallbackSentence.
var rejectSentences = []struct{ match, sentence string }{
	{"never uploaded", "The video never finished sending."},
	{"does not match the", "Only part of the video arrived."},
	{"-byte limit", "The video is larger than we accept."},
	{"too long", "The video is longer than 10 minutes."},
	{"limit", "The video is longer than 10 minutes."},
	{"zero duration", "The video is empty: it has no length."},
	{"duration is 0", "The video is empty: it has no length."},
	{"no video picture", "The video has no picture."},
	{"no video track", "The video has no picture."},
	{"codec", "The video is in a format we can’t play."},
	{"truncated or corrupt", "The video file is damaged or was only partly saved."},
	{"too many reads", "We could not read this video file."},
	{"was uploaded as", "This is not a video we can play."},
	{"container", "This is not a video we can play."},
	{"not a video", "This is not a video we can play."},
}

const fallbackSentence = "We could not use this video."

// CustomerReason is the sentence the capture page shows for a clip
// rejected with reason: the operator's reason names sizes and codecs, the
// customer's says what went wrong in plain words.
func CustomerReason(reason string) string {
	for _, r := range rejectSentences {
		if strings.Contains(reason, r.match) {
			return r.sentence
		}
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
		return VerdictUnusable, CustomerReason(c.RejectReason)
	}
	return VerdictSending, ""
}
