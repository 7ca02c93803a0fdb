package webhook

import (
	"time"
)

// Schedule is when an event's delivery to an endpoint is attempted, as
// the Standard Webhooks specification recommends: at once, then each
// delay after the previous failure. An attempt is a failure when the
// answer is not 2xx, or there is none within AttemptTimeout (a refused
// connection, a timeout, a refused address).
var Schedule = []time.Duration{
	0,
	5 * time.Second,
	5 * time.Minute,
	30 * time.Minute,
	2 * time.Hour,
	5 * time.Hour,
	10 * time.Hour,
	14 * time.Hour,
	20 * time.Hour,
	24 * time.Hour,
}

// Attempts is how many attempts an event gets at most.
var Attempts = len(Schedule)

// AttemptTimeout bounds one attempt: connect, send and read the answer's
// status and first KiB.
const AttemptTimeout = 10 * time.Second

// Jitter is the largest part of a delay added or taken at random (10%), so
// that a failing endpoint's retries spread out rather than arrive in
// bursts.
const Jitter = 0.1

// NextAttempt returns when attempt number next (1-based: the second
// attempt is next=2) is due after the previous one failed at failedAt,
// and false when next is past the schedule: the delivery has failed for
// good. u is a random number in [0, 1) (jitter: the delay is scaled by
// 1-Jitter to 1+Jitter).
func NextAttempt(next int, failedAt time.Time, u float64) (time.Time, bool) {
	if next < 2 || next > len(Schedule) {
		return time.Time{}, false
	}
	d := Schedule[next-1]
	scale := 1 - Jitter + 2*Jitter*u
	return failedAt.Add(time.Duration(float64(d) * scale)), true
}

// DisableAfter is how long an endpoint may fail every attempt before it is
// disabled (an operator re-enables it).
const DisableAfter = 5 * 24 * time.Hour

// ShouldDisable reports whether an endpoint whose attempts have all failed
// since failingSince (zero: its last attempt succeeded) is to be disabled
// at now.
func ShouldDisable(failingSince, now time.Time) bool {
	return !failingSince.IsZero() && now.Sub(failingSince) >= DisableAfter
}
