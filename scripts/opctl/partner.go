package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/moveleads/partnerapi/shared/domain/errcode"
	"github.com/moveleads/partnerapi/shared/domain/estimate"
	"github.com/moveleads/partnerapi/shared/domain/partner"
)

// maxNameLen is the longest partner name accepted, in characters.
const maxNameLen = 200

// partnerCreated is the output of partner create.
type partnerCreated struct {
	PartnerID string `json:"partner_id"`
}

func parsePartnerCreate(fs *flag.FlagSet, args []string) (action, error) {
	name := fs.String("name", "", "the partner's name (required, at most 200 characters)")
	currency := fs.String("currency", "usd", "three-letter ISO 4217 code of the rate card")
	if err := parseNoArgs(fs, args); err != nil {
		return nil, err
	}
	n, err := partnerName(*name)
	if err != nil {
		return nil, usagef(fs, "--name %v", err)
	}
	rc := estimate.DefaultRateCard(*currency)
	if err := rc.Validate(); err != nil {
		return nil, usagef(fs, "--currency: %v", err)
	}
	return func(ctx context.Context, s target, now time.Time) (any, error) {
		p := partner.Partner{ID: newPartnerID(), Name: n, RateCard: rc, CreatedAt: now}
		if err := s.CreatePartner(ctx, p); err != nil {
			return nil, err
		}
		return partnerCreated{PartnerID: p.ID}, nil
	}, nil
}

// partnerName returns s trimmed, or why it is not an acceptable name.
func partnerName(s string) (string, error) {
	s = strings.TrimSpace(s)
	switch {
	case s == "":
		return "", errors.New("is required and must not be blank")
	case !utf8.ValidString(s):
		return "", errors.New("must be valid UTF-8")
	case utf8.RuneCountInString(s) > maxNameLen:
		return "", fmt.Errorf("must be at most %d characters; got %d", maxNameLen, utf8.RuneCountInString(s))
	case strings.ContainsFunc(s, unicode.IsControl):
		return "", errors.New("must not contain control characters")
	}
	return s, nil
}

// newPartnerID returns "ptn_" and 16 random lowercase hex digits.
func newPartnerID() string {
	b := make([]byte, 8)
	// crypto/rand.Read never returns an error (it crashes the program
	// instead when the system's generator fails).
	_, _ = rand.Read(b)
	return "ptn_" + hex.EncodeToString(b)
}

// rateFlags are the rate-card fields that partner rate-card can set, by
// flag name.
type rateFlags struct {
	hourly, travel, minimum *int64
	crew                    *int
	set                     map[string]bool
}

// apply returns rc with the fields whose flags were given replaced.
func (f rateFlags) apply(rc estimate.RateCard) estimate.RateCard {
	if f.set["hourly-cents"] {
		rc.HourlyCents = *f.hourly
	}
	if f.set["crew"] {
		rc.Crew = *f.crew
	}
	if f.set["travel-cents-per-mile"] {
		rc.TravelCentsPerMile = *f.travel
	}
	if f.set["minimum-cents"] {
		rc.MinimumCents = *f.minimum
	}
	return rc
}

func parseRateCard(fs *flag.FlagSet, args []string) (action, error) {
	id := fs.String("partner", "", "partner id (required)")
	f := rateFlags{
		hourly:  fs.Int64("hourly-cents", 0, "minor units per mover per hour"),
		crew:    fs.Int("crew", 0, "base crew size (movers)"),
		travel:  fs.Int64("travel-cents-per-mile", 0, "minor units per road mile"),
		minimum: fs.Int64("minimum-cents", 0, "minimum price in minor units"),
	}
	if err := parseNoArgs(fs, args); err != nil {
		return nil, err
	}
	partnerID, err := requiredID(fs, "partner", *id)
	if err != nil {
		return nil, err
	}
	f.set = setFlags(fs)
	delete(f.set, "partner")
	// Check the flags before reading anything, against a card that is
	// valid in every other field, so that bad values are a usage error;
	// Validate judges each field on its own.
	if err := f.apply(estimate.DefaultRateCard("usd")).Validate(); err != nil {
		return nil, usagef(fs, "invalid rate card: %v", err)
	}
	return func(ctx context.Context, s target, _ time.Time) (any, error) {
		p, err := s.GetPartner(ctx, partnerID)
		if err != nil {
			return nil, partnerErr(partnerID, err)
		}
		if len(f.set) == 0 {
			return p.RateCard, nil
		}
		rc := f.apply(p.RateCard)
		if err := rc.Validate(); err != nil {
			return nil, fmt.Errorf("rate card of partner %s would be invalid: %w", partnerID, err)
		}
		if err := s.SetRateCard(ctx, partnerID, rc); err != nil {
			return nil, partnerErr(partnerID, err)
		}
		return rc, nil
	}, nil
}

// partnerErr turns a not_found error about partner id into the operator's
// message and returns any other error as it is.
func partnerErr(id string, err error) error {
	if e := errcode.As(err); e != nil && e.Code == errcode.NotFound {
		return fmt.Errorf("partner %s not found", id)
	}
	return err
}
