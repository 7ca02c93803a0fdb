package stack

import (
	"encoding/json"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2/assertions"
	"github.com/aws/jsii-runtime-go"

	"github.com/moveleads/partnerapi/shared/manifest"
)

// routeTargets maps each route key ("METHOD path") of the HTTP API to the
// logical id of the function its integration invokes.
func (s *synthed) routeTargets(t *testing.T) map[string]string {
	t.Helper()
	integrations := s.resources("AWS::ApiGatewayV2::Integration")
	out := map[string]string{}
	for id, res := range s.resources("AWS::ApiGatewayV2::Route") {
		p := props(res)
		key, _ := p["RouteKey"].(string)
		// Target is {"Fn::Join": ["", ["integrations/", {"Ref": <integration>}]]}.
		var integ string
		if j, ok := p["Target"].(map[string]any)["Fn::Join"].([]any); ok && len(j) == 2 {
			if parts, ok := j[1].([]any); ok && len(parts) == 2 && parts[0] == "integrations/" {
				integ = ref(parts[1])
			}
		}
		ip, ok := integrations[integ]
		if !ok {
			t.Errorf("route %s (%s): target %v is not an integration of the stack", key, id, p["Target"])
			continue
		}
		if got := props(ip)["PayloadFormatVersion"]; got != "2.0" {
			t.Errorf("route %s: PayloadFormatVersion = %v; want 2.0", key, got)
		}
		if got := props(ip)["IntegrationType"]; got != "AWS_PROXY" {
			t.Errorf("route %s: IntegrationType = %v; want AWS_PROXY", key, got)
		}
		out[key] = getAtt(props(ip)["IntegrationUri"], "Arn")
	}
	return out
}

func TestEveryRouteServesBothPathsWithItsFunction(t *testing.T) {
	s := devStack(t)
	fns := s.functionIDs(t)
	targets := s.routeTargets(t)
	want := 0
	for _, r := range route.Table {
		fid, ok := fns[r.Slug]
		if !ok {
			t.Errorf("no function tagged %s=%s", routeTag, r.Slug)
			continue
		}
		for _, p := range r.Paths() {
			want++
			key := r.Method + " " + p
			got, ok := targets[key]
			switch {
			case !ok:
				t.Errorf("route %q missing", key)
			case got != fid:
				t.Errorf("route %q invokes %q; want %q (function of %s)", key, got, fid, r.Slug)
			}
		}
	}
	if len(targets) != want {
		t.Errorf("got %d routes %v; want %d (both paths of every route, nothing else)", len(targets), sortedKeys(targets), want)
	}
}

// TestNewRouteFlowsThrough deploys route.Table plus one more route and
// checks it gets its function, both paths, its grants and its alarms, with
// no other change to the stack code.
func TestNewRouteFlowsThrough(t *testing.T) {
	extra := manifest.Route{
		Operation: "getWidget", Slug: "v1-widget-get", Method: "GET",
		PilotPath: "/v1-widget-get/{widget_id}", LogicalPath: "/v1/widgets/{id}",
		Scope: manifest.LeadsRead, Data: route.ReadItems, Summary: "test-only route",
	}
	routes := append(append([]manifest.Route{}, route.Table...), extra)
	s := synth(t, "extra", Props{Env: Dev, Routes: routes})

	assert(t, "function count", func() {
		s.template.ResourceCountIs(jsii.String("AWS::Lambda::Function"), jsii.Number(len(routes)))
	})
	assert(t, "route count", func() {
		s.template.ResourceCountIs(jsii.String("AWS::ApiGatewayV2::Route"), jsii.Number(2*len(routes)))
	})
	assert(t, "alarm count", func() {
		s.template.ResourceCountIs(jsii.String("AWS::CloudWatch::Alarm"), jsii.Number(2+2*len(routes)))
	})
	fid := s.functionIDs(t)[extra.Slug]
	targets := s.routeTargets(t)
	for _, p := range extra.Paths() {
		if got := targets["GET "+p]; got == "" || got != fid {
			t.Errorf("route GET %s invokes %q; want %q", p, got, fid)
		}
	}
	var getItem bool
	for _, st := range s.functionStatements(t, extra.Slug) {
		for _, a := range st.actions {
			getItem = getItem || (a == "dynamodb:GetItem" && st.effect == "Allow")
		}
	}
	if !getItem {
		t.Errorf("%s (Data: ReadItems) has no dynamodb:GetItem", extra.Slug)
	}
}

