package mcpwiring

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-lambda-go/events"

	"github.com/moveleads/partnerapi/shared/spec/settings"
	"github.com/moveleads/partnerapi/shared/wire/awsenv"
)

// localEnv is what v1-mcp needs to start (as SAM gives it locally), with
// DynamoDB on a port nothing listens on: these tests never reach it.
func localEnv(origins string) map[string]string {
	return map[string]string{
		"AWS_REGION": "us-east-1", "AWS_ACCESS_KEY_ID": "local", "AWS_SECRET_ACCESS_KEY": "local",
		"AWS_ENDPOINT_URL_DYNAMODB":       "http://127.0.0.1:1",
		settings.Table:                    "partner-api",
		settings.CursorSecret:             strings.Repeat("ab", 32),
		settings.CaptureLinkKey:           strings.Repeat("cd", 32),
		settings.StripeAPIKeys:            `{"test":"sk_test_local","live":""}`,
		settings.ClipBucket:               "moveleads-clips-local",
		settings.PublicBaseURL:            "http://127.0.0.1:3001",
		settings.AgentToolsAllowedOrigins: origins,
	}
}

// loadFrom is awsenv.LoadFrom over vars.
func loadFrom(vars map[string]string) func() (*awsenv.Env, error) {
	return func() (*awsenv.Env, error) {
		return awsenv.LoadFrom(func(name string) string { return vars[name] })
	}
}

func TestHTTPOptions(t *testing.T) {
	for _, tc := range []struct {
		name, value string
		want        []string
		wantErr     string
	}{
		{"unset", "", nil, ""},
		{"two", "https://console.example.com, http://127.0.0.1:5173", []string{"https://console.example.com", "http://127.0.0.1:5173"}, ""},
		{"trailing slash", "https://console.example.com/", nil,
			`AGENT_TOOLS_ALLOWED_ORIGINS: origin "https://console.example.com/": want scheme://host[:port] with no path`},
		{"wildcard", "*", nil, `AGENT_TOOLS_ALLOWED_ORIGINS: origin "*": wildcards`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o, err := HTTPOptions(func(name string) string { return localEnv(tc.value)[name] })
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Errorf("HTTPOptions(%q) error = %v; want one containing %q", tc.value, err, tc.wantErr)
				}
				return
			}
			if err != nil || !slices.Equal(o.AllowedOrigins, tc.want) {
				t.Errorf("HTTPOptions(%q) = %q, %v; want %q, nil", tc.value, o.AllowedOrigins, err, tc.want)
			}
		})
	}
}

// TestBuildChecksAllowedOrigins: a malformed AGENT_TOOLS_ALLOWED_ORIGINS
// fails the function at init, naming the variable; a good one is the
// list the built handler lets through.
func TestBuildChecksAllowedOrigins(t *testing.T) {
	_, err := Build(loadFrom(localEnv("https://console.example.com, https://agents.example.com:8443/")))
	if err == nil || !strings.Contains(err.Error(), settings.AgentToolsAllowedOrigins+`: origin "https://agents.example.com:8443/"`) {
		t.Errorf("Build with a bad origin: error %v; want one naming %s and the entry", err, settings.AgentToolsAllowedOrigins)
	}

	h, err := Build(loadFrom(localEnv("https://console.example.com, https://agents.example.com:8443")))
	if err != nil {
		t.Fatalf("Build with good origins: %v", err)
	}
	call := func(origin string) (int, string) {
		t.Helper()
		res, err := h(context.Background(), events.APIGatewayV2HTTPRequest{
			RawPath: "/v1-mcp", Headers: map[string]string{"Origin": origin, "Content-Type": "application/json"},
			Body: `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
		})
		if err != nil {
			t.Fatal(err)
		}
		var body struct {
			Error struct{ Code string } `json:"error"`
		}
		_ = json.Unmarshal([]byte(res.Body), &body)
		return res.StatusCode, body.Error.Code
	}
	// Without a key every request stops at the key check (401) once its
	// origin is allowed, before any table access.
	for origin, want := range map[string]string{
		"https://agents.example.com:8443": "invalid_api_key",
		"https://console.example.com":     "invalid_api_key",
		"https://agents.example.com":      "origin_not_allowed",
		"https://console.example.com/":    "origin_not_allowed",
		"http://attacker.example":         "origin_not_allowed",
	} {
		if status, code := call(origin); code != want {
			t.Errorf("Origin %s: %d %s; want %s", origin, status, code, want)
		}
	}
}
