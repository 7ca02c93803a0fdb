package detectlocal_test

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/moveleads/partnerapi/shared/domain/inventory"
	"github.com/moveleads/partnerapi/shared/local/detectlocal"
)

// Start a sidecar, detect the objects in one frame, stop it.
func ExampleStart() {
	ctx := context.Background()
	srv, err := detectlocal.Start(ctx)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return
	}
	defer srv.Stop()

	var detector inventory.Detector = srv.Client()
	frame, err := os.ReadFile("testdata/living-room.jpg")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return
	}
	dets, err := detector.Detect(ctx, frame)
	if errors.Is(err, inventory.ErrBadFrame) {
		fmt.Fprintln(os.Stderr, "skip this frame:", err)
		return
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "detector failed, retry later:", err)
		return
	}
	found := map[string]bool{}
	for _, d := range dets {
		found[d.Label] = found[d.Label] || d.Confidence >= 0.4
	}
	fmt.Println("couch:", found["couch"], "tv:", found["tv"])
	// Output: couch: true tv: true
}
