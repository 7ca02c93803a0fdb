// Package s3event is the S3 edge of the service: it turns an S3
// object-created notification (aws-lambda-go's events.S3Event, as Amazon S3
// delivers it to Lambda and as the local stack's MinIO posts it) into one
// call of a Processor per record, and logs one JSON line per record. Like
// shared/edge/apigw for HTTP, it only decodes and reports; the work lives in the
// feature package.
package s3event

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/aws/aws-lambda-go/events"
)

// Object is one created object, as a record names it.
type Object struct {
	Bucket string
	// Key is the object key, URL-decoded (S3 encodes keys in events; MinIO
	// also encodes "/").
	Key  string
	Size int64
	ETag string
	// Sequencer orders events of the same key (hex, compared by length
	// then value); "" when the sender has none.
	Sequencer string
}

// Processor handles one created object. S3 delivers events at least once
// and in no particular order, so Process must be idempotent: a duplicate
// or late call changes nothing. An error means "try again later" (the
// whole event is retried by Lambda); an object the processor refuses for
// good (not a clip, a rejected clip) is not an error.
type Processor interface {
	Process(ctx context.Context, obj Object) error
}

// Handler is the signature aws-lambda-go starts for S3 notifications.
type Handler func(context.Context, events.S3Event) error

// New returns the handler that runs p for every object-created record of
// an event and logs one line per record to log (nil discards). Records of
// other event kinds are logged and skipped. Every record is processed even
// when one fails; the handler then fails with the records' errors joined,
// so Lambda retries the event (the records that succeeded are no-ops the
// second time).
func New(p Processor, log *slog.Logger) Handler {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return func(ctx context.Context, ev events.S3Event) error {
		var errs []error
		for i, r := range ev.Records {
			start := time.Now()
			obj, err := objectOf(r)
			attrs := []slog.Attr{slog.String("event", r.EventName), slog.Int("record", i)}
			if err == nil && !created(r.EventName) {
				err = errSkip
			}
			if err == nil {
				attrs = append(attrs, slog.String("bucket", obj.Bucket), slog.String("key", obj.Key), slog.Int64("size", obj.Size))
				err = p.Process(ctx, obj)
			}
			attrs = append(attrs, slog.Float64("duration_ms", float64(time.Since(start).Microseconds())/1000))
			switch {
			case errors.Is(err, errSkip):
				log.LogAttrs(ctx, slog.LevelWarn, "s3 record skipped", attrs...)
			case err != nil:
				errs = append(errs, fmt.Errorf("record %d (%s): %w", i, obj.Key, err))
				log.LogAttrs(ctx, slog.LevelError, "s3 record failed", append(attrs, slog.String("error", err.Error()))...)
			default:
				log.LogAttrs(ctx, slog.LevelInfo, "s3 record", attrs...)
			}
		}
		return errors.Join(errs...)
	}
}

var errSkip = errors.New("not an object-created record")

// created reports whether an event name is an object-created one: Amazon
// S3 says "ObjectCreated:Put", MinIO "s3:ObjectCreated:Put".
func created(name string) bool {
	return strings.HasPrefix(strings.TrimPrefix(name, "s3:"), "ObjectCreated:")
}

func objectOf(r events.S3EventRecord) (Object, error) {
	key := r.S3.Object.URLDecodedKey
	if key == "" && r.S3.Object.Key != "" {
		// A record decoded without aws-lambda-go's unmarshaller (which
		// fills URLDecodedKey) still names its key.
		return Object{}, fmt.Errorf("%w: key %q was not URL-decoded", errSkip, r.S3.Object.Key)
	}
	if key == "" || r.S3.Bucket.Name == "" {
		return Object{}, fmt.Errorf("%w: record names no bucket or key", errSkip)
	}
	return Object{
		Bucket: r.S3.Bucket.Name, Key: key, Size: r.S3.Object.Size,
		ETag: r.S3.Object.ETag, Sequencer: r.S3.Object.Sequencer,
	}, nil
}
