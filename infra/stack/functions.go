package stack

import (
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsdynamodb"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsiam"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslogs"
	"github.com/aws/aws-cdk-go/awscdk/v2/awss3"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssecretsmanager"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"

	"github.com/moveleads/partnerapi/shared/app/pipeline/idempotency"
	"github.com/moveleads/partnerapi/shared/spec/manifest"
	"github.com/moveleads/partnerapi/shared/spec/settings"
	"github.com/moveleads/partnerapi/shared/spec/table"
)

// functionTag is the tag key that names, on every resource of a function
// (function, role, log group, alarms), the function's manifest slug.
const functionTag = "function"

// memoryMB is every function's memory. The handlers are CPU-bound (JSON,
// TLS to DynamoDB, SHA-256 of the key, HMAC of cursors) and Lambda allots
// CPU in proportion to memory: at 128 MB a cold start's TLS handshakes
// are CPU-starved. Doubling memory doubles the price per millisecond, but
// CPU-bound work finishes in about half the time, so the cost per request
// stays roughly flat while latency drops. Measure before going higher.
const memoryMB = 256

// timeout returns f's timeout.
//
// An HTTP function's request normally takes well under a second: one
// UpdateItem (authenticate and count), one read or write, perhaps the
// cursor secret on a cold start, each with the SDK's retries. 10 s leaves
// room for those retries yet frees a stuck invocation long before API
// Gateway's 30 s integration timeout. A function serving an idempotent
// route may also wait for a concurrent duplicate for up to
// idempotency.DefaultWait (10 s) and then do its own work, so it gets that
// wait on top. Its timeout also bounds how long a crashed request's claim
// blocks its Idempotency-Key (the claim expires at the invocation's
// deadline), so it is not longer than needed. The agent tool server
// (manifest.AgentTools) is such a function too: its route honours no
// Idempotency-Key header, but its tools pass their idempotency_key
// argument to the idempotent operations they run (see waitsForDuplicates).
//
// A stream-triggered function gets streamRecordBudget per record of a full
// batch (10 records: 5 minutes), because it handles the records one after
// another: a batch that does not fit would time out on slow partner
// endpoints alone, which Lambda counts as an error (ErrorsAlarm) and
// answers by retrying the whole batch, spending the mapping's retry
// attempts on records that were fine. A schedule-triggered function gets
// scheduleTimeout (one minute).
//
// An S3-triggered function gets s3Timeout (one minute): one object per
// invocation, and for a survey frame one detection with its retries
// (manifest.DetectTimeout, 40 s) before the survey is settled.
func timeout(f manifest.Function) time.Duration {
	switch {
	case f.Stream != nil:
		return min(time.Duration(f.Stream.BatchSize)*streamRecordBudget, maxTimeout)
	case f.Schedule != nil:
		return scheduleTimeout
	case f.S3 != nil:
		return s3Timeout
	case f.Queue != nil:
		return queueTimeout
	}
	d := 10 * time.Second
	if waitsForDuplicates(f) {
		return d + idempotency.DefaultWait
	}
	return d
}

// waitsForDuplicates reports whether a request to f may wait for a
// concurrent duplicate with the same idempotency key: one of its routes is
// idempotent, or it serves the agent tool server (manifest.AgentTools),
// whose tools run the operations of manifest.AgentToolOperations with the
// idempotency key the agent gives, and some of those are idempotent.
func waitsForDuplicates(f manifest.Function) bool {
	for _, r := range f.HTTP {
		if r.Idempotent {
			return true
		}
		if r.Operation == manifest.AgentTools {
			for _, op := range manifest.AgentToolOperations {
				if manifest.ByOperation(op).Idempotent {
					return true
				}
			}
		}
	}
	return false
}

// function is a deployed function of the manifest: its entry, its Lambda
// function, its execution role, and the construct that holds them (and
// its trigger's resources), tagged with its slug.
type function struct {
	spec  manifest.Function
	fn    awslambda.Function
	role  awsiam.Role
	scope constructs.Construct
}

// resources are what the functions' grants and environment name: the
// table, the clip bucket, the secrets, the API's public base URL (its
// origin, from which capture links are made), and the browser origins the
// agent tool server allows (Props.AgentToolsAllowedOrigins).
type resources struct {
	table        awsdynamodb.Table
	events       awsdynamodb.Table
	clips        awss3.Bucket
	secrets      map[string]awssecretsmanager.Secret
	baseURL      *string
	agentOrigins []string
}

