package auth

import "time"

// RateLimit is the number of requests a key may make per fixed, clock-aligned
// minute window.
const RateLimit = 120

// Window returns the index of the minute window containing t.
func Window(t time.Time) int64 { return t.Unix() / 60 }

// WindowReset returns the epoch second at which window w ends.
func WindowReset(w int64) int64 { return (w + 1) * 60 }

// Usage is the outcome of counting a request against its key's limit.
type Usage struct {
	Limit     int
	Remaining int
	Reset     int64 // epoch second the window ends
	Admitted  bool
	// Period names the window's length for messages: "" (a minute, the
	// API's) or "hour" (a video link's opens).
	Period string
}

// RetryAfter returns whole seconds until the window resets, at least 1.
func (u Usage) RetryAfter(now time.Time) int64 {
	d := u.Reset - now.Unix()
	if d < 1 {
		d = 1
	}
	return d
}
