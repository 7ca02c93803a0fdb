package rekognition_test

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/aws/aws-sdk-go-v2/config"

	"github.com/moveleads/partnerapi/shared/adapter/rekognition"
	"github.com/moveleads/partnerapi/shared/domain/inventory"
	"github.com/moveleads/partnerapi/shared/wire/awsenv"
)

// A function builds the detector once, outside its handler, honouring
// AWS_ENDPOINT_URL_REKOGNITION, and runs it on a survey's frames.
func Example() {
	ctx := context.Background()
	cfg, err := config.LoadDefaultConfig(ctx) // once, outside the handler
	if err != nil {
		fmt.Println(err)
		return
	}
	var o rekognition.Options
	if endpoint := awsenv.Endpoint(os.Getenv, "REKOGNITION"); endpoint != nil {
		o.Endpoint = *endpoint
	}
	var detector inventory.Detector
	d, err := rekognition.New(cfg, o)
	if err != nil {
		fmt.Println(err)
		return
	}
	detector = d

	var frames [][]byte // JPEG stills of the walkthrough
	found, errs := d.DetectAll(ctx, frames)
	for i, err := range errs {
		switch {
		case errors.Is(err, inventory.ErrBadFrame):
			continue // skip the frame: sending it again would not help
		case err != nil:
			return // throttled or down past the retries: retry the survey later
		}
		for _, obj := range found[i] {
			fmt.Println(detector.Name(), obj.Label, obj.Parents, obj.Confidence, obj.Box)
		}
	}
}
