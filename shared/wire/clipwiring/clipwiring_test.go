package clipwiring

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/moveleads/partnerapi/shared/domain/inventory"
	"github.com/moveleads/partnerapi/shared/wire/awsenv"
)

// TestRekognitionIsTheDeployedDetector: the clip processor's detector is
// DetectLabels at AWS_ENDPOINT_URL_REKOGNITION when set (Amazon
// Rekognition in the region otherwise), signed for the rekognition
// service, with MinConfidence 70, and its answer (a recorded DetectLabels
// body) maps to the inventory's rekognition labels.
func TestRekognitionIsTheDeployedDetector(t *testing.T) {
	recorded, err := os.ReadFile("../../adapter/rekognition/testdata/composed-living-room.json")
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		target, auth string
		body         map[string]any
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got.target, got.auth = r.Header.Get("X-Amz-Target"), r.Header.Get("Authorization")
		_ = json.Unmarshal(b, &got.body)
		w.Header().Set("Content-Type", "application/x-amz-json-1.1")
		_, _ = w.Write(recorded)
	}))
	defer srv.Close()
	t.Setenv("AWS_ENDPOINT_URL_REKOGNITION", srv.URL)
	cfg := aws.Config{Region: "us-east-1", Credentials: aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
		return aws.Credentials{AccessKeyID: "AKIDEXAMPLE", SecretAccessKey: "secret"}, nil
	})}
	d, err := Rekognition(awsenv.ForTools(nil, nil, nil, cfg))
	if err != nil {
		t.Fatal(err)
	}
	jpeg := append([]byte{0xff, 0xd8, 0xff, 0xe0}, make([]byte, 64)...)
	jpeg = append(jpeg, 0xff, 0xd9)
	a, err := inventory.Analyse(context.Background(), d, jpeg)
	if err != nil || a.Error != "" || a.Detector != "rekognition" || len(a.Detections) == 0 {
		t.Fatalf("analysis %+v, %v", a, err)
	}
	if got.target != "RekognitionService.DetectLabels" || !strings.Contains(got.auth, "/us-east-1/rekognition/aws4_request") {
		t.Errorf("target %q, authorization %q", got.target, got.auth)
	}
	if got.body["MinConfidence"] != float64(RekognitionMinConfidence) {
		t.Errorf("MinConfidence %v; want %d", got.body["MinConfidence"], RekognitionMinConfidence)
	}
	mapped := 0
	for _, det := range a.Detections {
		if _, ok := inventory.ItemFor(a.Detector, det.Label); ok {
			mapped++
		}
	}
	if mapped == 0 {
		t.Errorf("no detection of the recorded living room maps to the cube sheet: %+v", a.Detections)
	}
}
