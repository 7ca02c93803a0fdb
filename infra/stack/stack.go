// Package stack declares the partner API's AWS resources: one Lambda
// function per entry of the function manifest (manifest.Functions),
// connected to its trigger — an HTTP function's routes on an API Gateway
// HTTP API (both path forms of every partner route; route-not-found as the
// API's $default route), an S3 function's object-created notification on
// the clip bucket, a stream function's event source mapping on the table's
// stream, a scheduled function's EventBridge rule, the last two each with
// a dead-letter queue —, the single DynamoDB table declared from package
// table, the survey-clip bucket (which also keeps signed quotes' signature
// images), the generated secrets (cursor signing key, webhook sealing
// key), the secrets the operator fills (Stripe API keys, Stripe webhook
// signing secrets) and the alarms.
// Each function gets exactly the table actions its entry's Table lists
// (writes limited to its leading-key patterns), object actions on the clip
// bucket's key prefixes its entry's Bucket lists, and only the secrets its
// entry's Secrets name.
//
// cdk-nag's AwsSolutions pack runs on every synth; each finding the design
// accepts is suppressed in code next to the resource, with its reason.
package stack

import (
	"errors"
	"fmt"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsapigatewayv2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslogs"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"
	"github.com/cdklabs/cdk-nag-go/cdknag/v2"
)

// sizing is what differs between environments.
type sizing struct {
	// removal applies to the data (table, bucket, secret, key) and logs.
	removal            awscdk.RemovalPolicy
	deletionProtection bool
	logRetention       awslogs.RetentionDays
	// The default stage's throttle, a backstop behind the per-key limit
	// (120 requests per minute per key, counted in DynamoDB). It keeps a
	// flood of unauthenticated requests, which each still cost a Lambda
	// invocation and a DynamoDB update, from using the account's whole
	// Lambda concurrency (1,000 by default, shared with other stacks) and
	// an unbounded on-demand bill. Prod: 200 requests per second is 100
	// partners at their full per-key rate at once, and about 20 concurrent
	// executions at ~100 ms each; the burst of 400 absorbs a batch import.
	// Dev serves a handful of testers.
	rate, burst float64
}

func sizingFor(env Env) sizing {
	if env == Prod {
		return sizing{
			removal: awscdk.RemovalPolicy_RETAIN, deletionProtection: true,
			// Three months covers a partner's dispute about a lead from
			// the previous billing cycle.
			logRetention: awslogs.RetentionDays_THREE_MONTHS,
			rate:         200, burst: 400,
		}
	}
	return sizing{
		removal: awscdk.RemovalPolicy_DESTROY, deletionProtection: false,
		logRetention: awslogs.RetentionDays_TWO_WEEKS,
		rate:         25, burst: 50,
	}
}

// Stack is the declared stack and the parts callers may refer to.
type Stack struct {
	awscdk.Stack
	// Api is the HTTP API whose default endpoint is the BaseUrl output.
	Api awsapigatewayv2.HttpApi
}

// New declares the partner API stack in scope. It returns an error, and
// declares nothing, when p is invalid: an unknown env, a missing function
// zip, a malformed alarm target or allowed browser origin
// (AgentToolsAllowedOrigins), a function naming a secret the stack does
// not deploy, a function whose trigger the stack does not deploy yet, or
// S3 triggers that overlap.
func New(scope constructs.Construct, id string, p Props) (*Stack, error) {
	if err := p.validate(); err != nil {
		return nil, fmt.Errorf("stack %s: %w", id, err)
	}
	if err := errors.Join(checkSecrets(p.functions()), checkFunctions(p.functions())); err != nil {
		return nil, fmt.Errorf("stack %s: %w", id, err)
	}
	s := awscdk.NewStack(scope, jsii.String(id), &p.StackProps)
	// Server access logs are delivered under a bucket policy for
	// logging.s3.amazonaws.com rather than the legacy LogDeliveryWrite
	// ACL, which buckets with ACLs disabled (the default) refuse. Set
	// here, before any child exists, so the CLI and plain go run agree.
	s.Node().SetContext(jsii.String("@aws-cdk/aws-s3:serverAccessLogsUseBucketPolicy"), true)
	awscdk.Tags_Of(s).Add(jsii.String("service"), jsii.String("partner-api"), nil)
	awscdk.Tags_Of(s).Add(jsii.String("env"), jsii.String(string(p.Env)), nil)

	sz := sizingFor(p.Env)
	tbl := newTable(s, sz)
	events := newEventsTable(s, sz)
	// The API comes first: its endpoint is the capture page's origin,
	// which the clip bucket's CORS rule allows and the functions that make
	// capture links read (PUBLIC_BASE_URL). Nothing in the API refers to
	// a function until the routes are added, so there is no cycle.
	api := newAPI(s, sz)
	baseURL := api.ApiEndpoint()
	clips := newClipBucket(s, sz, baseURL)
	secrets := newSecrets(s, sz)
	fns := newFunctions(s, sz, p, resources{
		table: tbl, events: events, clips: clips.bucket, secrets: secrets, baseURL: baseURL, agentOrigins: p.AgentToolsAllowedOrigins,
	})
	var deadLetters []deadLetter
	connectTriggers(wiring{
		stack: s, api: api, table: tbl, events: events, clips: clips.bucket, notifyLogs: clips.notifyLogs,
		sz: sz, deadLetters: &deadLetters,
	}, fns)
	newAlarms(s, p, api, fns, deadLetters)

	awscdk.Aspects_Of(s).Add(cdknag.NewAwsSolutionsChecks(&cdknag.NagPackProps{Verbose: jsii.Bool(true)}), nil)
	return &Stack{Stack: s, Api: api}, nil
}

// suppress records that cdk-nag finding id on c (and its children) is
// accepted, and why.
func suppress(c constructs.IConstruct, id, reason string, appliesTo ...string) {
	sup := &cdknag.NagPackSuppression{Id: jsii.String(id), Reason: jsii.String(reason)}
	if len(appliesTo) > 0 {
		a := make([]interface{}, len(appliesTo))
		for i, s := range appliesTo {
			a[i] = s
		}
		sup.AppliesTo = &a
	}
	cdknag.NagSuppressions_AddResourceSuppressions(c, &[]*cdknag.NagPackSuppression{sup}, jsii.Bool(true))
}