// newFunctions declares one function per manifest entry, each with its own
// role that holds exactly the grants its entry calls for. Triggers are
// connected separately (connectTriggers).
func newFunctions(s awscdk.Stack, sz sizing, p Props, res resources) []function {
	var out []function
	for _, f := range p.functions() {
		scope := constructs.NewConstruct(s, jsii.String(f.Slug))
		awscdk.Tags_Of(scope).Add(jsii.String(functionTag), jsii.String(f.Slug), nil)

		logs := awslogs.NewLogGroup(scope, jsii.String("Logs"), &awslogs.LogGroupProps{
			Retention: sz.logRetention, RemovalPolicy: sz.removal,
		})
		// An explicit role instead of the default one with the
		// AWSLambdaBasicExecutionRole managed policy, which may write to
		// any log group in the account.
		role := awsiam.NewRole(scope, jsii.String("Role"), &awsiam.RoleProps{
			AssumedBy:   awsiam.NewServicePrincipal(jsii.String("lambda.amazonaws.com"), nil),
			Description: jsii.String("Execution role of the " + f.Slug + " function"),
		})
		role.AddToPrincipalPolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
			Sid:       jsii.String("WriteOwnLogs"),
			Actions:   jsii.Strings("logs:CreateLogStream", "logs:PutLogEvents"),
			Resources: jsii.Strings(*logs.LogGroupArn()),
		}))

		env := environment(f, res)
		for _, name := range f.Secrets {
			sec := res.secrets[name]
			role.AddToPrincipalPolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
				Actions:   jsii.Strings("secretsmanager:GetSecretValue"),
				Resources: jsii.Strings(*sec.SecretArn()),
			}))
		}
		for _, g := range tableGrants(f) {
			tbl := res.table
			if g.events {
				tbl = res.events
			}
			role.AddToPrincipalPolicy(g.statement(tbl))
		}
		for _, g := range bucketGrants(f) {
			role.AddToPrincipalPolicy(g.statement(res.clips))
		}
		suppressObjectWildcards(s, res.clips, role, f)
		if f.Detect {
			role.AddToPrincipalPolicy(detectGrant())
			suppress(role, "AwsSolutions-IAM5", "rekognition:DetectLabels supports no resource-level permissions "+
				"(the Service Authorization Reference lists no resource type for it): the action is granted on \"*\", "+
				"and no other Rekognition action is.", "Resource::*")
		}

		fn := awslambda.NewFunction(scope, jsii.String("Function"), &awslambda.FunctionProps{
			Description:   jsii.String(f.Description()),
			Code:          awslambda.Code_FromAsset(jsii.String(assetPath(p.AssetDir, f.Slug)), nil),
			Handler:       jsii.String("bootstrap"),
			Runtime:       awslambda.Runtime_PROVIDED_AL2023(),
			Architecture:  awslambda.Architecture_ARM_64(),
			MemorySize:    jsii.Number(memoryMB),
			Timeout:       awscdk.Duration_Seconds(jsii.Number(timeout(f).Seconds())),
			Environment:   &env,
			Role:          role,
			LogGroup:      logs,
			LoggingFormat: awslambda.LoggingFormat_JSON,
		})
		out = append(out, function{spec: f, fn: fn, role: role, scope: scope})
	}
	return out
}

// s3Timeout is the timeout of an S3-triggered function (see timeout).
const s3Timeout = time.Minute

// detectGrant is the one Rekognition permission of a function whose
// manifest entry sets Detect: DetectLabels on image bytes the function
// sends (never on S3 objects Rekognition would read itself), on "*"
// because the action has no resource type.
func detectGrant() awsiam.PolicyStatement {
	return awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
		Sid:       jsii.String("DetectLabelsOnFrames"),
		Actions:   jsii.Strings("rekognition:DetectLabels"),
		Resources: jsii.Strings("*"),
	})
}

// environment is f's environment: the table's name always; each listed
// secret's ARN (never its value); the clip bucket's name when f touches
// the bucket (settings.ClipBucket); the API's public base URL when f makes
// capture, video or quote page links or serves a token page
// (settings.PublicBaseURL, see needsBaseURL); the allowed browser origins,
// comma-separated, when f serves the agent tool server
// (manifest.Function.TakesAgentKey) and the operator listed some
// (settings.AgentToolsAllowedOrigins; unset, the function allows none).
// Nothing else: in particular never settings.StripeAPIURL, which points
// local stacks at stripe-mock.
func environment(f manifest.Function, res resources) map[string]*string {
	env := map[string]*string{settings.Table: res.table.TableName()}
	if f.UsesEvents() {
		env[settings.EventsTable] = res.events.TableName()
	}
	for _, name := range f.Secrets {
		env[secretEnv[name]] = res.secrets[name].SecretArn()
	}
	if usesBucket(f) {
		env[settings.ClipBucket] = res.clips.BucketName()
	}
	if needsBaseURL(f) {
		env[settings.PublicBaseURL] = res.baseURL
	}
	if f.TakesAgentKey() && len(res.agentOrigins) > 0 {
		env[settings.AgentToolsAllowedOrigins] = jsii.String(strings.Join(res.agentOrigins, ","))
	}
	return env
}

