package main

import (
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/moveleads/partnerapi/shared/apigw"
	"github.com/moveleads/partnerapi/shared/awsenv"
	"github.com/moveleads/partnerapi/shared/catalog"
	"github.com/moveleads/partnerapi/shared/manifest"
	"github.com/moveleads/partnerapi/shared/s3event"
	"github.com/moveleads/partnerapi/shared/wiring/s3wiring"
)

// notFoundSlug is the $default function's slug (functions/route-not-found).
const notFoundSlug = "route-not-found"

// processors maps the slug of every S3-triggered function to the
// processor builder its main hands to s3event.Start. A test checks it
// covers the manifest.
func processors() map[string]func(*awsenv.Env) (s3event.Processor, error) {
	return map[string]func(*awsenv.Env) (s3event.Processor, error){
		"clip-processor": s3wiring.ClipProcessor,
	}
}

// buildHandler returns the handler of the function slug, built as its main
// builds it: apigw.Build(awsenv.Load, catalog.<Builder>) for a partner
// route's function, apigw.NotFound for route-not-found,
// s3event.Build(awsenv.Load, slug, <processor>) for an S3-triggered
// function. The function's log lines, which its main writes to stdout for
// CloudWatch, go to stderr here, so that stdout holds only the response.
// It fails for a slug that is not a function of the manifest, for a
// function whose trigger invoke cannot run, and when the wiring fails (for
// example TABLE_NAME or CLIP_BUCKET unset).
func buildHandler(slug string) (any, error) {
	f, ok := manifest.BySlug(slug)
	if !ok {
		return nil, fmt.Errorf("no function %q in the manifest (functions: %s)", slug, strings.Join(runnable(), ", "))
	}
	// awsenv.JSONLog binds the logger to os.Stdout when it is built.
	stdout := os.Stdout
	os.Stdout = os.Stderr
	defer func() { os.Stdout = stdout }()
	if slug == notFoundSlug {
		return apigw.NotFound(awsenv.JSONLog()), nil
	}
	if f.S3 != nil {
		p, ok := processors()[slug]
		if !ok {
			return nil, fmt.Errorf("S3-triggered function %q has no processor in scripts/invoke (functions: %s)", slug, strings.Join(runnable(), ", "))
		}
		h, err := s3event.Build(awsenv.Load, slug, p)
		if err != nil {
			return nil, err
		}
		return h, nil
	}
	build, ok := catalog.Builders()[slug]
	if !ok {
		return nil, fmt.Errorf("function %q is started by %s, which invoke cannot run (functions: %s)", slug, f.Trigger(), strings.Join(runnable(), ", "))
	}
	return apigw.Build(awsenv.Load, build)
}

// runnable lists the functions invoke can run, sorted.
func runnable() []string {
	out := []string{notFoundSlug}
	for slug := range catalog.Builders() {
		out = append(out, slug)
	}
	for slug := range processors() {
		out = append(out, slug)
	}
	slices.Sort(out)
	return out
}
