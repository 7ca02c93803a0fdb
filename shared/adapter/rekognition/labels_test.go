package rekognition

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"slices"
	"testing"

	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/rekognition"
	"github.com/aws/aws-sdk-go-v2/service/rekognition/types"
	"github.com/aws/smithy-go"

	"github.com/moveleads/partnerapi/shared/domain/inventory"
)

// answerClient is an HTTP client that answers every request with 200 and
// body, so the SDK's own deserializer reads it without a server.
type answerClient []byte

func (b answerClient) Do(r *http.Request) (*http.Response, error) {
	if r.Body != nil {
		r.Body.Close()
	}
	return &http.Response{
		StatusCode: http.StatusOK, Status: "200 OK", Request: r,
		Header:        http.Header{"Content-Type": {contentType}, "X-Amzn-Requestid": {"req-1"}},
		Body:          io.NopCloser(bytes.NewReader(b)),
		ContentLength: int64(len(b)),
	}, nil
}

// parseAnswer reads body as DetectLabels' answer through the SDK's client
// and maps it as Detect does: the SDK's DeserializationError or
// errMalformed when it cannot.
func parseAnswer(body []byte, minConfidence float64) ([]inventory.Detection, error) {
	client := rekognition.New(rekognition.Options{
		Region: testRegion, Credentials: credentials.NewStaticCredentialsProvider(testKey, testSecret, ""),
		HTTPClient: answerClient(body), RetryMaxAttempts: 1,
	})
	out, err := client.DetectLabels(context.Background(), &rekognition.DetectLabelsInput{Image: &types.Image{Bytes: []byte{0xFF}}})
	if err != nil {
		return nil, err
	}
	return detections(out.Labels, minConfidence)
}

// isMalformed reports whether err is what Detect fails with for an answer
// it cannot read.
func isMalformed(err error) bool {
	var decode *smithy.DeserializationError
	return errors.Is(err, errMalformed) || errors.As(err, &decode)
}

// The recorded and documented answers of testdata/ (sources in
// testdata/README.md), read as Detect reads them: through the SDK's
// deserializer, then mapped.
func TestParseFixtures(t *testing.T) {
	for _, tc := range []struct {
		file          string
		minConfidence float64
		want          map[string]int
		first         inventory.Detection
	}{
		{
			file: "aws-cli-street.json", minConfidence: 55,
			want: map[string]int{"Car": 13, "Person": 2, "Wheel": 10, "Skateboard": 1},
			first: inventory.Detection{
				Label: "Car", Parents: []string{"Vehicle", "Transportation"}, Confidence: 0.9915271759033203,
				Box: inventory.Box{Left: 0.0037978808395564556, Top: 0.5039216876029968, Width: 0.10616336017847061, Height: 0.18528179824352264},
			},
		},
		{
			// The 14th car, at 52.4 percent, passes a threshold of 50.
			file: "aws-cli-street.json", minConfidence: 50,
			want: map[string]int{"Car": 14, "Person": 2, "Wheel": 10, "Skateboard": 1},
		},
		{
			// ImageProperties and DominantColors (a request for both
			// features) are ignored.
			file: "devguide-mobile-phone.json", minConfidence: 55,
			want: map[string]int{"Mobile Phone": 1},
			first: inventory.Detection{
				Label: "Mobile Phone", Parents: []string{"Phone"}, Confidence: 0.999364013671875,
				Box: inventory.Box{Left: 0.3604024350643158, Top: 0.09245597571134567, Width: 0.26779675483703613, Height: 0.8562285900115967},
			},
		},
		{file: "recorded-city-scene.json", minConfidence: 55, want: map[string]int{}},
		{
			file: "composed-living-room.json", minConfidence: 55,
			want: map[string]int{"Chair": 3, "Couch": 1, "Coffee Table": 1},
			first: inventory.Detection{
				Label: "Chair", Parents: []string{"Furniture"}, Confidence: 0.9758634948730469,
				Box: inventory.Box{Left: 0.0612335205078125, Top: 0.4911651611328125, Width: 0.1402130126953125, Height: 0.3172607421875},
			},
		},
		{
			// The lamp's one instance is at 47 percent.
			file: "composed-living-room.json", minConfidence: 40,
			want: map[string]int{"Chair": 3, "Couch": 1, "Coffee Table": 1, "Lamp": 1},
		},
	} {
		t.Run(tc.file, func(t *testing.T) {
			body, err := os.ReadFile("testdata/" + tc.file)
			if err != nil {
				t.Fatal(err)
			}
			found, err := parseAnswer(body, tc.minConfidence)
			if err != nil {
				t.Fatalf("parseAnswer: %v", err)
			}
			got := countLabels(found)
			if len(got) != len(tc.want) {
				t.Errorf("labels %v; want %v", got, tc.want)
			}
			for label, n := range tc.want {
				if got[label] != n {
					t.Errorf("%s: %d detections; want %d", label, got[label], n)
				}
			}
			if tc.first.Label != "" && !equalDetection(found[0], tc.first) {
				t.Errorf("first detection %+v; want %+v", found[0], tc.first)
			}
		})
	}
}