func TestFunctionsAreArmAL2023Bootstrap(t *testing.T) {
	s := devStack(t)
	assert(t, "function count", func() {
		s.template.ResourceCountIs(jsii.String("AWS::Lambda::Function"), jsii.Number(len(route.Table)))
	})
	assert(t, "every function", func() {
		s.template.AllResourcesProperties(jsii.String("AWS::Lambda::Function"), &map[string]any{
			"Architectures": []any{"arm64"},
			"Runtime":       "provided.al2023",
			"Handler":       "bootstrap",
			"MemorySize":    memoryMB,
			"LoggingConfig": assertions.Match_ObjectLike(&map[string]any{"LogFormat": "JSON"}),
		})
	})
	for id, res := range s.resources("AWS::Lambda::Function") {
		p := props(res)
		slug := tag(p, routeTag)
		r, ok := route.BySlug(slug)
		if !ok {
			t.Errorf("function %s: route %q is not in route.Table", id, slug)
			continue
		}
		if got, want := p["Timeout"], timeout(r).Seconds(); got != want {
			t.Errorf("%s: Timeout = %v; want %v", slug, got, want)
		}
		// The function's log group is its own and keeps logs for a while.
		lg := ref(p["LoggingConfig"].(map[string]any)["LogGroup"])
		if days := props(s.resources("AWS::Logs::LogGroup")[lg])["RetentionInDays"]; days == nil {
			t.Errorf("%s: log group %q has no retention", slug, lg)
		}
	}
}

func TestTimeoutCoversIdempotencyWait(t *testing.T) {
	const integrationTimeout = 30 // seconds, API Gateway HTTP API maximum
	for _, r := range route.Table {
		d := timeout(r).Seconds()
		if d >= integrationTimeout {
			t.Errorf("%s: timeout %vs; want under API Gateway's %ds", r.Slug, d, integrationTimeout)
		}
		if r.Idempotent && d <= 10 {
			t.Errorf("%s: timeout %vs; want above the 10 s duplicate wait", r.Slug, d)
		}
	}
}

func TestStageThrottlesAndLogsJSON(t *testing.T) {
	s := devStack(t)
	stages := s.resources("AWS::ApiGatewayV2::Stage")
	if len(stages) != 1 {
		t.Fatalf("got %d stages; want 1", len(stages))
	}
	for id, res := range stages {
		p := props(res)
		if p["StageName"] != "$default" || p["AutoDeploy"] != true {
			t.Errorf("stage %s: StageName %v AutoDeploy %v; want $default, true", id, p["StageName"], p["AutoDeploy"])
		}
		rs, _ := p["DefaultRouteSettings"].(map[string]any)
		want := sizingFor(Dev)
		if rs["ThrottlingRateLimit"] != want.rate || rs["ThrottlingBurstLimit"] != want.burst {
			t.Errorf("stage throttle = %v; want rate %v burst %v", rs, want.rate, want.burst)
		}
		als, _ := p["AccessLogSettings"].(map[string]any)
		lg := getAtt(als["DestinationArn"], "Arn")
		if days := props(s.resources("AWS::Logs::LogGroup")[lg])["RetentionInDays"]; days == nil {
			t.Errorf("access log group %q missing or without retention", lg)
		}
		var fields map[string]string
		if err := json.Unmarshal([]byte(als["Format"].(string)), &fields); err != nil {
			t.Errorf("access log format is not JSON: %v", err)
		}
		if fields["requestId"] != "$context.requestId" {
			t.Errorf("access log lacks requestId: %v", fields)
		}
	}
	assert(t, "BaseUrl output", func() {
		s.template.HasOutput(jsii.String("BaseUrl"), &map[string]any{
			"Value": map[string]any{"Fn::GetAtt": []any{assertions.Match_AnyValue(), "ApiEndpoint"}},
		})
	})
}
