package rekognition

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/moveleads/partnerapi/shared/awsjson"
	"github.com/moveleads/partnerapi/shared/inventory"
)

func TestThrottlingIsRetriedWithBackoff(t *testing.T) {
	f := newFake(t, func(n int, _ received) reply {
		if n <= 3 {
			return awsError(http.StatusBadRequest, "ProvisionedThroughputExceededException", "Provisioned rate exceeded")
		}
		return fixture(t, "composed-living-room.json")
	})
	var waits []time.Duration
	o := Options{Retry: awsjson.Retry{BaseDelay: 100 * time.Millisecond, MaxDelay: 300 * time.Millisecond}}
	top := func(n int64) int64 { return n - 1 } // the top of each range
	d := newDetectorClock(t, f, o, &waits, awsjson.Clock{Jitter: top})
	found, err := d.Detect(context.Background(), jpegOf("living room"))
	if err != nil {
		t.Fatalf("Detect: %v", err)
	}
	if len(found) != 5 || f.count() != 4 {
		t.Errorf("%d detections after %d requests; want 5 after 4", len(found), f.count())
	}
	want := []time.Duration{100 * time.Millisecond, 200 * time.Millisecond, 300 * time.Millisecond}
	if !slices.Equal(waits, want) {
		t.Errorf("waits %v; want %v (exponential, capped)", waits, want)
	}
}

func TestRetriesEnd(t *testing.T) {
	t.Run("after MaxAttempts", func(t *testing.T) {
		f := newFake(t, func(int, received) reply {
			return awsError(http.StatusInternalServerError, "ThrottlingException", "Rate exceeded")
		})
		var waits []time.Duration
		d := newDetector(t, f, Options{Retry: awsjson.Retry{MaxAttempts: 4}}, &waits)
		_, err := d.Detect(context.Background(), jpegOf("x"))
		var re *awsjson.ResponseError
		if !errors.As(err, &re) || re.Code != "ThrottlingException" || re.Status != 500 {
			t.Fatalf("error %v; want the last ThrottlingException", err)
		}
		if errors.Is(err, inventory.ErrBadFrame) {
			t.Errorf("throttling is ErrBadFrame: %v", err)
		}
		if f.count() != 4 || len(waits) != 3 {
			t.Errorf("%d requests, %d waits; want 4, 3", f.count(), len(waits))
		}
		if !strings.Contains(err.Error(), "gave up after 4 attempts") || re.RequestID == "" {
			t.Errorf("error %q; want the attempts and the request id", err)
		}
	})
	t.Run("out of MaxElapsed", func(t *testing.T) {
		f := newFake(t, func(int, received) reply {
			return awsError(http.StatusInternalServerError, "InternalServerError", "")
		})
		o := Options{Retry: awsjson.Retry{MaxAttempts: 10, BaseDelay: 400 * time.Millisecond, MaxDelay: time.Hour, MaxElapsed: time.Second}}
		clock := time.Now()
		d := newDetectorClock(t, f, o, nil, awsjson.Clock{
			Now:    func() time.Time { return clock },
			Sleep:  func(_ context.Context, w time.Duration) error { clock = clock.Add(w); return nil },
			Jitter: func(n int64) int64 { return n - 1 },
		})
		_, err := d.Detect(context.Background(), jpegOf("x"))
		// Waits of 400 ms, then 800 ms would end at 1.2 s: two attempts.
		if f.count() != 2 || err == nil || !strings.Contains(err.Error(), "budget") {
			t.Errorf("%d requests, error %v; want 2 and the budget's error", f.count(), err)
		}
	})
}

