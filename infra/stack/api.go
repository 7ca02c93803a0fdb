package stack

import (
	"encoding/json"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsapigatewayv2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsapigatewayv2integrations"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslogs"
	"github.com/aws/jsii-runtime-go"

	"github.com/moveleads/partnerapi/shared/manifest"
)

// accessLogFields is the JSON access log line of the API: enough to trace
// a request to its function's log (requestId is the Lambda event's
// requestContext.requestId) and to see gateway-side failures. No header is
// logged, so API keys never reach the access log.
var accessLogFields = map[string]string{
	"requestId":          "$context.requestId",
	"requestTime":        "$context.requestTime",
	"ip":                 "$context.identity.sourceIp",
	"userAgent":          "$context.identity.userAgent",
	"method":             "$context.httpMethod",
	"routeKey":           "$context.routeKey",
	"path":               "$context.path",
	"protocol":           "$context.protocol",
	"status":             "$context.status",
	"responseLength":     "$context.responseLength",
	"responseLatency":    "$context.responseLatency",
	"integrationStatus":  "$context.integrationStatus",
	"integrationLatency": "$context.integrationLatency",
	"integrationError":   "$context.integrationErrorMessage",
	"error":              "$context.error.message",
}

// newAPI declares the HTTP API: for every route both `METHOD PilotPath`
// and `METHOD LogicalPath`, integrated (payload format 2.0) with the
// route's function, and the $default stage with its throttle and JSON
// access log. It outputs BaseUrl, the partners' base_url.
func newAPI(s awscdk.Stack, sz sizing, routes []manifest.Route, fns []function) awsapigatewayv2.HttpApi {
	api := awsapigatewayv2.NewHttpApi(s, jsii.String("Api"), &awsapigatewayv2.HttpApiProps{
		ApiName:     s.StackName(),
		Description: jsii.String("Partner API for moving companies"),
		// The stage is declared below, to set its throttle and access log.
		CreateDefaultStage: jsii.Bool(false),
	})
	for _, f := range fns {
		integ := awsapigatewayv2integrations.NewHttpLambdaIntegration(
			jsii.String(f.route.Slug), f.fn, &awsapigatewayv2integrations.HttpLambdaIntegrationProps{
				PayloadFormatVersion: awsapigatewayv2.PayloadFormatVersion_VERSION_2_0(),
			})
		seen := map[string]bool{}
		for _, path := range f.route.Paths() {
			if seen[path] {
				continue
			}
			seen[path] = true
			api.AddRoutes(&awsapigatewayv2.AddRoutesOptions{
				Path:        jsii.String(path),
				Methods:     &[]awsapigatewayv2.HttpMethod{awsapigatewayv2.HttpMethod(f.route.Method)},
				Integration: integ,
			})
		}
	}
	suppress(api, "AwsSolutions-APIG4",
		"Every route authenticates the partner's bearer API key inside its function, against DynamoDB, "+
			"in the same conditional update that counts the request; a gateway authorizer would add a second "+
			"lookup per request and a cache that delays revocation.")

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
