// Package mcpwiring builds the agent tool server (shared/edge/agenttools) for
// its Lambda function (v1-mcp), scripts/mcp and scripts/invoke: a backend
// that runs the tools' operations with the builders of shared/wire/wiring, and
// the HTTP transport.
//
// It is the one builder kept apart from shared/wire/wiring, because importing
// the MCP SDK runs its package init (encoding/gob, jsonschema-go,
// segmentio/encoding) in every binary that imports it: folded into
// shared/wire/wiring it put 1.9 MiB and that init into all 19 functions
// (v1-leads 9,175,202 → 11,141,282 B arm64 stripped, `go run ./scripts/build
// -only v1-leads`; the MCP SDK, gob and jsonschema symbols by `go tool nm`).
package mcpwiring

import (
	"fmt"

	"github.com/moveleads/partnerapi/shared/app/pipeline"
	"github.com/moveleads/partnerapi/shared/edge/agenttools"
	"github.com/moveleads/partnerapi/shared/edge/apigw"
	"github.com/moveleads/partnerapi/shared/spec/manifest"
	"github.com/moveleads/partnerapi/shared/spec/settings"
	"github.com/moveleads/partnerapi/shared/wire/awsenv"
	"github.com/moveleads/partnerapi/shared/wire/s3wiring"
	"github.com/moveleads/partnerapi/shared/wire/wiring"
)

// Backend builds the tools' backend over e: the endpoints and a pipeline
// of their own, as the functions have.
func Backend(e *awsenv.Env) (*agenttools.Backend, error) {
	eps, err := ToolEndpoints(e)
	if err != nil {
		return nil, err
	}
	return agenttools.NewBackend(pipeline.New(pipeline.Deps{Store: e.Store, Log: e.Log}), eps, e.Log)
}

// HTTPOptions are the HTTP transport's options from the environment:
// settings.AgentToolsAllowedOrigins, the web origins allowed to call it
// from a browser (none when unset or empty). It returns an error, naming
// the variable and the bad entry, when settings.ParseOrigins refuses the
// value.
func HTTPOptions(getenv func(string) string) (agenttools.HTTPOptions, error) {
	origins, err := settings.ParseOrigins(getenv(settings.AgentToolsAllowedOrigins))
	if err != nil {
		return agenttools.HTTPOptions{}, fmt.Errorf("%s: %w", settings.AgentToolsAllowedOrigins, err)
	}
	return agenttools.HTTPOptions{AllowedOrigins: origins}, nil
}

// Build is the v1-mcp function's Lambda handler over the environment
// load gives, built as Start builds it (also for scripts/invoke and
// tests): the secrets the tools read must be those the manifest lists, and
// the allowed browser origins are HTTPOptions of the environment's
// variables. It fails, so the function fails at init, when load, the
// backend or the secrets check fails, or when
// settings.AgentToolsAllowedOrigins is malformed.
func Build(load func() (*awsenv.Env, error)) (apigw.LambdaFunc, error) {
	e, err := load()
	if err != nil {
		return nil, err
	}
	o, err := HTTPOptions(e.Getenv)
	if err != nil {
		return nil, err
	}
	b, err := Backend(e)
	if err != nil {
		return nil, err
	}
	f, _ := manifest.BySlug(manifest.AgentToolsSlug)
	if err := e.Check(f); err != nil {
		return nil, err
	}
	return apigw.ServeHTTP(manifest.ByOperation(manifest.AgentTools), b.HTTPHandler(o), e.Log), nil
}

// Start is the v1-mcp function's main.
func Start() { awsenv.Run(Build(awsenv.Load)) }

// ToolBuilders maps the slug of each function whose operations are tools to
// its builder (the same as catalog.Builders'; a test checks). A function,
// not a package-level map, so that only the agent tool server's binary
// links every builder: a map variable is built at init in every binary
// that imports the package.
func ToolBuilders() map[string]wiring.Builder {
	return map[string]wiring.Builder{
		"v1-leads":               wiring.CreateLead,
		"v1-leads-list":          wiring.ListLeads,
		"v1-lead-get":            wiring.GetLead,
		"v1-events":              wiring.ListEvents,
		"v1-event-get":           wiring.GetEvent,
		"v1-lead-survey":         wiring.SurveyLink,
		"v1-survey-video-access": wiring.VideoAccess,
		"v1-lead-quote":          wiring.CreateQuote,
		"v1-accept":              s3wiring.Accept,
		"v1-deposits":            wiring.CreateDeposit,
		"v1-deposit-status":      wiring.GetDeposit,
	}
}

// ToolEndpoints builds the endpoint of every tool's operation over e.
func ToolEndpoints(e *awsenv.Env) ([]pipeline.Endpoint, error) {
	var out []pipeline.Endpoint
	seen := map[string]bool{}
	builders := ToolBuilders()
	for _, op := range manifest.AgentToolOperations {
		slug := manifest.FunctionOf(op).Slug
		if seen[slug] {
			continue
		}
		seen[slug] = true
		b, ok := builders[slug]
		if !ok {
			return nil, fmt.Errorf("no builder for function %s (tool operation %s)", slug, op)
		}
		eps, err := b(e)
		if err != nil {
			return nil, fmt.Errorf("function %s: %w", slug, err)
		}
		out = append(out, eps...)
	}
	return out, nil
}
