package stack

import (
	"time"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsdynamodb"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsiam"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslogs"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssecretsmanager"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"

	"github.com/moveleads/partnerapi/shared/idempotency"
	"github.com/moveleads/partnerapi/shared/manifest"
	"github.com/moveleads/partnerapi/shared/settings"
	"github.com/moveleads/partnerapi/shared/table"
)

// routeTag is the tag key that names, on every resource of a route's
// function (function, role, log group), the route's slug.
const routeTag = "route"

// memoryMB is every function's memory. The handlers are CPU-bound (JSON,
// TLS to DynamoDB, SHA-256 of the key, HMAC of cursors) and Lambda allots
// CPU in proportion to memory: at 128 MB a cold start's TLS handshakes
// are CPU-starved. Doubling memory doubles the price per millisecond, but
// CPU-bound work finishes in about half the time, so the cost per request
// stays roughly flat while latency drops. Measure before going higher.
const memoryMB = 256

// timeout returns r's function timeout. A request normally takes well
// under a second: one UpdateItem (authenticate and count), one read or
// write, perhaps the cursor secret on a cold start, each with the SDK's
// retries. 10 s leaves room for those retries yet frees a stuck
// invocation long before API Gateway's 30 s integration timeout.
//
// An idempotent route may also wait for a concurrent duplicate for up to
// idempotency.DefaultWait (10 s) and then do its own work, so it gets that
// wait on top. Its timeout also bounds how long a crashed request's claim
// blocks its Idempotency-Key (the claim expires at the invocation's
// deadline), so it is not longer than needed.
func timeout(r manifest.Route) time.Duration {
	d := 10 * time.Second
	if r.Idempotent {
		d += idempotency.DefaultWait
	}
	return d
}

// function is a deployed route: its function and execution role.
type function struct {
	route manifest.Route
	fn    awslambda.Function
	role  awsiam.Role
}

// newFunctions declares one function per route, each with its own role
// that holds exactly the grants its route needs.
func newFunctions(s awscdk.Stack, sz sizing, p Props, tbl awsdynamodb.Table,
	secrets map[string]awssecretsmanager.Secret) []function {
	var out []function
	for _, r := range p.routes() {
		scope := constructs.NewConstruct(s, jsii.String(r.Slug))
		awscdk.Tags_Of(scope).Add(jsii.String(routeTag), jsii.String(r.Slug), nil)

		logs := awslogs.NewLogGroup(scope, jsii.String("Logs"), &awslogs.LogGroupProps{
			Retention: sz.logRetention, RemovalPolicy: sz.removal,
		})
		// An explicit role instead of the default one with the
		// AWSLambdaBasicExecutionRole managed policy, which may write to
		// any log group in the account.
		role := awsiam.NewRole(scope, jsii.String("Role"), &awsiam.RoleProps{
			AssumedBy:   awsiam.NewServicePrincipal(jsii.String("lambda.amazonaws.com"), nil),
			Description: jsii.String("Execution role of the " + r.Slug + " function"),
		})
		role.AddToPrincipalPolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
			Sid:       jsii.String("WriteOwnLogs"),
			Actions:   jsii.Strings("logs:CreateLogStream", "logs:PutLogEvents"),
			Resources: jsii.Strings(*logs.LogGroupArn()),
		}))

		env := map[string]*string{settings.Table: tbl.TableName()}
		for _, name := range r.Secrets {
			sec := secrets[name]
			env[secretEnv[name]] = sec.SecretArn()
			role.AddToPrincipalPolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
				Actions:   jsii.Strings("secretsmanager:GetSecretValue"),
				Resources: jsii.Strings(*sec.SecretArn()),
			}))
		}
		for _, g := range tableGrants(r) {
			role.AddToPrincipalPolicy(g.statement(tbl))
		}

		fn := awslambda.NewFunction(scope, jsii.String("Function"), &awslambda.FunctionProps{
			Description:   jsii.String(string(r.Operation) + ": " + r.Summary),
			Code:          awslambda.Code_FromAsset(jsii.String(assetPath(p.AssetDir, r.Slug)), nil),
			Handler:       jsii.String("bootstrap"),
			Runtime:       awslambda.Runtime_PROVIDED_AL2023(),
			Architecture:  awslambda.Architecture_ARM_64(),
			MemorySize:    jsii.Number(memoryMB),
			Timeout:       awscdk.Duration_Seconds(jsii.Number(timeout(r).Seconds())),
			Environment:   &env,
			Role:          role,
			LogGroup:      logs,
			LoggingFormat: awslambda.LoggingFormat_JSON,
		})
		out = append(out, function{route: r, fn: fn, role: role})
	}
	return out
}

// apiKeyRecords matches the partition keys of API key authentication
// records (table.AuthKeyPrefix): the only items every function updates.
const apiKeyRecords = table.AuthKeyPrefix + "*"

// grant is one statement of table permissions.
type grant struct {
	sid     string
	actions []string
	// index grants on gsi1's ARN instead of the table's.
	index bool
	// keyRecordsOnly limits the grant to items whose partition key
	// matches apiKeyRecords.
	keyRecordsOnly bool
}

// tableGrants derives a route's table permissions from route.Data. Every
// function authenticates and counts each request with one conditional
// UpdateItem on its key's record, and may touch nothing else unless Data
// says so.
func tableGrants(r manifest.Route) []grant {
	gs := []grant{{sid: "AuthenticateAndCount", actions: []string{"dynamodb:UpdateItem"}, keyRecordsOnly: true}}
	if r.Data.Has(route.ReadItems) {
		gs = append(gs, grant{sid: "ReadItems", actions: []string{"dynamodb:GetItem"}})
	}
	if r.Data.Has(route.QueryIndex) {
		gs = append(gs, grant{sid: "QueryIndex", actions: []string{"dynamodb:Query"}, index: true})
	}
	if r.Data.Has(route.WriteItems) {
		gs = append(gs, grant{sid: "WriteItems",
			actions: []string{"dynamodb:PutItem", "dynamodb:UpdateItem"}})
	}
	return gs
}

// statement is g as an IAM statement on tbl.
func (g grant) statement(tbl awsdynamodb.Table) awsiam.PolicyStatement {
	res := *tbl.TableArn()
	if g.index {
		res = res + "/index/" + table.GSI1.Name
	}
	ps := &awsiam.PolicyStatementProps{
		Sid:       jsii.String(g.sid),
		Actions:   jsii.Strings(g.actions...),
		Resources: jsii.Strings(res),
	}
	if g.keyRecordsOnly {
		ps.Conditions = &map[string]interface{}{
			"ForAllValues:StringLike": map[string]interface{}{"dynamodb:LeadingKeys": []string{apiKeyRecords}},
		}
	}
	return awsiam.NewPolicyStatement(ps)
}
