package clip_test

import (
	"errors"
	"fmt"
	"os"

	"github.com/moveleads/partnerapi/shared/domain/clip"
)

// A clip recorded by Chromium's MediaRecorder: its WebM has no Duration,
// so Probe finds it from the last cluster. An *os.File is an io.ReaderAt;
// the clip processor passes one made of S3 ranged GETs.
func ExampleProbe() {
	f, err := os.Open("testdata/mediarecorder-vp8-opus.webm")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		fmt.Println(err)
		return
	}
	info, err := clip.Probe(f, st.Size())
	if err != nil {
		fmt.Println("rejected:", clip.Rejected(err), err)
		return
	}
	fmt.Println(info.Container, info.Codec, info.Width, info.Height, info.Duration)
	fmt.Println(clip.Check(info, clip.DefaultRules))
	// Output:
	// webm vp8 320 240 1.98s
	// <nil>
}

func ExampleCheck() {
	long := clip.Info{Container: clip.ContainerMP4, Codec: clip.CodecH264, Width: 1920, Height: 1080, Duration: 754e9}
	err := clip.Check(long, clip.DefaultRules)
	fmt.Println(errors.Is(err, clip.ErrTooLong), clip.Rejected(err))
	fmt.Println(err)
	// Output:
	// true true
	// clip: too long: 12m34s is over 10m0s
}
