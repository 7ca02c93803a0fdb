package survey

import (
	"errors"
	"strings"
)

// objectPrefix is manifest.ClipPrefix (the survey package stays free of
// the manifest; a test checks they agree).
const objectPrefix = "clips/"

// ObjectKey is the clip bucket key of clip clipID of survey surveyID of
// partner partnerID in mode: clips/<partner>/<mode>/<survey_id>/<clip_id>.
// The processor learns the tenant from the key alone (an S3 event carries
// nothing else), and the key never holds a capture token.
func ObjectKey(partnerID, mode, surveyID, clipID string) string {
	return objectPrefix + partnerID + "/" + mode + "/" + surveyID + "/" + clipID
}

// ErrObjectKey is returned by ParseObjectKey for a key ObjectKey did not
// make.
var ErrObjectKey = errors.New("survey: not a clip object key")

// ParseObjectKey splits a key made by ObjectKey. It fails with ErrObjectKey
// for any other key: another prefix, a missing or empty part, or extra
// segments.
func ParseObjectKey(key string) (partnerID, mode, surveyID, clipID string, err error) {
	rest, ok := strings.CutPrefix(key, objectPrefix)
	if !ok {
		return "", "", "", "", ErrObjectKey
	}
	parts := strings.Split(rest, "/")
	if len(parts) != 4 {
		return "", "", "", "", ErrObjectKey
	}
	for _, p := range parts {
		if p == "" {
			return "", "", "", "", ErrObjectKey
		}
	}
	return parts[0], parts[1], parts[2], parts[3], nil
}

// finishName ends a survey's finish marker key; a clip id is a UUID, so it
// never names a clip.
const finishName = "finished"

// FinishKey is the key of survey surveyID's finish marker:
// clips/<partner>/<mode>/<survey_id>/finished, an empty object the capture
// page's finish writes beside the clips. Its object-created event starts
// the clip processor, which settles the survey (builds the inventory and
// prices it): the capture function itself never builds an inventory, so
// it links neither the detector's results nor the rate card's ZIP table.
func FinishKey(partnerID, mode, surveyID string) string {
	return ObjectKey(partnerID, mode, surveyID, finishName)
}

// ParseFinishKey splits a key made by FinishKey; ok is false for any other
// key.
func ParseFinishKey(key string) (partnerID, mode, surveyID string, ok bool) {
	p, m, s, name, err := ParseObjectKey(key)
	if err != nil || name != finishName {
		return "", "", "", false
	}
	return p, m, s, true
}
