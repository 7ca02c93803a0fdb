package detectlocal

import (
	"context"
	"testing"
)

// BenchmarkDetect is one 640x480 frame through the sidecar: HTTP, JPEG
// decoding and CenterNet.
// Run: go test -run '^$' -bench Detect -benchtime 10x ./shared/local/detectlocal/
func BenchmarkDetect(b *testing.B) {
	if testing.Short() {
		b.Skip("runs the detector sidecar (Node.js, CenterNet)")
	}
	c := testServer.Client()
	f := frame(b, "living-room.jpg")
	for b.Loop() {
		if _, err := c.Detect(context.Background(), f); err != nil {
			b.Fatal(err)
		}
	}
}
