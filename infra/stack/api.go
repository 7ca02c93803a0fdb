package stack

import (
	"encoding/json"
	"fmt"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsapigatewayv2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsapigatewayv2integrations"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslogs"
	"github.com/aws/jsii-runtime-go"

	"github.com/moveleads/partnerapi/shared/spec/manifest"
)

// accessLogFields is the JSON access log line of the API: enough to trace
// a request to its function's log (requestId is the Lambda event's
// requestContext.requestId) and to see gateway-side failures.
//
// No header is logged, so API keys never reach the access log. Neither is
// the raw path ($context.path): capture and view pages carry their token
// in the URL path, so the log names the matched route by its template
// ($context.routeKey, e.g. "GET /v1/leads/{id}", or "$default" for a path
// no route matches) and never the path that was requested.
var accessLogFields = map[string]string{
	"requestId":          "$context.requestId",
	"requestTime":        "$context.requestTime",
	"ip":                 "$context.identity.sourceIp",
	"userAgent":          "$context.identity.userAgent",
	"method":             "$context.httpMethod",
	"routeKey":           "$context.routeKey",
	"protocol":           "$context.protocol",
	"status":             "$context.status",
	"responseLength":     "$context.responseLength",
	"responseLatency":    "$context.responseLatency",
	"integrationStatus":  "$context.integrationStatus",
	"integrationLatency": "$context.integrationLatency",
	"integrationError":   "$context.integrationErrorMessage",
	"error":              "$context.error.message",
}

// newAPI declares the HTTP API, without routes (the HTTP trigger adds
// them: connectHTTP), and its $default stage with its throttle and JSON
// access log. It outputs BaseUrl, the partners' base_url.
func newAPI(s awscdk.Stack, sz sizing) awsapigatewayv2.HttpApi {
	api := awsapigatewayv2.NewHttpApi(s, jsii.String("Api"), &awsapigatewayv2.HttpApiProps{
		ApiName:     s.StackName(),
		Description: jsii.String("Partner API for moving companies"),
		// The stage is declared below, to set its throttle and access log.
		CreateDefaultStage: jsii.Bool(false),
	})

	logs := awslogs.NewLogGroup(s, jsii.String("ApiAccessLogs"), &awslogs.LogGroupProps{
		Retention: sz.logRetention, RemovalPolicy: sz.removal,
	})
	stage := awsapigatewayv2.NewHttpStage(s, jsii.String("DefaultStage"), &awsapigatewayv2.HttpStageProps{
		HttpApi:    api,
		StageName:  jsii.String("$default"),
		AutoDeploy: jsii.Bool(true),
		Throttle: &awsapigatewayv2.ThrottleSettings{
			RateLimit: jsii.Number(sz.rate), BurstLimit: jsii.Number(sz.burst),
		},
	})
	format, err := json.Marshal(accessLogFields)
	if err != nil {
		panic(err) // a map of strings always marshals
	}
	// The L2 stage takes access log settings only as a jsii interface;
	// the L1 property says the same thing plainly.
	stage.Node().DefaultChild().(awsapigatewayv2.CfnStage).SetAccessLogSettings(
		&awsapigatewayv2.CfnStage_AccessLogSettingsProperty{
			DestinationArn: logs.LogGroupArn(),
			Format:         jsii.String(string(format)),
		})

	awscdk.NewCfnOutput(s, jsii.String("BaseUrl"), &awscdk.CfnOutputProps{
		Value:       api.ApiEndpoint(),
		Description: jsii.String("Partners' base_url (the API's default endpoint)"),
	})
	return api
}

// connectHTTP puts f's routes on the API, integrated (payload format 2.0)
// with f: for a partner operation both `METHOD PilotPath` and `METHOD
// LogicalPath`; for the $default route (route-not-found) the API's
// $default route, which API Gateway uses for every request no other route
// matches, so that an unknown path or method gets the spec's error body
// from our function instead of API Gateway's own {"message":"Not Found"}.
func connectHTTP(w wiring, f function) {
	integ := awsapigatewayv2integrations.NewHttpLambdaIntegration(
		jsii.String(f.spec.Slug), f.fn, &awsapigatewayv2integrations.HttpLambdaIntegrationProps{
			PayloadFormatVersion: awsapigatewayv2.PayloadFormatVersion_VERSION_2_0(),
		})
	for _, r := range f.spec.HTTP {
		if r.IsDefault() {
			route := awsapigatewayv2.NewHttpRoute(w.api, jsii.String("DefaultRoute"), &awsapigatewayv2.HttpRouteProps{
				HttpApi:     w.api,
				RouteKey:    awsapigatewayv2.HttpRouteKey_DEFAULT(),
				Integration: integ,
			})
			suppressAuth(route, r)
			continue
		}
		for _, path := range r.Paths() {
			for _, route := range *w.api.AddRoutes(&awsapigatewayv2.AddRoutesOptions{
				Path:        jsii.String(path),
				Methods:     httpMethods(r),
				Integration: integ,
			}) {
				suppressAuth(route, r)
			}
		}
	}
}