// Each answer Rekognition may give, and what Detect makes of it.
func TestErrorAnswers(t *testing.T) {
	for _, tc := range []struct {
		name     string
		rep      reply
		code     string
		retried  bool
		badFrame bool
	}{
		{"throttling (500, per the API reference)", awsError(500, "ThrottlingException", "Rate exceeded"), "ThrottlingException", true, false},
		{"throttling as 400", awsError(400, "ThrottlingException", "Rate exceeded"), "ThrottlingException", true, false},
		{"provisioned throughput", awsError(400, "ProvisionedThroughputExceededException", ""), "ProvisionedThroughputExceededException", true, false},
		{"limit exceeded", awsError(400, "LimitExceededException", ""), "LimitExceededException", true, false},
		{"internal server error", awsError(500, "InternalServerError", "Internal server error"), "InternalServerError", true, false},
		{"namespaced __type, no header", reply{status: 400, body: []byte(`{"__type":"com.amazonaws.rekognition#ThrottlingException","message":"slow down"}`)}, "ThrottlingException", true, false},
		{"header with a suffix", reply{status: 400, errorType: "ThrottlingException:http://internal.amazon.com/coral/com.amazonaws.rekognition/", body: []byte(`{}`)}, "ThrottlingException", true, false},
		{"503 without a body", reply{status: 503}, "ServiceUnavailable", true, false},
		{"502 from a proxy", reply{status: 502, body: []byte("<html>Bad Gateway</html>")}, "BadGateway", true, false},
		{"invalid image format", awsError(400, "InvalidImageFormatException", "Request has invalid image format"), "InvalidImageFormatException", false, true},
		{"image too large", awsError(400, "ImageTooLargeException", "Image size is too large."), "ImageTooLargeException", false, true},
		{"invalid parameter (an image under 80 px)", awsError(400, "InvalidParameterException", "Request has Invalid Parameters"), "InvalidParameterException", false, true},
		{"access denied", awsError(400, "AccessDeniedException", "User is not authorized to perform: rekognition:DetectLabels"), "AccessDeniedException", false, false},
		{"unknown credentials", awsError(400, "UnrecognizedClientException", "The security token included in the request is invalid."), "UnrecognizedClientException", false, false},
		// The bad-image codes and AccessDeniedException are final
		// whatever their status.
		{"invalid image format as 500", awsError(500, "InvalidImageFormatException", ""), "InvalidImageFormatException", false, true},
		{"access denied as 503", awsError(503, "AccessDeniedException", ""), "AccessDeniedException", false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t, func(int, received) reply { return tc.rep })
			var waits []time.Duration
			d := newDetector(t, f, Options{Retry: awsjson.Retry{MaxAttempts: 3}}, &waits)
			_, err := d.Detect(context.Background(), jpegOf("x"))
			var re *awsjson.ResponseError
			if !errors.As(err, &re) || re.Code != tc.code || re.Status != tc.rep.status || re.Service != "Rekognition" {
				t.Fatalf("error %v; want a Rekognition ResponseError %d %s", err, tc.rep.status, tc.code)
			}
			wantRequests := 1
			if tc.retried {
				wantRequests = 3
			}
			if f.count() != wantRequests {
				t.Errorf("%d requests; want %d", f.count(), wantRequests)
			}
			if errors.Is(err, inventory.ErrBadFrame) != tc.badFrame {
				t.Errorf("errors.Is(%v, ErrBadFrame) = %v; want %v", err, !tc.badFrame, tc.badFrame)
			}
		})
	}
}

func TestNetworkFailuresAreRetried(t *testing.T) {
	t.Run("connection dropped", func(t *testing.T) {
		f := newFake(t, func(n int, _ received) reply {
			if n == 1 {
				return reply{hangup: true}
			}
			return fixture(t, "devguide-mobile-phone.json")
		})
		d := newDetector(t, f, Options{}, new([]time.Duration))
		found, err := d.Detect(context.Background(), jpegOf("x"))
		if err != nil || len(found) != 1 || f.count() != 2 {
			t.Errorf("%d detections, error %v after %d requests; want 1, nil, 2", len(found), err, f.count())
		}
	})
	t.Run("attempt timed out", func(t *testing.T) {
		hold := make(chan struct{})
		defer close(hold)
		f := newFake(t, func(n int, _ received) reply {
			if n == 1 {
				return reply{hold: hold}
			}
			return fixture(t, "devguide-mobile-phone.json")
		})
		d := newDetector(t, f, Options{Retry: awsjson.Retry{AttemptTimeout: 100 * time.Millisecond}}, new([]time.Duration))
		found, err := d.Detect(context.Background(), jpegOf("x"))
		if err != nil || len(found) != 1 || f.count() != 2 {
			t.Errorf("%d detections, error %v after %d requests; want 1, nil, 2", len(found), err, f.count())
		}
	})
}

func TestMalformedAnswerIsNotRetried(t *testing.T) {
	f := newFake(t, func(int, received) reply {
		return reply{status: 200, body: []byte(`{"Labels":[{"Name":"Chair","Confidence":180,"Instances":[{"Confidence":99}]}]}`)}
	})
	d := newDetector(t, f, Options{}, new([]time.Duration))
	_, err := d.Detect(context.Background(), jpegOf("x"))
	if !errors.Is(err, errMalformed) || f.count() != 1 {
		t.Errorf("error %v after %d requests; want errMalformed after 1", err, f.count())
	}
}
