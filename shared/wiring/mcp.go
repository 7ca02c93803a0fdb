// The agent tool server's operations (shared/wiring/mcpwiring builds the
// server): the same builders as the functions that serve them over the
// HTTP API.

package wiring

import (
	"fmt"

	"github.com/moveleads/partnerapi/shared/api"
	"github.com/moveleads/partnerapi/shared/awsenv"
	"github.com/moveleads/partnerapi/shared/manifest"
)

// ToolBuilders maps the slug of each function whose operations are tools to
// its builder (the same as catalog.Builders'; a test checks). A function,
// not a package-level map, so that only the agent tool server's binary
// links every builder: a map variable is built at init in every binary
// that imports the package.
func ToolBuilders() map[string]Builder {
	return map[string]Builder{
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
}

// ToolEndpoints builds the endpoint of every tool's operation over e.
func ToolEndpoints(e *awsenv.Env) ([]api.Endpoint, error) {
	var out []api.Endpoint
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