// usesBucket reports whether f reads or writes the clip bucket, or is
// started by it.
func usesBucket(f manifest.Function) bool {
	return len(f.Bucket.Read) > 0 || len(f.Bucket.Write) > 0 || f.S3 != nil
}

// needsBaseURL reports whether f needs the API's public base URL: it mints
// capture, video or quote page links (it writes their tokens' lookup
// records: getSurveyLink, createSurveyVideoAccess, createQuote, and
// createDeposit, whose checkout returns the customer to the quote page) or
// serves a page reached through a token in its path (the capture page,
// whose Content-Security-Policy and calls name its own origin; the viewer
// page; the quote page) or the dashboard (its passkeys' relying party and
// the Origin of its state changes). The manifest has no field for a function's
// settings yet, so the rule lives here and in shared/checks/samcheck, each pinned
// by tests to the functions that need it.
func needsBaseURL(f manifest.Function) bool {
	for _, k := range linkTokenKeys {
		if slices.Contains(f.Table.Write, k) {
			return true
		}
	}
	for _, r := range f.HTTP {
		if r.Auth.TokenInPath() || r.Auth == manifest.AuthDashboardSession {
			return true
		}
	}
	return false
}

// linkTokenKeys are the key patterns of the lookup records of the tokens
// that links carry (capture, video and quote page links): a function that
// writes one mints a link (see needsBaseURL).
var linkTokenKeys = []string{table.CaptureTokenKeys, table.ViewTokenKeys, table.QuoteTokenKeys}

// grant is one statement of table permissions.
type grant struct {
	sid     string
	actions []string
	// index grants on gsi1's ARN instead of the table's; with events, on
	// each of the events table's listing indexes (table.EventIndexes).
	index bool
	// leadingKeys, when set, limits the grant to items whose partition
	// key matches one of these patterns (IAM StringLike, table.*Keys).
	leadingKeys []string
	// events grants on the events table instead of the main one.
	events bool
}

// tableGrants derives a function's table permissions from its manifest
// entry:
//
//   - a function serving a partner-key route authenticates and counts each
//     request with one conditional UpdateItem on its key's record
//     (AuthenticateAndCount, limited to table.AuthKeys);
//   - Table.Get: GetItem on the table (ReadItems);
//   - Table.Query: Query on the gsi1 index (QueryIndex);
//   - Table.QueryItems: Query on the table itself (QueryItems), to read
//     one partition (a survey and its clips). Like GetItem it is not
//     limited by leading key: it reads nothing GetItem could not;
//   - Table.Write: PutItem, UpdateItem and ConditionCheckItem limited to
//     exactly those leading key patterns (WriteItems), so createLead may
//     write leads and idempotency records but never a key record or a
//     partner profile. ConditionCheckItem is what a TransactWriteItems
//     needs for a ConditionCheck element (an open of a video link checks
//     its survey's live set that way); it writes nothing, but it is
//     granted with the writes it guards and on the same keys, so that a
//     transaction may check only items the function could also write.
//     table.EventKeys is granted so on the events table instead
//     (WriteEvents), the only items it holds;
//   - Table.ReadEvents: GetItem on the events table (ReadEvents) and
//     Query on its listing indexes (QueryEventIndexes): listEvents and
//     getEvent read only the tenant's own events by key, so like GetItem
//     they are not limited by leading key.
//
// A function with none of these (route-not-found) gets no table grant.
func tableGrants(f manifest.Function) []grant {
	var gs []grant
	if servesPartnerKeys(f) {
		gs = append(gs, grant{sid: "AuthenticateAndCount", actions: []string{"dynamodb:UpdateItem"},
			leadingKeys: []string{table.AuthKeys}})
	}
	if f.Table.Get {
		gs = append(gs, grant{sid: "ReadItems", actions: []string{"dynamodb:GetItem"}})
	}
	if f.Table.Query {
		gs = append(gs, grant{sid: "QueryIndex", actions: []string{"dynamodb:Query"}, index: true})
	}
	if f.Table.QueryItems {
		gs = append(gs, grant{sid: "QueryItems", actions: []string{"dynamodb:Query"}})
	}
	if main := slices.DeleteFunc(slices.Clone(f.Table.Write), func(k string) bool { return k == table.EventKeys }); len(main) > 0 {
		gs = append(gs, grant{sid: "WriteItems", actions: writeItemActions, leadingKeys: main})
	}
	if f.WritesEvents() {
		gs = append(gs, grant{sid: "WriteEvents", actions: writeItemActions, leadingKeys: []string{table.EventKeys}, events: true})
	}
	if f.Table.ReadEvents {
		gs = append(gs, grant{sid: "ReadEvents", actions: []string{"dynamodb:GetItem"}, events: true},
			grant{sid: "QueryEventIndexes", actions: []string{"dynamodb:Query"}, events: true, index: true})
	}
	return gs
}

