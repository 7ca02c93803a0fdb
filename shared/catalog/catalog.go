// Package catalog puts every endpoint of every feature behind one pipeline,
// for the tools that serve them all in one process: `make dev`'s local
// gateway, scripts/invoke, the integration tests and the benchmarks (and,
// later, the agent tool server). Deployed functions never import it: each
// main serves one endpoint, so its binary links only that endpoint's code.
package catalog

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/moveleads/partnerapi/shared/api"
	"github.com/moveleads/partnerapi/shared/apigw"
	"github.com/moveleads/partnerapi/shared/awsenv"
	"github.com/moveleads/partnerapi/shared/dynamo"
	"github.com/moveleads/partnerapi/shared/leads"
	"github.com/moveleads/partnerapi/shared/manifest"
)

// Deps is what the endpoints and their pipeline need.
type Deps struct {
	Store *dynamo.Store
	// Secret returns the loader of a secret by manifest name (see
	// awsenv.Env.Secret).
	Secret func(name string) func(context.Context) ([]byte, error)
	Log    *slog.Logger
	// Now, NewID, IdempotencyWait and SettingsTTL override the pipeline's
	// defaults (tests).
	Now             func() time.Time
	NewID           func() string
	IdempotencyWait time.Duration
	SettingsTTL     time.Duration
}

// The builders of each HTTP function's endpoint, one per function: its
// main passes exactly one to apigw.Start (so its binary links only that
// endpoint), and the tools serve them all through Builders.

// CreateLead builds the v1-leads function's endpoint.
func CreateLead(e *awsenv.Env) api.Endpoint { return leads.New(e.Store, nil).CreateLead() }

// ListLeads builds the v1-leads-list function's endpoint.
func ListLeads(e *awsenv.Env) api.Endpoint {
	return leads.New(e.Store, e.Secret(manifest.SecretCursor)).ListLeads()
}

// GetLead builds the v1-lead-get function's endpoint.
func GetLead(e *awsenv.Env) api.Endpoint { return leads.New(e.Store, nil).GetLead() }

// Builders maps the slug of every function with partner routes to the
// builder its main uses. A test checks it covers the manifest.
func Builders() map[string]func(*awsenv.Env) api.Endpoint {
	return map[string]func(*awsenv.Env) api.Endpoint{
		"v1-leads":      CreateLead,
		"v1-leads-list": ListLeads,
		"v1-lead-get":   GetLead,
	}
}

// Endpoints returns every endpoint, built over env.
func Endpoints(env *awsenv.Env) []api.Endpoint {
	var out []api.Endpoint
	for _, f := range manifest.Functions {
		if b, ok := Builders()[f.Slug]; ok {
			out = append(out, b(env))
		}
	}
	return out
}

// Stack serves every route of the manifest.
type Stack struct {
	Pipeline *api.Pipeline
	handler  *apigw.Handler
	eps      map[manifest.Operation]api.Endpoint
	log      *slog.Logger
}

// New returns the Stack over d.
func New(d Deps) *Stack {
	p := api.New(api.Deps{
		Store: d.Store, Log: d.Log, Now: d.Now, NewID: d.NewID,
		IdempotencyWait: d.IdempotencyWait, SettingsTTL: d.SettingsTTL,
	})
	s := &Stack{Pipeline: p, handler: apigw.New(p, d.Log, d.Now), eps: map[manifest.Operation]api.Endpoint{}, log: d.Log}
	for _, ep := range Endpoints(awsenv.ForTools(d.Store, d.Log, d.Secret)) {
		s.eps[ep.Operation] = ep
	}
	return s
}

// Endpoint returns the endpoint of op, and false when op has none.
func (s *Stack) Endpoint(op manifest.Operation) (api.Endpoint, bool) {
	ep, ok := s.eps[op]
	return ep, ok
}

// Route returns the Lambda handler of op's route ($default included). It
// panics when op has no endpoint, a wiring error the catalog's test
// catches.
func (s *Stack) Route(op manifest.Operation) apigw.LambdaFunc {
	if op == manifest.RouteNotFound {
		return apigw.NotFound(s.log)
	}
	ep, ok := s.eps[op]
	if !ok {
		panic(fmt.Sprintf("catalog: no endpoint for %s", op))
	}
	return s.handler.Serve(ep)
}
