// Package survey is the domain of the hosted video survey: a survey's
// states and the events that move it, its clips and their limits, and the
// capture tokens that let a customer record without an account. It does no
// I/O and imports no AWS or HTTP package; the request pipeline, the capture
// page and the clip processor store and serve what it decides.
//
// # States
//
// A survey goes invited → recording → processing → inventory_ready or
// failed:
//
//	invited          getSurveyLink created it (the link response says
//	                 awaiting_recording)
//	recording        the capture page requested its first clip upload
//	processing       the customer pressed "Finish survey"
//	inventory_ready  every clip is decided and at least one is playable
//	failed           every clip is decided and none is playable
//	                 (FailureReason says why, for the operator)
//
// Next is the whole transition rule: an event moves a survey to the event's
// state only when that is further along, so duplicate, late and replayed
// events never move a survey backwards, and inventory_ready and failed are
// final. Finished decides between them from the clips, and Survey.Settle
// applies it.
//
// # Limits
//
// At most MaxClips (20) clips a survey, MaxClipBytes (500 MiB) and
// MaxClipDuration (10 minutes) a clip, of the media types in ContentTypes
// and the codecs in Codecs. NewClip checks a requested upload, Inspect what
// the processor read from the file.
//
// # Capture tokens
//
// A capture URL carries a link token of 256 bits (linktoken.New);
// only its SHA-256 (linktoken.Hash) is stored, and linktoken.Parse refuses a malformed
// token before any lookup. A link lives DefaultTokenLifetime (7 days), or
// what the partner's settings say within [MinTokenLifetime,
// MaxTokenLifetime].
//
// Every getSurveyLink call returns a fresh URL, not the URL of the previous
// call: since only hashes are stored, the previous URL cannot be rebuilt
// without keeping its token in plain text. The alternative, deriving the
// token with an HMAC of the survey id under a deployed secret, would give
// the same URL every time but could not expire or revoke one link without
// rotating the secret for every survey. So each call mints a token
// (Survey.IssueToken); earlier links keep working until they expire, since
// the customer may already hold one, and a survey keeps its MaxTokens newest
// tokens. The survey_id stays the same until the survey is final; after
// that, getSurveyLink starts a new survey.
package survey
