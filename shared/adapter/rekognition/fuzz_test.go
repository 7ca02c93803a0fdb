package rekognition

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzParseAnswer: any 200 answer, read by the SDK's deserializer and
// mapped as Detect maps it, either fails as malformed (the SDK's
// DeserializationError or errMalformed) or gives detections inside the
// Detection contract: a label, a confidence from
// the threshold to 1, and a box of some area inside the frame.
func FuzzParseAnswer(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.json")
	for _, name := range files {
		body, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(body, 55.0)
	}
	f.Add([]byte(`{"Labels":[{"Name":"Couch","Confidence":96,"Instances":[{"BoundingBox":{"Width":1e308,"Height":1e308,"Left":1e308,"Top":-1e308},"Confidence":96}]}]}`), 0.0)
	f.Add([]byte(`{"Labels":[{"Name":"A","Instances":[{"BoundingBox":{"Width":0,"Height":0,"Left":0,"Top":0},"Confidence":0}]}]}`), 0.0)
	f.Fuzz(func(t *testing.T, body []byte, minConfidence float64) {
		found, err := parseAnswer(body, minConfidence)
		if err != nil {
			if !isMalformed(err) {
				t.Fatalf("parseAnswer error %v; want errMalformed or a DeserializationError", err)
			}
			return
		}
		const slack = 1e-12
		for _, d := range found {
			b := d.Box
			switch {
			case d.Label == "":
				t.Fatalf("detection without a label: %+v", d)
			case !(d.Confidence >= 0 && d.Confidence <= 1) || d.Confidence*100 < minConfidence-slack:
				t.Fatalf("confidence %v outside [%v, 1]", d.Confidence, minConfidence/100)
			case !(b.Left >= 0 && b.Top >= 0 && b.Width > 0 && b.Height > 0):
				t.Fatalf("box %+v outside the frame or without area", b)
			case b.Left+b.Width > 1+slack || b.Top+b.Height > 1+slack:
				t.Fatalf("box %+v reaches past the frame", b)
			}
			for _, p := range d.Parents {
				if p == "" {
					t.Fatalf("empty parent in %+v", d)
				}
			}
		}
	})
}
