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
)

// notFoundSlug is the $default function's slug (functions/route-not-found).
const notFoundSlug = "route-not-found"

// buildHandler returns the handler of the function slug, built as its main
// builds it: apigw.Build(awsenv.Load, catalog.<Builder>) for a partner
// route's function, apigw.NotFound for route-not-found. The function's log
// lines, which its main writes to stdout for CloudWatch, go to stderr here,
// so that stdout holds only the response. It fails for a slug that is not
// an HTTP function of the manifest and when the wiring fails (for example
// TABLE_NAME unset).
func buildHandler(slug string) (any, error) {
	if _, ok := manifest.BySlug(slug); !ok {
		return nil, fmt.Errorf("no function %q in the manifest (HTTP functions: %s)", slug, strings.Join(httpSlugs(), ", "))
	}
	// awsenv.JSONLog binds the logger to os.Stdout when it is built.
	stdout := os.Stdout
	os.Stdout = os.Stderr
	defer func() { os.Stdout = stdout }()
	if slug == notFoundSlug {
		return apigw.NotFound(awsenv.JSONLog()), nil
	}
	build, ok := catalog.Builders()[slug]
	if !ok {
		return nil, fmt.Errorf("function %q is not started by API Gateway (HTTP functions: %s)", slug, strings.Join(httpSlugs(), ", "))
	}
	return apigw.Build(awsenv.Load, build)
}

// httpSlugs lists the functions invoke can run, sorted.
func httpSlugs() []string {
	out := []string{notFoundSlug}
	for slug := range catalog.Builders() {
		out = append(out, slug)
	}
	slices.Sort(out)
	return out
}