func equalDetection(a, b inventory.Detection) bool {
	return a.Label == b.Label && slices.Equal(a.Parents, b.Parents) && a.Confidence == b.Confidence && a.Box == b.Box
}

func TestParseEdgeCases(t *testing.T) {
	for _, tc := range []struct {
		name string
		body string
		want []inventory.Detection
		err  bool
	}{
		{
			name: "a couch past the left edge is clipped",
			body: `{"Labels":[{"Name":"Couch","Confidence":96,"Instances":[{"BoundingBox":{"Width":0.5,"Height":0.25,"Left":-0.125,"Top":0.5},"Confidence":96}],"Parents":[{"Name":"Furniture"}]}]}`,
			want: []inventory.Detection{{Label: "Couch", Parents: []string{"Furniture"}, Confidence: 0.96, Box: inventory.Box{Left: 0, Top: 0.5, Width: 0.375, Height: 0.25}}},
		},
		{
			name: "a box past the bottom right corner is clipped",
			body: `{"Labels":[{"Name":"Bed","Confidence":90,"Instances":[{"BoundingBox":{"Width":0.5,"Height":0.75,"Left":0.75,"Top":0.5},"Confidence":90}]}]}`,
			want: []inventory.Detection{{Label: "Bed", Confidence: 0.9, Box: inventory.Box{Left: 0.75, Top: 0.5, Width: 0.25, Height: 0.5}}},
		},
		{
			name: "a box outside the frame is dropped",
			body: `{"Labels":[{"Name":"Bed","Confidence":90,"Instances":[{"BoundingBox":{"Width":0.5,"Height":0.5,"Left":1.25,"Top":0.5},"Confidence":90}]}]}`,
		},
		{
			name: "an instance without a box is dropped",
			body: `{"Labels":[{"Name":"Person","Confidence":90,"Instances":[{"Confidence":90},{}]}]}`,
		},
		{
			name: "an instance without confidence takes its label's",
			body: `{"Labels":[{"Name":"Chair","Confidence":80,"Instances":[{"BoundingBox":{"Width":0.5,"Height":0.5,"Left":0,"Top":0}}]}]}`,
			want: []inventory.Detection{{Label: "Chair", Confidence: 0.8, Box: inventory.Box{Width: 0.5, Height: 0.5}}},
		},
		{
			name: "parents without names are skipped",
			body: `{"Labels":[{"Name":"Chair","Confidence":80,"Parents":[{},{"Name":"Furniture"}],"Instances":[{"BoundingBox":{"Width":0.5,"Height":0.5,"Left":0,"Top":0},"Confidence":80}]}]}`,
			want: []inventory.Detection{{Label: "Chair", Parents: []string{"Furniture"}, Confidence: 0.8, Box: inventory.Box{Width: 0.5, Height: 0.5}}},
		},
		{name: "no labels", body: `{"LabelModelVersion":"3.0"}`},
		{name: "labels null", body: `{"Labels":null}`},
		{name: "a scene label without a name", body: `{"Labels":[{"Confidence":80,"Instances":[]}]}`},
		{name: "an object without a name", body: `{"Labels":[{"Confidence":80,"Instances":[{"Confidence":80}]}]}`, err: true},
		{name: "no confidence at all", body: `{"Labels":[{"Name":"Chair","Instances":[{"BoundingBox":{"Width":0.5,"Height":0.5,"Left":0,"Top":0}}]}]}`, err: true},
		{name: "a confidence over 100", body: `{"Labels":[{"Name":"Chair","Confidence":80,"Instances":[{"Confidence":100.5}]}]}`, err: true},
		{name: "a negative label confidence", body: `{"Labels":[{"Name":"Chair","Confidence":-1,"Instances":[{"Confidence":80}]}]}`, err: true},
		{name: "a number where a name belongs", body: `{"Labels":[{"Name":7}]}`, err: true},
		// The SDK's deserializer reads an empty body or null as an
		// answer without labels.
		{name: "null", body: `null`},
		{name: "an array", body: `[]`, err: true},
		{name: "empty", body: ``},
		{name: "cut short", body: `{"Labels":[{"Name":"Chair"`, err: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseAnswer([]byte(tc.body), 55)
			if tc.err {
				if !isMalformed(err) {
					t.Errorf("parseAnswer = %v, %v; want errMalformed or a DeserializationError", got, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("parseAnswer: %v", err)
			}
			if !slices.EqualFunc(got, tc.want, equalDetection) {
				t.Errorf("parseAnswer = %+v; want %+v", got, tc.want)
			}
		})
	}
}

// Detections of one label do not share their Parents.
func TestParentsAreCopied(t *testing.T) {
	body, _ := os.ReadFile("testdata/composed-living-room.json")
	found, err := parseAnswer(body, 55)
	if err != nil {
		t.Fatal(err)
	}
	found[0].Parents[0] = "changed"
	if found[1].Label != "Chair" || found[1].Parents[0] != "Furniture" {
		t.Errorf("second chair's parents %q; want [Furniture]", found[1].Parents)
	}
}

func BenchmarkParseAnswer(b *testing.B) {
	body, err := os.ReadFile("testdata/aws-cli-street.json")
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		if _, err := parseAnswer(body, 55); err != nil {
			b.Fatal(err)
		}
	}
}
