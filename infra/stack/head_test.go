package stack

import (
	"testing"

	"github.com/moveleads/partnerapi/shared/spec/manifest"
)

// TestPagesHaveHEADRoutes: API Gateway routes HEAD of each page to the
// page's function (an HTTP API matches methods exactly; without these
// routes HEAD fell to $default, 405), and HEAD of a JSON route stays
// unrouted.
func TestPagesHaveHEADRoutes(t *testing.T) {
	s := devStack(t)
	fns := s.functionIDs(t)
	targets := s.routeTargets(t)
	for key, op := range map[string]manifest.Operation{
		"HEAD /v1-capture/{token}": manifest.CapturePage,
		"HEAD /v1-video/{token}":   manifest.VideoPage,
		"HEAD /v1-quote/{token}":   manifest.QuotePage,
	} {
		want := fns[manifest.FunctionOf(op).Slug]
		if got, ok := targets[key]; !ok || got != want || want == "" {
			t.Errorf("route %q invokes %q (present %v); want the function of %s, %q", key, got, ok, op, want)
		}
	}
	if _, ok := targets["HEAD /v1/leads"]; ok {
		t.Error(`route "HEAD /v1/leads" exists; only pages answer HEAD`)
	}
}
