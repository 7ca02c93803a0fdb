package s3store_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/config"

	"github.com/moveleads/partnerapi/shared/adapter/s3store"
	"github.com/moveleads/partnerapi/shared/domain/clip"
)

// The capture page asks for an upload of a clip it has recorded; the
// clip processor, told by S3 that the object exists, checks its size and
// probes it by ranges.
func Example() {
	ctx := context.Background()
	cfg, err := config.LoadDefaultConfig(ctx) // once, outside the handler
	if err != nil {
		fmt.Println(err)
		return
	}
	store, err := s3store.New(cfg, "clips", s3store.Options{})
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

	obj, err := store.Head(ctx, key)
	switch {
	case errors.Is(err, s3store.ErrNotFound):
		return // not uploaded (yet)
	case err != nil:
		return // S3 failed: retry later
	case obj.Size != announced:
		return // reject the clip
	}
	r := store.ReaderAt(ctx, key, obj.Size)
	info, err := clip.Probe(r, obj.Size)
	fmt.Println(info, err, r.Usage().Requests)
}
