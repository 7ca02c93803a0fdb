package catalog

import (
	"context"
	"log/slog"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"

	"github.com/moveleads/partnerapi/shared/edge/apigw"
	"github.com/moveleads/partnerapi/shared/spec/manifest"
	"github.com/moveleads/partnerapi/shared/spec/settings"
	"github.com/moveleads/partnerapi/shared/wire/awsenv"
	"github.com/moveleads/partnerapi/shared/wire/clipwiring"
	"github.com/moveleads/partnerapi/shared/wire/mcpwiring"
)

func noSecrets(string) func(context.Context) ([]byte, error) { return nil }

// toolEnv is an Env with every setting the builders read.
func toolEnv(t *testing.T) *awsenv.Env {
	t.Helper()
	t.Setenv(settings.ClipBucket, "clips-test")
	t.Setenv(settings.PublicBaseURL, "https://api.example.test")
	t.Setenv("AWS_ENDPOINT_URL_S3", "")
	cfg := aws.Config{Region: "us-east-1", Credentials: credentials.NewStaticCredentialsProvider("id", "secret", "")}
	return awsenv.ForTools(nil, nil, noSecrets, cfg)
}

func TestEveryRouteHasOneEndpoint(t *testing.T) {
	eps, err := Endpoints(toolEnv(t))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[manifest.Operation]int{}
	for _, ep := range eps {
		seen[ep.Operation]++
	}
	for _, r := range manifest.Routes() {
		if r.IsDefault() || r.Operation == manifest.AgentTools {
			continue // served by handlers of their own (Route)
		}
		if n := seen[r.Operation]; n != 1 {
			t.Errorf("route %s has %d endpoints; want 1", r.Operation, n)
		}
		delete(seen, r.Operation)
	}
	for op := range seen {
		t.Errorf("endpoint %s has no route in the manifest", op)
	}
}

// TestBuildersMatchTheManifest checks that each HTTP function has a
// builder that serves exactly its routes, and that the secrets each
// builder reads are exactly those the manifest lists for the function (the
// check apigw.Start makes at init).
func TestBuildersMatchTheManifest(t *testing.T) {
	functions := 0
	for _, f := range manifest.Functions {
		if len(f.HTTP) == 0 || f.HTTP[0].IsDefault() || f.Slug == manifest.AgentToolsSlug {
			continue
		}
		functions++
		t.Run(f.Slug, func(t *testing.T) {
			b, ok := Builders()[f.Slug]
			if !ok {
				t.Fatalf("no builder for function %s", f.Slug)
			}
			env := toolEnv(t)
			h, err := apigw.Build(func() (*awsenv.Env, error) { return env, nil }, b)
			if err != nil || h == nil {
				t.Fatalf("build %s: %v", f.Slug, err)
			}
			eps, err := b(toolEnv(t))
			if err != nil {
				t.Fatal(err)
			}
			got, err := apigw.FunctionOf(eps)
			if err != nil || got.Slug != f.Slug {
				t.Errorf("builder serves %s (%v); want %s", got.Slug, err, f.Slug)
			}
		})
	}
	if len(Builders()) != functions {
		t.Errorf("%d builders for %d HTTP functions", len(Builders()), functions)
	}
}

// TestAgentToolsBuild: the agent tool function builds from an environment
// with its settings and secrets, reading exactly the secrets the manifest
// lists for it (mcpwiring.Build checks), with the same builders as the
// functions it runs the operations of.
func TestAgentToolsBuild(t *testing.T) {
	env := toolEnv(t)
	h, err := mcpwiring.Build(func() (*awsenv.Env, error) { return env, nil })
	if err != nil || h == nil {
		t.Fatalf("build v1-mcp: %v", err)
	}
	for slug, b := range mcpwiring.ToolBuilders() {
		if reflect.ValueOf(b).Pointer() != reflect.ValueOf(Builders()[slug]).Pointer() {
			t.Errorf("mcpwiring.ToolBuilders builds %s with another builder than the function's", slug)
		}
	}
	eps, err := mcpwiring.ToolEndpoints(toolEnv(t))
	if err != nil {
		t.Fatal(err)
	}
	var ops []manifest.Operation
	for _, ep := range eps {
		ops = append(ops, ep.Operation)
	}
	for _, op := range manifest.AgentToolOperations {
		if !slices.Contains(ops, op) {
			t.Errorf("no endpoint for tool operation %s", op)
		}
	}
}

// TestBuildersRefuseMissingSettings: a deployed function whose settings
// are missing fails at init, naming the variable, never at the first
// request.
func TestBuildersRefuseMissingSettings(t *testing.T) {
	for slug, setting := range map[string]string{"v1-lead-survey": settings.PublicBaseURL, "v1-capture": settings.ClipBucket} {
		t.Run(slug, func(t *testing.T) {
			env := toolEnv(t)
			t.Setenv(setting, "")
			_, err := apigw.Build(func() (*awsenv.Env, error) { return env, nil }, Builders()[slug])
			if err == nil || !contains(err.Error(), setting) {
				t.Errorf("build without %s: %v; want an error naming it", setting, err)
			}
		})
	}
	env := toolEnv(t)
	t.Setenv(settings.ClipBucket, "")
	if _, err := clipwiring.ClipProcessor(env); err == nil || !contains(err.Error(), settings.ClipBucket) {
		t.Errorf("clip processor without %s: %v; want an error naming it", settings.ClipBucket, err)
	}
	env = toolEnv(t)
	t.Setenv(settings.AgentToolsAllowedOrigins, "https://console.example.com/")
	if _, err := mcpwiring.Build(func() (*awsenv.Env, error) { return env, nil }); err == nil || !contains(err.Error(), settings.AgentToolsAllowedOrigins) {
		t.Errorf("agent tool server with a malformed %s: %v; want an error naming it", settings.AgentToolsAllowedOrigins, err)
	}
}

// TestLocalAgentToolsRefuseBadOrigins: in the local stack (make dev) a
// malformed AGENT_TOOLS_ALLOWED_ORIGINS makes the agent tool server's
// route answer 500, with the reason in the log, as an unconfigured
// function's routes do; the other routes are unaffected.
func TestLocalAgentToolsRefuseBadOrigins(t *testing.T) {
	toolEnv(t)
	t.Setenv(settings.AgentToolsAllowedOrigins, "https://*.example.com")
	var log strings.Builder
	s := New(Deps{Log: slog.New(slog.NewTextHandler(&log, nil)), Secret: noSecrets})
	res, err := s.Route(manifest.AgentTools)(context.Background(), events.APIGatewayV2HTTPRequest{
		RawPath: "/v1-mcp", Body: `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
	})
	if err != nil || res.StatusCode != 500 || !contains(res.Body, `"internal_error"`) {
		t.Errorf("agent tools with a malformed %s: %d %s, %v; want 500 internal_error", settings.AgentToolsAllowedOrigins, res.StatusCode, res.Body, err)
	}
	if !contains(log.String(), settings.AgentToolsAllowedOrigins) || contains(res.Body, settings.AgentToolsAllowedOrigins) {
		t.Errorf("log %q, body %q; want the variable named in the log, not to the client", log.String(), res.Body)
	}
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }
