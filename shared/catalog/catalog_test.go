package catalog

import (
	"context"
	"testing"

	"github.com/moveleads/partnerapi/shared/apigw"
	"github.com/moveleads/partnerapi/shared/awsenv"
	"github.com/moveleads/partnerapi/shared/manifest"
)

func noSecrets(string) func(context.Context) ([]byte, error) { return nil }

func TestEveryRouteHasOneEndpoint(t *testing.T) {
	seen := map[manifest.Operation]int{}
	for _, ep := range Endpoints(awsenv.ForTools(nil, nil, noSecrets)) {
		seen[ep.Operation]++
	}
	for _, r := range manifest.PartnerRoutes() {
		if n := seen[r.Operation]; n != 1 {
			t.Errorf("route %s has %d endpoints; want 1", r.Operation, n)
		}
		delete(seen, r.Operation)
	}
	for op := range seen {
		t.Errorf("endpoint %s has no route in the manifest", op)
	}
}

// TestBuildersMatchTheManifest checks that each function with partner
// routes has a builder that serves its route, and that the secrets each
// builder reads are exactly those the manifest lists for the function (the
// check apigw.Start makes at init).
func TestBuildersMatchTheManifest(t *testing.T) {
	for _, f := range manifest.Functions {
		if len(f.HTTP) == 0 || f.HTTP[0].IsDefault() {
			continue
		}
		t.Run(f.Slug, func(t *testing.T) {
			b, ok := Builders()[f.Slug]
			if !ok {
				t.Fatalf("no builder for function %s", f.Slug)
			}
			env := awsenv.ForTools(nil, nil, noSecrets)
			h, err := apigw.Build(func() (*awsenv.Env, error) { return env, nil }, b)
			if err != nil || h == nil {
				t.Fatalf("build %s: %v", f.Slug, err)
			}
			if got := b(awsenv.ForTools(nil, nil, noSecrets)).Route().Slug; got != f.Slug {
				t.Errorf("builder serves the route of %s; want %s", got, f.Slug)
			}
		})
	}
	if len(Builders()) != len(manifest.PartnerRoutes()) {
		t.Errorf("%d builders for %d partner routes", len(Builders()), len(manifest.PartnerRoutes()))
	}
}
