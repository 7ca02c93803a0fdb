package main

import (
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/moveleads/partnerapi/shared/edge/apigw"
	"github.com/moveleads/partnerapi/shared/edge/queueevent"
	"github.com/moveleads/partnerapi/shared/edge/s3event"
	"github.com/moveleads/partnerapi/shared/edge/schedule"
	"github.com/moveleads/partnerapi/shared/edge/streamevent"
	"github.com/moveleads/partnerapi/shared/spec/manifest"
	"github.com/moveleads/partnerapi/shared/wire/awsenv"
	"github.com/moveleads/partnerapi/shared/wire/catalog"
	"github.com/moveleads/partnerapi/shared/wire/mcpwiring"
)

// notFoundSlug is the $default function's slug (functions/route-not-found).
const notFoundSlug = "route-not-found"

// buildHandler returns the handler of the function slug, built as its main
// builds it, with the builder package catalog lists for it:
// apigw.Build(awsenv.Load, catalog.Builders()[slug]) for a partner
// route's function, apigw.NotFound for route-not-found,
// mcpwiring.Build(awsenv.Load) for the agent tool server
// (manifest.AgentToolsSlug),
// s3event.Build(awsenv.Load, slug, catalog.S3Processors()[slug]) for an
// S3-triggered function, streamevent.Build(awsenv.Load, slug,
// catalog.StreamProcessors()[slug]) for a stream-triggered one,
// queueevent.Build(awsenv.Load, slug, catalog.QueueProcessors()[slug])
// for a queue-triggered one and
// schedule.Build(awsenv.Load, slug, catalog.Jobs()[slug]) for a
// schedule-triggered one. The function's log lines (and a scheduled job's
// metric lines), which its main writes to stdout for CloudWatch, go to
// stderr here, so that stdout holds only the response. It fails for a
// slug that is not a function of the manifest, for a function whose
// trigger invoke cannot run or that catalog does not list, and when the
// wiring fails (for example TABLE_NAME or CLIP_BUCKET unset).
func buildHandler(slug string) (any, error) {
	f, ok := manifest.BySlug(slug)
	if !ok {
		return nil, fmt.Errorf("no function %q in the manifest (functions: %s)", slug, strings.Join(runnable(), ", "))
	}
	// awsenv.JSONLog binds the logger, and schedule.New the metrics, to
	// os.Stdout when they are built.
	stdout := os.Stdout
	os.Stdout = os.Stderr
	defer func() { os.Stdout = stdout }()
	missing := func() error {
		return fmt.Errorf("%s-triggered function %q has no builder in shared/wire/catalog (functions: %s)", f.Trigger(), slug, strings.Join(runnable(), ", "))
	}
	switch {
	case slug == notFoundSlug:
		return apigw.NotFound(awsenv.JSONLog()), nil
	case slug == manifest.AgentToolsSlug:
		return orNil(mcpwiring.Build(awsenv.Load))
	case f.S3 != nil:
		p, ok := catalog.S3Processors()[slug]
		if !ok {
			return nil, missing()
		}
		return orNil(s3event.Build(awsenv.Load, slug, p))
	case f.Stream != nil:
		p, ok := catalog.StreamProcessors()[slug]
		if !ok {
			return nil, missing()
		}
		return orNil(streamevent.Build(awsenv.Load, slug, p))
	case f.Queue != nil:
		p, ok := catalog.QueueProcessors()[slug]
		if !ok {
			return nil, missing()
		}
		return orNil(queueevent.Build(awsenv.Load, slug, p))
	case f.Schedule != nil:
		j, ok := catalog.Jobs()[slug]
		if !ok {
			return nil, missing()
		}
		return orNil(schedule.Build(awsenv.Load, slug, j))
	}
	build, ok := catalog.Builders()[slug]
	if !ok {
		return nil, fmt.Errorf("function %q is started by %s, which invoke cannot run (functions: %s)", slug, f.Trigger(), strings.Join(runnable(), ", "))
	}
	return apigw.Build(awsenv.Load, build)
}

// orNil returns h as an any, or a nil any with err: a typed nil handler
// in an interface would not be nil.
func orNil[H any](h H, err error) (any, error) {
	if err != nil {
		return nil, err
	}
	return h, nil
}

// runnable lists the functions invoke can run, sorted.
func runnable() []string {
	out := []string{notFoundSlug, manifest.AgentToolsSlug}
	for slug := range catalog.Builders() {
		out = append(out, slug)
	}
	for slug := range catalog.S3Processors() {
		out = append(out, slug)
	}
	for slug := range catalog.StreamProcessors() {
		out = append(out, slug)
	}
	for slug := range catalog.QueueProcessors() {
		out = append(out, slug)
	}
	for slug := range catalog.Jobs() {
		out = append(out, slug)
	}
	slices.Sort(out)
	return out
}
