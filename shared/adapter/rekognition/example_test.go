package rekognition_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"sort"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"

	"github.com/moveleads/partnerapi/shared/adapter/rekognition"
	"github.com/moveleads/partnerapi/shared/domain/inventory"
)

// A function builds the detector once, outside its handler, from the
// aws.Config awsenv loads (and AWS_ENDPOINT_URL_REKOGNITION when set), and
// runs it on a survey's frames. Here Rekognition is a local server that
// answers DetectLabels with a recorded response.
func Example() {
	answer, err := os.ReadFile("testdata/composed-living-room.json")
	if err != nil {
		fmt.Println(err)
		return
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/x-amz-json-1.1")
		w.Write(answer)
	}))
	defer srv.Close()
	cfg := aws.Config{Region: "us-east-1", Credentials: credentials.NewStaticCredentialsProvider("AKID", "secret", "")}

	d, err := rekognition.New(cfg, rekognition.Options{Endpoint: srv.URL})
	if err != nil {
		fmt.Println(err)
		return
	}
	var detector inventory.Detector = d

	frames := [][]byte{{0xFF, 0xD8, 0xFF, 0xD9}} // JPEG stills of the walkthrough
	found, errs := d.DetectAll(context.Background(), frames)
	for i, err := range errs {
		switch {
		case errors.Is(err, inventory.ErrBadFrame):
			continue // skip the frame: sending it again would not help
		case err != nil:
			fmt.Println(err) // throttled or down past the retries: retry the survey later
			return
		}
		var labels []string
		for _, obj := range found[i] {
			labels = append(labels, obj.Label)
		}
		sort.Strings(labels)
		fmt.Println(detector.Name(), labels)
	}
	// Output: rekognition [Chair Chair Chair Coffee Table Couch]
}
