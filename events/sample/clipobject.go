package sample

import (
	"bytes"
	"context"
	"crypto/md5"
	_ "embed"
	"encoding/hex"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/domain/survey"
)

// clipObject is the fixture clip ClipID's video: a copy of
// shared/domain/clip/testdata/mediarecorder-vp8-opus.webm (2 s of VP8 and Opus as
// Chromium's MediaRecorder writes it, what the capture page uploads), which
// the clip processor accepts as playable. A test checks it is that file.
//
//go:embed clip.webm
var clipObject []byte

// clipContentType is the type the capture page announced the clip as.
const clipContentType = "video/webm"

// ClipKey returns the clip bucket key of the fixture clip ClipID:
// clips/<PartnerID>/test/<FinishSurveyID>/<ClipID>.
func ClipKey() string {
	return survey.ObjectKey(PartnerID, string(auth.Test), FinishSurveyID, ClipID)
}

// ClipKeys returns the clip bucket keys of every fixture clip's object,
// ClipKey first, then those of the playable clips VideoClipID and
// ViewClipID (the viewer page presigns GETs of them): what PutClipObject
// stores and a test's clean-up deletes.
func ClipKeys() []string {
	return []string{
		ClipKey(),
		survey.ObjectKey(PartnerID, string(auth.Test), VideoSurveyID, VideoClipID),
		survey.ObjectKey(PartnerID, string(auth.Test), ViewSurveyID, ViewClipID),
	}
}

// ClipObject returns a copy of the fixture clip's bytes, as PutClipObject
// stores them.
func ClipObject() []byte { return bytes.Clone(clipObject) }

// clipETag is the ETag S3 gives the clip's object: the hex MD5 of its
// bytes, as for every object uploaded in one PUT.
func clipETag() string {
	sum := md5.Sum(clipObject)
	return hex.EncodeToString(sum[:])
}

// ObjectPutter is the part of an S3 client PutClipObject needs.
type ObjectPutter interface {
	PutObject(ctx context.Context, in *s3.PutObjectInput, optFns ...func(*s3.Options)) (*s3.PutObjectOutput, error)
}

// PutClipObject stores the fixture clip's object at each of ClipKeys in
// bucket, as the capture page's presigned upload would (same bytes and
// Content-Type as the clip records Seed writes): at ClipKey so that the
// clip-processor event and the finish event find it, and at the keys of
// the playable clips so that the viewer page's addresses play. Call it
// after Seed, on a local bucket only. Where the bucket notifies the clip
// processor (make dev's MinIO), the processor decides the clip at once;
// the sample event then finds it decided, which changes nothing (the
// playable clips are decided already). Putting them again overwrites them
// with the same bytes.
func PutClipObject(ctx context.Context, client ObjectPutter, bucket string) error {
	for _, key := range ClipKeys() {
		_, err := client.PutObject(ctx, &s3.PutObjectInput{
			Bucket: aws.String(bucket), Key: aws.String(key),
			Body: bytes.NewReader(clipObject), ContentLength: aws.Int64(int64(len(clipObject))),
			ContentType: aws.String(clipContentType),
		})
		if err != nil {
			return fmt.Errorf("put fixture clip %s in bucket %s: %w", key, bucket, err)
		}
	}
	return nil
}
