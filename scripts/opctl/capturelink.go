package main

import (
	"context"
	"flag"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/moveleads/partnerapi/shared/domain/survey"
)

// captureLink is the output of partner capture-link: the lifetime of the
// partner's capture links (the default when none is set), as a Go
// duration and in seconds.
type captureLink struct {
	PartnerID string `json:"partner_id"`
	Lifetime  string `json:"capture_link_lifetime"`
	Seconds   int64  `json:"capture_link_lifetime_seconds"`
}

func newCaptureLink(partnerID string, d time.Duration) captureLink {
	return captureLink{PartnerID: partnerID, Lifetime: d.String(), Seconds: int64(d / time.Second)}
}

func parseCaptureLink(fs *flag.FlagSet, args []string) (action, error) {
	id := fs.String("partner", "", "partner id (required)")
	lifetime := fs.String("lifetime", "", "how long new capture links stay valid: a Go duration (72h, 90m) or days (14d)")
	reset := fs.Bool("default", false, "reset to the default lifetime")
	if err := parseNoArgs(fs, args); err != nil {
		return nil, err
	}
	partnerID, err := requiredID(fs, "partner", *id)
	if err != nil {
		return nil, err
	}
	set := setFlags(fs)
	if set["lifetime"] && *reset {
		return nil, usagef(fs, "give --lifetime or --default, not both")
	}
	if !set["lifetime"] && !*reset {
		return func(ctx context.Context, s target, _ time.Time) (any, error) {
			p, err := s.GetPartner(ctx, partnerID)
			if err != nil {
				return nil, partnerErr(partnerID, err)
			}
			return newCaptureLink(p.ID, p.CaptureLinkTTL()), nil
		}, nil
	}
	var d time.Duration // 0: the default
	if set["lifetime"] {
		if d, err = parseLifetime(*lifetime); err != nil {
			return nil, usagef(fs, "--lifetime: %v", err)
		}
	}
	return func(ctx context.Context, s target, _ time.Time) (any, error) {
		if err := s.SetCaptureLinkLifetime(ctx, partnerID, d); err != nil {
			return nil, partnerErr(partnerID, err)
		}
		if d == 0 {
			d = survey.DefaultTokenLifetime
		}
		return newCaptureLink(partnerID, d), nil
	}, nil
}

// day is the unit of the "Nd" form of a lifetime.
const day = 24 * time.Hour

// parseLifetime reads a capture link lifetime: a Go duration ("72h",
// "90m", "1h30m"), whole days ("14d"), or days followed by a Go duration
// ("1d12h"). It fails, naming the bounds, on anything else, on a lifetime
// outside survey.CheckTokenLifetime's bounds and on a fraction of a
// second (the store keeps whole seconds).
func parseLifetime(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	bounds := fmt.Sprintf("between %s and %s", survey.MinTokenLifetime, survey.MaxTokenLifetime)
	malformed := fmt.Errorf("%q is not a lifetime; give a Go duration (72h, 90m) or days (14d) %s", s, bounds)
	var d time.Duration
	rest, withDays := s, false
	// No unit of a Go duration contains a 'd'.
	if i := strings.IndexByte(s, 'd'); i >= 0 {
		days, err := strconv.ParseUint(s[:i], 10, 64)
		if err != nil {
			return 0, malformed
		}
		if days > uint64(survey.MaxTokenLifetime/day) {
			return 0, fmt.Errorf("capture link lifetime must be %s; got %s", bounds, s)
		}
		d, rest, withDays = time.Duration(days)*day, s[i+1:], true
	}
	if rest != "" || !withDays {
		more, err := time.ParseDuration(rest)
		// After days only a plain positive duration may follow ("1d12h").
		if err != nil || (withDays && strings.ContainsAny(rest[:1], "+-")) {
			return 0, malformed
		}
		if more > survey.MaxTokenLifetime { // also keeps days + more from overflowing
			return 0, survey.CheckTokenLifetime(more)
		}
		d += more
	}
	if err := survey.CheckTokenLifetime(d); err != nil {
		return 0, err
	}
	if d%time.Second != 0 {
		return 0, fmt.Errorf("%s is not a whole number of seconds; give a lifetime %s", d, bounds)
	}
	return d, nil
}