// writeItemActions are the actions of a WriteItems grant (tableGrants).
var writeItemActions = []string{"dynamodb:PutItem", "dynamodb:UpdateItem", "dynamodb:ConditionCheckItem"}

// servesPartnerKeys reports whether any of f's routes authenticates a
// partner API key (and counts it): a Bearer key (AuthPartnerKey) or the
// agent tool server's X-Partner-Key (AuthAgentKey), see
// manifest.AuthKind.PartnerKey.
func servesPartnerKeys(f manifest.Function) bool {
	for _, r := range f.HTTP {
		if r.Auth.PartnerKey() {
			return true
		}
	}
	return false
}

// statement is g as an IAM statement on tbl.
func (g grant) statement(tbl awsdynamodb.Table) awsiam.PolicyStatement {
	res := []string{*tbl.TableArn()}
	switch {
	case g.index && g.events:
		res = nil
		for _, ix := range table.EventIndexes {
			res = append(res, *tbl.TableArn()+"/index/"+ix.Name)
		}
	case g.index:
		res[0] += "/index/" + table.GSI1.Name
	}
	ps := &awsiam.PolicyStatementProps{
		Sid:       jsii.String(g.sid),
		Actions:   jsii.Strings(g.actions...),
		Resources: jsii.Strings(res...),
	}
	if len(g.leadingKeys) > 0 {
		ps.Conditions = &map[string]interface{}{
			"ForAllValues:StringLike": map[string]interface{}{"dynamodb:LeadingKeys": g.leadingKeys},
		}
	}
	return awsiam.NewPolicyStatement(ps)
}

// bucketGrant is one statement of clip-bucket permissions: actions on the
// objects under the key prefixes, never on the bucket itself.
type bucketGrant struct {
	sid      string
	action   string
	prefixes []string
	// bucket: the action is on the bucket itself, not its objects.
	bucket bool
}

// bucketGrants derives a function's bucket permissions from its manifest
// entry: Bucket.Read is s3:GetObject (which also allows HeadObject and
// presigned GETs) and Bucket.Write is s3:PutObject (presigned PUTs), each
// on arn:aws:s3:::<bucket>/<prefix>* of its prefixes only. A reader also
// gets s3:ListBucket on the bucket: S3 answers a HeadObject of a missing
// key 403 instead of 404 to a caller without it, and finishing a survey
// asks which announced clips never arrived (a 403 there would be a
// failure, not "not uploaded"). The bucket holds only clips, whose keys
// carry no secret.
func bucketGrants(f manifest.Function) []bucketGrant {
	var gs []bucketGrant
	if len(f.Bucket.Read) > 0 {
		gs = append(gs, bucketGrant{sid: "ReadObjects", action: "s3:GetObject", prefixes: f.Bucket.Read},
			bucketGrant{sid: "ListForMissingKeys", action: "s3:ListBucket", bucket: true})
	}
	if len(f.Bucket.Write) > 0 {
		gs = append(gs, bucketGrant{sid: "WriteObjects", action: "s3:PutObject", prefixes: f.Bucket.Write})
	}
	return gs
}

// statement is g as an IAM statement on b's objects.
func (g bucketGrant) statement(b awss3.IBucket) awsiam.PolicyStatement {
	if g.bucket {
		return awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
			Sid: jsii.String(g.sid), Actions: jsii.Strings(g.action), Resources: &[]*string{b.BucketArn()},
		})
	}
	res := make([]*string, len(g.prefixes))
	for i, p := range g.prefixes {
		res[i] = b.ArnForObjects(jsii.String(p + "*"))
	}
	return awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
		Sid:       jsii.String(g.sid),
		Actions:   jsii.Strings(g.action),
		Resources: &res,
	})
}

// suppressObjectWildcards records on role why the object ARNs of f's
// bucket grants end in a wildcard (cdk-nag AwsSolutions-IAM5, one finding
// per prefix): object actions name keys, the manifest grants key prefixes
// (clips/), and clips get fresh keys per upload.
func suppressObjectWildcards(s awscdk.Stack, clips awss3.Bucket, role awsiam.Role, f manifest.Function) {
	bucketID := *s.GetLogicalId(clips.Node().DefaultChild().(awscdk.CfnElement))
	var applies []string
	for _, g := range bucketGrants(f) {
		for _, p := range g.prefixes {
			applies = append(applies, "Resource::<"+bucketID+".Arn>/"+p+"*")
		}
	}
	if len(applies) == 0 {
		return
	}
	slices.Sort(applies)
	suppress(role, "AwsSolutions-IAM5",
		"Object-level S3 actions limited to the key prefixes the function manifest grants (survey clips get fresh "+
			"keys per upload); nothing is granted on the bucket itself.",
		slices.Compact(applies)...)
}
