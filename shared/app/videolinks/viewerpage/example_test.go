package viewerpage_test

import (
	"fmt"
	"time"

	"github.com/moveleads/partnerapi/shared/app/videolinks/viewerpage"
)

// The viewer function hands Render the clips it presigned, in recording
// order; the answer is sent as it is.
func ExampleRender() {
	doc := viewerpage.Render(viewerpage.Page{
		Company: "Demo Movers",
		Clips: []viewerpage.Clip{{
			Room:        "Living room",
			Duration:    65 * time.Second,
			URL:         "https://bucket.s3.us-east-1.amazonaws.com/clips/1.mp4?X-Amz-Signature=…",
			ContentType: "video/mp4",
		}},
		LinkExpiresAt: time.Date(2026, 11, 30, 10, 15, 0, 0, time.UTC),
		AddressTTL:    10 * time.Minute,
		MediaOrigin:   "https://bucket.s3.us-east-1.amazonaws.com",
	})
	fmt.Println(doc.Status, doc.Header["Content-Type"], doc.Header["Cache-Control"])
	// Output: 200 text/html; charset=utf-8 no-store
}

// A link opened too often gets a 429 page that says when to try again,
// in minutes, and a Retry-After header in seconds.
func ExampleErrorPage() {
	doc := viewerpage.ErrorPage(429, 17*time.Minute+10*time.Second)
	fmt.Println(doc.Status, doc.Header["Retry-After"])
	// Output: 429 1030
}
