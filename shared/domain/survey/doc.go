// Package survey is the domain of the hosted video survey: a survey's
// states and the events that move it, its clips and frames and their
// limits, and the capture tokens that let a customer record without an
// account. It does no I/O and imports no AWS or HTTP package; the request
// pipeline, the capture page and the clip processor store and serve what
// it decides.
//
// A survey goes invited → recording → processing → inventory_ready or
// failed. [Next] is the whole transition rule: an event moves a survey only
// further along, so duplicate, late and replayed events never move it
// backwards, and inventory_ready and failed are final. [Finished] decides
// between them from the clips, and [Survey.Settle] applies it.
//
// [NewClip] checks a requested upload against [MaxClips], [MaxClipBytes]
// and [ContentTypes]; [Inspect] checks what the processor read from the
// file ([Codecs], [MaxClipDuration]). Capture links carry a linktoken of
// which only the hash is stored: [Survey.IssueToken] mints a fresh one on
// every getSurveyLink call, earlier ones work until they expire, and a
// survey keeps its [MaxTokens] newest. A link lives [DefaultTokenLifetime]
// unless the partner's settings say otherwise, within [MinTokenLifetime]
// and [MaxTokenLifetime].
//
// Design (why a fresh URL on every call): docs/CAPTURE.md.
package survey
