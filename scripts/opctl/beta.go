package main

import (
	"context"
	"errors"
	"flag"
	"slices"
	"strings"
	"time"

	"github.com/moveleads/partnerapi/shared/app/pipeline"
	"github.com/moveleads/partnerapi/shared/domain/partner"
)

// partnerBeta is the output of partner beta: the partner's beta features
// after the change, in the order of partner.Features (names the store
// holds that this version does not know follow, sorted).
type partnerBeta struct {
	PartnerID string            `json:"partner_id"`
	Beta      []partner.Feature `json:"beta"`
	// Note says when the change reaches the partner's requests: the
	// functions cache partner settings (pipeline.SettingsTTL).
	Note string `json:"note"`
}

// betaDelayNote is partner beta's note.
var betaDelayNote = "Stored now; it takes effect within " + pipeline.SettingsTTL.String() +
	": each function instance keeps a partner's settings that long, so until then some requests may still see the previous beta features."

func parsePartnerBeta(fs *flag.FlagSet, args []string) (action, error) {
	id := fs.String("partner", "", "partner id (required)")
	enableList := fs.String("enable", "", "comma-separated beta features to turn on")
	disableList := fs.String("disable", "", "comma-separated beta features to turn off")
	if err := parseNoArgs(fs, args); err != nil {
		return nil, err
	}
	partnerID, err := requiredID(fs, "partner", *id)
	if err != nil {
		return nil, err
	}
	set := setFlags(fs)
	var enable, disable []partner.Feature
	switch {
	case set["enable"] && set["disable"]:
		return nil, usagef(fs, "give --enable or --disable, not both")
	case set["enable"]:
		if enable, err = parseFeatures(*enableList); err != nil {
			return nil, usagef(fs, "--enable: %v", err)
		}
	case set["disable"]:
		if disable, err = parseFeatures(*disableList); err != nil {
			return nil, usagef(fs, "--disable: %v", err)
		}
	default:
		return nil, usagef(fs, "give --enable FEATURE,... or --disable FEATURE,...")
	}
	return func(ctx context.Context, s target, _ time.Time) (any, error) {
		p, err := s.SetBeta(ctx, partnerID, enable, disable)
		if err != nil {
			return nil, partnerErr(partnerID, err)
		}
		return partnerBeta{PartnerID: p.ID, Beta: orderFeatures(p.Beta), Note: betaDelayNote}, nil
	}, nil
}

// parseFeatures reads a comma-separated list of beta features with
// partner.ParseFeature, ignoring blanks and repeats. It fails on an
// unknown feature and on a list that names none.
func parseFeatures(list string) ([]partner.Feature, error) {
	var out []partner.Feature
	for part := range strings.SplitSeq(list, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		f, err := partner.ParseFeature(part)
		if err != nil {
			return nil, err
		}
		if !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	if len(out) == 0 {
		return nil, errors.New("name at least one feature")
	}
	return out, nil
}

// orderFeatures returns fs in the order of partner.Features, then any
// unknown names sorted; never nil, so the output shows [] for none.
func orderFeatures(fs []partner.Feature) []partner.Feature {
	out := []partner.Feature{}
	for _, f := range partner.Features {
		if slices.Contains(fs, f) {
			out = append(out, f)
		}
	}
	var unknown []partner.Feature
	for _, f := range fs {
		if !slices.Contains(partner.Features, f) && !slices.Contains(unknown, f) {
			unknown = append(unknown, f)
		}
	}
	slices.Sort(unknown)
	return append(out, unknown...)
}
