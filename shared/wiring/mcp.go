// The agent tool server (shared/agenttools): its backend runs the tools'
// operations with the same builders as the functions that serve them over
// the HTTP API, and its Lambda function (v1-mcp) serves the HTTP transport.

package wiring

import (
	"fmt"

	"github.com/moveleads/partnerapi/shared/agenttools"
	"github.com/moveleads/partnerapi/shared/api"
	"github.com/moveleads/partnerapi/shared/apigw"
	"github.com/moveleads/partnerapi/shared/awsenv"
	"github.com/moveleads/partnerapi/shared/manifest"
	"github.com/moveleads/partnerapi/shared/settings"
)

// ToolBuilders maps the slug of each function whose operations are tools to
// its builder (the same as catalog.Builders'; a test checks).
var ToolBuilders = map[string]Builder{
	"v1-leads":               CreateLead,
	"v1-leads-list":          ListLeads,
	"v1-lead-get":            GetLead,
	"v1-lead-survey":         SurveyLink,
	"v1-survey-video-access": VideoAccess,
	"v1-lead-quote":          CreateQuote,
	"v1-accept":              Accept,
	"v1-deposits":            CreateDeposit,
	"v1-deposit-status":      GetDeposit,
}

// ToolEndpoints builds the endpoint of every tool's operation over e.
func ToolEndpoints(e *awsenv.Env) ([]api.Endpoint, error) {
	var out []api.Endpoint
	seen := map[string]bool{}
	for _, op := range manifest.AgentToolOperations {
		slug := manifest.FunctionOf(op).Slug
		if seen[slug] {
			continue
		}
		seen[slug] = true
		b, ok := ToolBuilders[slug]
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

// ToolBackend builds the tools' backend over e: the endpoints and a pipeline
// of their own, as the functions have.
func ToolBackend(e *awsenv.Env) (*agenttools.Backend, error) {
	eps, err := ToolEndpoints(e)
	if err != nil {
		return nil, err
	}
	return agenttools.NewBackend(api.New(api.Deps{Store: e.Store, Log: e.Log}), eps, e.Log)
}

// ToolHTTPOptions are the HTTP transport's options from the environment:
// settings.AgentToolsAllowedOrigins, the web origins allowed to call it
// from a browser (none when unset or empty). It returns an error, naming
// the variable and the bad entry, when settings.ParseOrigins refuses the
// value.
func ToolHTTPOptions(getenv func(string) string) (agenttools.HTTPOptions, error) {
	origins, err := settings.ParseOrigins(getenv(settings.AgentToolsAllowedOrigins))
	if err != nil {
		return agenttools.HTTPOptions{}, fmt.Errorf("%s: %w", settings.AgentToolsAllowedOrigins, err)
	}
	return agenttools.HTTPOptions{AllowedOrigins: origins}, nil
}

// BuildMCP is the v1-mcp function's Lambda handler over the environment
// load gives, built as Start builds it (also for scripts/invoke and
// tests): the secrets the tools read must be those the manifest lists, and
// the allowed browser origins are ToolHTTPOptions of the environment's
// variables. It fails, so the function fails at init, when load, the
// backend or the secrets check fails, or when
// settings.AgentToolsAllowedOrigins is malformed.
func BuildMCP(load func() (*awsenv.Env, error)) (apigw.LambdaFunc, error) {
	e, err := load()
	if err != nil {
		return nil, err
	}
	o, err := ToolHTTPOptions(e.Getenv)
	if err != nil {
		return nil, err
	}
	b, err := ToolBackend(e)
	if err != nil {
		return nil, err
	}
	f, _ := manifest.BySlug(manifest.AgentToolsSlug)
	if err := e.Check(f); err != nil {
		return nil, err
	}
	return apigw.ServeHTTP(manifest.ByOperation(manifest.AgentTools), b.HTTPHandler(o), e.Log), nil
}

// StartMCP is the v1-mcp function's main.
func StartMCP() { awsenv.Run(BuildMCP(awsenv.Load)) }
