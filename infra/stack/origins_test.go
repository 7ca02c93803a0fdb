package stack

import (
	"reflect"
	"slices"
	"testing"

	"github.com/moveleads/partnerapi/shared/spec/manifest"
	"github.com/moveleads/partnerapi/shared/spec/settings"
)

// TestAgentToolsAllowedOrigins: with origins set, the function that takes
// the agent key (v1-mcp) gets them comma-separated in
// AGENT_TOOLS_ALLOWED_ORIGINS, a value settings.ParseOrigins gives back
// as they were, and no other function gets the variable; without, no
// function has it (v1-mcp then allows no browser origin).
func TestAgentToolsAllowedOrigins(t *testing.T) {
	origins := []string{"https://console.example.com", "http://127.0.0.1:5173"}
	for _, tc := range []struct {
		name string
		s    *synthed
		want map[string]any // slug → value
	}{
		{"with origins", synth(t, "origins", Props{Env: Dev, AgentToolsAllowedOrigins: origins}),
			map[string]any{manifest.AgentToolsSlug: "https://console.example.com,http://127.0.0.1:5173"}},
		{"without", devStack(t), map[string]any{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := map[string]any{}
			for slug, id := range tc.s.functionIDs(t) {
				env, _ := props(tc.s.resources("AWS::Lambda::Function")[id])["Environment"].(map[string]any)
				vars, _ := env["Variables"].(map[string]any)
				if v, ok := vars[settings.AgentToolsAllowedOrigins]; ok {
					got[slug] = v
				}
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("functions with %s: %v; want %v", settings.AgentToolsAllowedOrigins, got, tc.want)
			}
			if v, ok := got[manifest.AgentToolsSlug].(string); ok {
				if parsed, err := settings.ParseOrigins(v); err != nil || !slices.Equal(parsed, origins) {
					t.Errorf("ParseOrigins(%q) = %q, %v; want %q", v, parsed, err, origins)
				}
			}
		})
	}
}
