// Package clipwiring builds the clip-processor function: the survey
// feature on the clip bucket's object-created events, with Amazon
// Rekognition's DetectLabels as the frames' detector.
//
// It stands apart from shared/wire/s3wiring because the clip processor
// is the only function that calls Rekognition: every package a function
// imports is initialised, and service/rekognition's endpoint table took
// about 0.1-0.17 ms of the package init (GODEBUG=inittrace=1) of each of
// v1-accept, v1-capture, v1-video, v1-quote and v1-mcp while this builder
// lived in s3wiring.
package clipwiring

import (
	"context"
	"time"

	"github.com/moveleads/partnerapi/shared/adapter/rekognition"
	"github.com/moveleads/partnerapi/shared/app/surveys"
	"github.com/moveleads/partnerapi/shared/domain/inventory"
	"github.com/moveleads/partnerapi/shared/edge/s3event"
	"github.com/moveleads/partnerapi/shared/wire/awsenv"
	"github.com/moveleads/partnerapi/shared/wire/s3wiring"
)

// ClipProcessor builds the clip-processor function's processor, with
// Amazon Rekognition's DetectLabels as the frames' detector (Rekognition).
func ClipProcessor(e *awsenv.Env) (s3event.Processor, error) {
	d, err := Rekognition(e)
	if err != nil {
		return nil, err
	}
	return ClipProcessorWith(e, d)
}

// ClipProcessorWith builds the clip processor with detector d: the local
// stack and tests pass the local sidecar (shared/local/detectlocal), which no
// function links; nil records every frame as not analysed.
func ClipProcessorWith(e *awsenv.Env, d inventory.Detector) (s3event.Processor, error) {
	objects, err := s3wiring.ClipObjects(e)
	if err != nil {
		return nil, err
	}
	return clipProcessor{surveys.New(surveys.Deps{Store: e.Store, Objects: objects, Detector: d, Log: e.Log})}, nil
}

// Rekognition returns the inventory's detector in AWS: DetectLabels on
// e's configuration (honouring AWS_ENDPOINT_URL_REKOGNITION), counting
// labels at 70% confidence or more (inventory.Thresholds applies its own
// on top), 4 calls in flight at most per function instance, each frame
// retried on throttling by the SDK's standard retryer (5 attempts).
func Rekognition(e *awsenv.Env) (*rekognition.Detector, error) {
	o := rekognition.Options{MinConfidence: RekognitionMinConfidence}
	if endpoint := awsenv.Endpoint(e.Getenv, "REKOGNITION"); endpoint != nil {
		o.Endpoint = *endpoint
	}
	return rekognition.New(e.Config, o)
}

// RekognitionMinConfidence is the DetectLabels MinConfidence the clip
// processor sends: labels and instances below it are not even returned.
const RekognitionMinConfidence = 70

// clipProcessor adapts the survey service to the S3 edge.
type clipProcessor struct{ s *surveys.Service }

func (p clipProcessor) Process(ctx context.Context, obj s3event.Object) error {
	return p.s.ProcessClip(ctx, surveys.Object{Key: obj.Key, Size: obj.Size}, time.Now())
}
