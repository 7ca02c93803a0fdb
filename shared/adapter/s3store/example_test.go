package s3store_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/moveleads/partnerapi/shared/adapter/s3store"
	"github.com/moveleads/partnerapi/shared/local/s3local"
)

// The capture page asks for an upload of a clip it has recorded; the
// clip processor, told by S3 that the object exists, checks its size
// before it probes the clip by ranges. It runs here against the test
// binary's MinIO; a function gets its aws.Config from awsenv instead.
func Example() {
	ctx := context.Background()
	cfg, err := config.LoadDefaultConfig(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	const bucket = "example-clips"
	if err := s3local.CreateBucket(ctx, s3.NewFromConfig(cfg), s3local.Bucket{Name: bucket}); err != nil {
		fmt.Println(err)
		return
	}
	store, err := s3store.New(cfg, bucket, s3store.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}

	const key, announced = "surveys/s1/clips/c1.webm", 5 << 20
	up, err := store.PresignUpload(ctx, key, "video/webm", announced, 15*time.Minute)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(up.Method, up.Headers["Content-Type"])

	// Nothing was uploaded to the presigned URL.
	_, err = store.Head(ctx, key)
	fmt.Println("not uploaded yet:", errors.Is(err, s3store.ErrNotFound))
	// Output:
	// PUT video/webm
	// not uploaded yet: true
}