// httpMethods are r's methods (a page's HEAD too: manifest.Route.Methods).
func httpMethods(r manifest.Route) *[]awsapigatewayv2.HttpMethod {
	var ms []awsapigatewayv2.HttpMethod
	for _, m := range r.Methods() {
		ms = append(ms, awsapigatewayv2.HttpMethod(m))
	}
	return &ms
}

// suppressAuth records why route has no API Gateway authorizer, by r's
// auth kind (cdk-nag AwsSolutions-APIG4). A kind without a reason here
// fails synth: someone must say how it is authenticated.
func suppressAuth(route awsapigatewayv2.HttpRoute, r manifest.Route) {
	var reason string
	switch r.Auth {
	case manifest.AuthPartnerKey:
		reason = "The function authenticates the partner's bearer API key against DynamoDB, in the same " +
			"conditional update that counts the request; a gateway authorizer would add a second lookup per " +
			"request and a cache that delays revocation."
	case manifest.AuthAgentKey:
		reason = "The agent tool server's function authenticates the partner's API key, sent in the " +
			manifest.AgentKeyHeader + " header (the MCP client keeps Authorization for itself), against DynamoDB, in " +
			"the same conditional update that counts the request against the key's rate limit, before any MCP " +
			"handling; each tool then checks its own operation's scope and beta gate. A gateway authorizer would add " +
			"a second lookup per request and a cache that delays revocation."
	case manifest.AuthCaptureToken:
		reason = "The capture page and its calls are authenticated by the capture token in the path (256 random bits; " +
			"only its SHA-256 is stored), which the function looks up in DynamoDB with its expiry, in the same " +
			"request that counts it against the token's own rate limit. Customers have no account to authorize."
	case manifest.AuthViewToken:
		reason = "The viewer page is authenticated by the video link's token in the path (256 random bits; only its " +
			"SHA-256 is stored), which the function looks up in DynamoDB with its expiry and its survey's live set, in " +
			"the same transaction that counts the open against the link's hourly limit. Whoever the partner forwards " +
			"the link to has no account to authorize."
	case manifest.AuthQuoteToken:
		reason = "The quote page and its calls are authenticated by the quote token in the path (256 random bits; only " +
			"its SHA-256 is stored), which the function looks up in DynamoDB with its expiry, in the same request that " +
			"counts it against the token's own rate limit. The partner's customer has no account to authorize."
	case manifest.AuthProcessorSignature:
		reason = "Stripe calls the webhook receiver and carries no identity an API Gateway authorizer could check: the " +
			"function verifies the Stripe-Signature header (HMAC-SHA256 of the raw body under the endpoint's signing " +
			"secret, timestamp within five minutes) before it reads or writes anything, and answers 400 " +
			"invalid_signature otherwise."
	case manifest.AuthDashboardSession:
		reason = "The dashboard's pages and calls are authenticated by the session cookie a passkey sign-in set " +
			"(256 random bits; only its SHA-256 is stored, with 30-minute idle and 12-hour absolute lifetimes), " +
			"which the request pipeline looks up in DynamoDB; a state change also needs the session's CSRF token " +
			"and the dashboard's own Origin. A gateway authorizer would cache sessions past sign-out."
	case manifest.AuthNone:
		if r.Slug == manifest.DashboardSlug {
			reason = "Public by design: " + string(r.Operation) + " is a step of the dashboard's passkey sign-in " +
				"(or its static script and stylesheet), before any session exists; each call is counted against " +
				"its client address's sign-in rate limit, and an invitation's token (256 random bits, hashed) against its own."
			break
		}
		reason = "Public by design: " + string(r.Operation) + " reads and writes nothing and answers only the " +
			"API's error body (e.g. 404 route_not_found)."
	default:
		panic(fmt.Sprintf("stack: route %s: auth kind %q has no APIG4 reason in suppressAuth; say how it is authenticated",
			r.Operation, r.Auth))
	}
	suppress(route, "AwsSolutions-APIG4", reason)
}
