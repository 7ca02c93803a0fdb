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

	"github.com/moveleads/partnerapi/shared/auth"
	"github.com/moveleads/partnerapi/shared/survey"
)

// clipObject is the fixture clip ClipID's video: a copy of
// shared/clip/testdata/mediarecorder-vp8-opus.webm (2 s of VP8 and Opus as
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

// PutClipObject stores the fixture clip's object at ClipKey in bucket, as
// the capture page's presigned upload would (same bytes and Content-Type
// as the clip record Seed writes), so that the clip-processor event and
// the finish event find it. Call it after Seed, on a local bucket only.
// Where the bucket notifies the clip processor (make dev's MinIO), the
// processor decides the clip at once; the sample event then finds it
// decided, which changes nothing. Putting it again overwrites it with the
// same bytes.
func PutClipObject(ctx context.Context, client ObjectPutter, bucket string) error {
	_, err := client.PutObject(ctx, &s3.PutObjectInput{
		Bucket: aws.String(bucket), Key: aws.String(ClipKey()),
		Body: bytes.NewReader(clipObject), ContentLength: aws.Int64(int64(len(clipObject))),
		ContentType: aws.String(clipContentType),
	})
	if err != nil {
		return fmt.Errorf("put fixture clip %s in bucket %s: %w", ClipKey(), bucket, err)
	}
	return nil
}
