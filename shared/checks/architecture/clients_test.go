package architecture

import (
	"slices"
	"strings"
	"testing"

	"github.com/moveleads/partnerapi/shared/spec/manifest"
)

// TestAWSClientsLinkedWhereGranted: a function links an AWS service's SDK
// client exactly when its manifest entry grants it that service. Every
// package a binary imports is initialised at its cold start, used or not,
// and each client's endpoint table costs 0.1-0.2 ms of package init
// (GODEBUG=inittrace=1), so a builder package that links a client its
// function never calls shows up here before it shows up in make bench.
func TestAWSClientsLinkedWhereGranted(t *testing.T) {
	const sdk = "github.com/aws/aws-sdk-go-v2/service/"
	granted := map[string]func(manifest.Function) bool{
		"s3":          func(f manifest.Function) bool { return len(f.Bucket.Read)+len(f.Bucket.Write) > 0 },
		"rekognition": func(f manifest.Function) bool { return f.Detect },
		"sqs":         func(f manifest.Function) bool { return len(f.SendsTo) > 0 },
	}
	// Known exception, outside issue 24's functions: shared/wire/hookwiring
	// builds the three webhook functions, so the retrier, which attempts
	// deliveries itself and sends to no queue, links SQS with the others.
	exempt := map[string]bool{"webhook-retrier sqs": true}
	pkgs := listPackages(t)
	for _, f := range manifest.Functions {
		p, ok := pkgs["functions/"+f.Slug]
		if !ok {
			t.Errorf("function %s has no package functions/%s", f.Slug, f.Slug)
			continue
		}
		for service, grant := range granted {
			links := slices.Contains(p.Deps, sdk+service)
			if want := grant(f); links != want && !(links && exempt[f.Slug+" "+service]) {
				t.Errorf("%s links %s%s: %v; want %v (its manifest entry's grant)", f.Slug, sdk, service, links, want)
			}
		}
	}
	for service := range granted {
		if !slices.ContainsFunc(manifest.Functions, func(f manifest.Function) bool { return granted[service](f) }) {
			t.Errorf("no function is granted %s; the check checks nothing", strings.TrimPrefix(service, sdk))
		}
	}
}
