package stack

import (
	"fmt"
	"maps"
	"slices"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsdynamodb"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsiam"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslogs"
	"github.com/aws/aws-cdk-go/awscdk/v2/awss3"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssecretsmanager"
	"github.com/aws/jsii-runtime-go"

	"github.com/moveleads/partnerapi/shared/spec/manifest"
	"github.com/moveleads/partnerapi/shared/spec/settings"
	"github.com/moveleads/partnerapi/shared/spec/table"
)

// newTable declares the single table from package table: string keys,
// every GSI projecting all attributes, the TTL attribute, and no stream:
// only the events table (newEventsTable) streams, so that the dispatcher
// never reads past the rate-limit count of every request.
//
// Encryption uses the AWS-managed key (aws/dynamodb) rather than a
// customer-managed one: reads and writes need no kms grant on each
// function role, there is no key policy to get wrong and no monthly key
// fee, and key use still shows in CloudTrail. A customer-managed key is
// worth it only to share the table cross-account or to revoke access by
// disabling the key, neither of which we do.
func newTable(s awscdk.Stack, sz sizing) awsdynamodb.Table {
	str := awsdynamodb.AttributeType_STRING
	t := awsdynamodb.NewTable(s, jsii.String("Table"), &awsdynamodb.TableProps{
		PartitionKey: &awsdynamodb.Attribute{Name: jsii.String(table.PK), Type: str},
		SortKey:      &awsdynamodb.Attribute{Name: jsii.String(table.SK), Type: str},
		BillingMode:  awsdynamodb.BillingMode_PAY_PER_REQUEST,
		PointInTimeRecoverySpecification: &awsdynamodb.PointInTimeRecoverySpecification{
			PointInTimeRecoveryEnabled: jsii.Bool(true),
		},
		TimeToLiveAttribute: jsii.String(table.TTLAttribute),
		Encryption:          awsdynamodb.TableEncryption_AWS_MANAGED,
		DeletionProtection:  jsii.Bool(sz.deletionProtection),
		RemovalPolicy:       sz.removal,
	})
	for _, ix := range table.Indexes {
		t.AddGlobalSecondaryIndex(&awsdynamodb.GlobalSecondaryIndexProps{
			IndexName:      jsii.String(ix.Name),
			PartitionKey:   &awsdynamodb.Attribute{Name: jsii.String(ix.PK), Type: str},
			SortKey:        &awsdynamodb.Attribute{Name: jsii.String(ix.SK), Type: str},
			ProjectionType: awsdynamodb.ProjectionType_ALL,
		})
	}
	awscdk.NewCfnOutput(s, jsii.String("TableName"), &awscdk.CfnOutputProps{
		Value: t.TableName(), Description: jsii.String("DynamoDB table (TABLE_NAME of every function; opctl)"),
	})
	return t
}

// newEventsTable declares the events table (table.EventsName locally):
// the webhook events owed, under the main table's keys and TTL attribute,
// the listing indexes (table.EventIndexes), and the stream with the schema's view (table.StreamView),
// which the stream-triggered functions read. Encryption, recovery and
// removal as the main table's (newTable).
func newEventsTable(s awscdk.Stack, sz sizing) awsdynamodb.Table {
	str := awsdynamodb.AttributeType_STRING
	t := awsdynamodb.NewTable(s, jsii.String("EventsTable"), &awsdynamodb.TableProps{
		PartitionKey: &awsdynamodb.Attribute{Name: jsii.String(table.PK), Type: str},
		SortKey:      &awsdynamodb.Attribute{Name: jsii.String(table.SK), Type: str},
		BillingMode:  awsdynamodb.BillingMode_PAY_PER_REQUEST,
		PointInTimeRecoverySpecification: &awsdynamodb.PointInTimeRecoverySpecification{
			PointInTimeRecoveryEnabled: jsii.Bool(true),
		},
		TimeToLiveAttribute: jsii.String(table.TTLAttribute),
		Stream:              awsdynamodb.StreamViewType(table.StreamView),
		Encryption:          awsdynamodb.TableEncryption_AWS_MANAGED,
		DeletionProtection:  jsii.Bool(sz.deletionProtection),
		RemovalPolicy:       sz.removal,
	})
	for _, ix := range table.EventIndexes {
		t.AddGlobalSecondaryIndex(&awsdynamodb.GlobalSecondaryIndexProps{
			IndexName:      jsii.String(ix.Name),
			PartitionKey:   &awsdynamodb.Attribute{Name: jsii.String(ix.PK), Type: str},
			SortKey:        &awsdynamodb.Attribute{Name: jsii.String(ix.SK), Type: str},
			ProjectionType: awsdynamodb.ProjectionType_ALL,
		})
	}
	awscdk.NewCfnOutput(s, jsii.String("EventsTableName"), &awscdk.CfnOutputProps{
		Value: t.TableName(), Description: jsii.String("DynamoDB events table, whose stream feeds the webhook dispatcher (EVENTS_TABLE_NAME; opctl)"),
	})
	return t
}

// clipRetention is how long a survey clip is kept: 90 days after upload
// the bucket's lifecycle deletes it. That covers the move itself (leads
// are typically surveyed weeks ahead of the move date) and then a dispute
// window in which the carrier can show what the customer filmed (damage
// and inventory claims are normally raised within 60 days of delivery).
// After that, the survey's inventory and estimate (in the table) remain;
// the video does not. Changing it is one constant (README "Deploying").
const clipRetention = 90

// clipCORSMaxAge is how long, in seconds, a browser may cache the clip
// bucket's answer to a preflight: long enough for one capture session to
// upload its clips with one preflight, short enough that a changed rule
// applies within minutes.
const clipCORSMaxAge = 600

// clipBucket is the survey-clip bucket and the log group of the handler
// CDK uses to set its notifications.
type clipBucket struct {
	bucket     awss3.Bucket
	notifyLogs awslogs.LogGroup
}

// newClipBucket declares the bucket that survey clips are uploaded to
// through presigned URLs (and the functions that record a signed quote
// put its signature image in, under manifest.SignaturePrefix), and the
// bucket its server access logs go to.
// origin is the capture page's origin, the API's public base URL: the one
// origin whose scripts may upload to the bucket (CORS).
//
// Both use S3-managed keys: a presigned PUT under SSE-KMS would need
// kms:GenerateDataKey on the signing role and a KMS request per part,
// for no gain in who can read the objects (the bucket policy and IAM
// decide that); S3-managed keys are also what a server-access-log target
// requires. Versioning is off: clips are written once under fresh
// keys, and prod keeps the bucket on stack deletion.
func newClipBucket(s awscdk.Stack, sz sizing, origin *string) clipBucket {
	// The log bucket has no access log of its own (that would loop);
	// cdk-nag's S1 accepts a bucket that is another bucket's log target.
	logs := awss3.NewBucket(s, jsii.String("ClipAccessLogs"), &awss3.BucketProps{
		BlockPublicAccess: awss3.BlockPublicAccess_BLOCK_ALL(),
		Encryption:        awss3.BucketEncryption_S3_MANAGED,
		EnforceSSL:        jsii.Bool(true),
		ObjectOwnership:   awss3.ObjectOwnership_BUCKET_OWNER_ENFORCED,
		LifecycleRules: &[]*awss3.LifecycleRule{{
			Id: jsii.String("expire-access-logs"), Expiration: awscdk.Duration_Days(jsii.Number(365)),
		}},
		RemovalPolicy: sz.removal,
	})

	notifyLogs, notifyRole := notificationsHandlerRole(s, sz)
	b := awss3.NewBucket(s, jsii.String("Clips"), &awss3.BucketProps{
		BlockPublicAccess:      awss3.BlockPublicAccess_BLOCK_ALL(),
		Encryption:             awss3.BucketEncryption_S3_MANAGED,
		EnforceSSL:             jsii.Bool(true),
		ObjectOwnership:        awss3.ObjectOwnership_BUCKET_OWNER_ENFORCED,
		ServerAccessLogsBucket: logs,
		ServerAccessLogsPrefix: jsii.String("clips/"),
		// Only what the capture page, served by the API at origin, does
		// with a presigned URL: PUT a clip with the signed Content-Type
		// and If-None-Match (the URL only creates: s3store.PresignUpload).
		// It never reads clips back (its previews are local), and the
		// signed Content-Length is set by the browser, not by the script.
		// ETag is exposed so that the page can confirm what S3 stored.
		Cors: &[]*awss3.CorsRule{{
			Id:             jsii.String("capture-page"),
			AllowedMethods: &[]awss3.HttpMethods{awss3.HttpMethods_PUT},
			AllowedOrigins: &[]*string{origin},
			AllowedHeaders: jsii.Strings("Content-Type", "If-None-Match"),
			ExposedHeaders: jsii.Strings("ETag"),
			MaxAge:         jsii.Number(clipCORSMaxAge),
		}},
		// Only clips expire. Signed quotes' signature images
		// (manifest.SignaturePrefix) are the evidence of a binding
		// acceptance and are kept: no expiring rule may name them, nor
		// the whole bucket (TestClipLifecycle).
		LifecycleRules: &[]*awss3.LifecycleRule{
			{
				// See clipRetention.
				Id:         jsii.String("expire-clips"),
				Prefix:     jsii.String(manifest.ClipPrefix),
				Expiration: awscdk.Duration_Days(jsii.Number(clipRetention)),
			},
			{
				// An incomplete multipart upload is billed until it is
				// aborted. Uploads are presigned and valid for at most an
				// hour (s3store.MaxUploadTTL): one still incomplete after
				// a day has been abandoned. Whole bucket: it deletes no
				// stored object, signatures included.
				Id:                                  jsii.String("abort-incomplete-uploads"),
				AbortIncompleteMultipartUploadAfter: awscdk.Duration_Days(jsii.Number(1)),
			},
		},
		NotificationsHandlerRole: notifyRole,
		RemovalPolicy:            sz.removal,
	})
	awscdk.NewCfnOutput(s, jsii.String("ClipBucketName"), &awscdk.CfnOutputProps{
		Value: b.BucketName(), Description: jsii.String("Bucket for survey clips (presigned uploads)"),
	})
	return clipBucket{bucket: b, notifyLogs: notifyLogs}
}

// notificationsHandlerRole declares the role and log group of the function
// CDK uses to set the clip bucket's notifications (a custom resource that
// runs only during deployments). CDK would give it a role with the
// AWSLambdaBasicExecutionRole managed policy, which may write to any log
// group in the account; like every function of the stack, it gets a role
// that may write only to its own log group instead. CDK attaches the
// managed policy to whatever role it is given, so the property is removed
// from the template; the handler's own grant (s3:PutBucketNotification on
// the clip bucket) is added by CDK.
func notificationsHandlerRole(s awscdk.Stack, sz sizing) (awslogs.LogGroup, awsiam.Role) {
	logs := awslogs.NewLogGroup(s, jsii.String("ClipNotificationsLogs"), &awslogs.LogGroupProps{
		Retention: sz.logRetention, RemovalPolicy: sz.removal,
	})
	role := awsiam.NewRole(s, jsii.String("ClipNotificationsRole"), &awsiam.RoleProps{
		AssumedBy:   awsiam.NewServicePrincipal(jsii.String("lambda.amazonaws.com"), nil),
		Description: jsii.String("Execution role of the handler that sets the clip bucket's notifications"),
	})
	role.AddToPrincipalPolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
		Sid:       jsii.String("WriteOwnLogs"),
		Actions:   jsii.Strings("logs:CreateLogStream", "logs:PutLogEvents"),
		Resources: jsii.Strings(*logs.LogGroupArn()),
	}))
	role.Node().DefaultChild().(awsiam.CfnRole).AddPropertyDeletionOverride(jsii.String("ManagedPolicyArns"))
	suppress(role, "AwsSolutions-IAM4",
		"CDK attaches AWSLambdaBasicExecutionRole to the bucket-notifications handler's role; the property is deleted "+
			"from the template (cdk-nag reads it before overrides) and the role may write only to its own log group.",
		"Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole")
	return logs, role
}

// secretEnv maps each secret name a function may list to the environment
// variable that hands its ARN to the function (settings.SecretVar + "_ARN",
// which the functions read). Each name is a manifest.Secret* name with an
// entry here and in generatedSecrets (keys the stack makes) or
// operatorSecrets (values the operator puts in), and a grant derived from
// the functions' Secrets; the value itself never appears in a function's
// environment.
var secretEnv = map[string]string{
	manifest.SecretCursor:         settings.CursorSecretARN,
	manifest.SecretWebhookSealing: settings.WebhookSealingKeyARN,
	manifest.SecretStripeKeys:     settings.StripeAPIKeysARN,
	manifest.SecretStripeWebhook:  settings.StripeWebhookSecretsARN,
	manifest.SecretCaptureLink:    settings.CaptureLinkKeyARN,
}

// generatedSecret is a secret of 32 random bytes that CloudFormation
// generates as 64 hex characters (awsenv.DecodeSecret hex-decodes the
// value of every secret that is not text, settings.SecretIsText), with why
// it is not rotated automatically (cdk-nag AwsSolutions-SMG4).
type generatedSecret struct {
	id          string // the construct id (keep: it names the deployed secret's logical id)
	description string
	noRotation  string
}

// generatedSecrets declares the secrets of secretEnv the stack generates.
var generatedSecrets = map[string]generatedSecret{
	manifest.SecretCursor: {
		id:          "CursorSigningKey",
		description: "HMAC key that signs listLeads cursors (64 hex digits = 32 bytes)",
		noRotation: "Rotating the cursor key invalidates every next_cursor in flight; the functions verify with one key. " +
			"Rotation is a manual, announced operation until cursors carry a key id.",
	},
	manifest.SecretWebhookSealing: {
		id:          "WebhookSealingKey",
		description: "AES-256 key that seals webhook endpoints' signing secrets in the table (64 hex digits = 32 bytes)",
		noRotation: "The key wraps (AES-256-GCM) every webhook endpoint's signing secret stored in the table, and the " +
			"functions open them with one key: a new value would leave every sealed secret unreadable, so no webhook " +
			"could be signed, until each is re-sealed. Rotation is a manual operation (a re-seal pass under the old and " +
			"new keys) until sealed values name their key; the signing secrets themselves rotate per endpoint.",
	},
	manifest.SecretCaptureLink: {
		id:          "CaptureLinkKey",
		description: "HMAC key getSurveyLink derives capture tokens from under an Idempotency-Key (64 hex digits = 32 bytes)",
		noRotation: "A replay of getSurveyLink under an Idempotency-Key (kept 24 h) computes its capture link again from this key: " +
			"a new value makes replays of earlier keys answer links that do not open. Links themselves are revoked by their stored " +
			"hash, never by rotating the key; rotation is a manual operation, best 24 h after the last keyed call.",
	},
}

// operatorSecret is a secret whose value comes from outside AWS (Stripe's
// dashboard), as JSON text by mode (settings.SecretIsText). The stack
// creates it holding operatorPlaceholder and outputs its ARN; the operator
// puts the real value in with `aws secretsmanager put-secret-value`
// (docs/OPERATIONS-DEPOSITS.md). CloudFormation sets SecretString only when
// the template's value changes, so later deploys leave the operator's
// value alone as long as the placeholder stays as it is.
type operatorSecret struct {
	id          string // the construct id (keep: it names the deployed secret's logical id)
	description string
	output      string // the stack output that names the secret's ARN
	noRotation  string
}

// operatorPlaceholder is an operator secret's value until the operator
// puts one in: both modes empty, which the functions treat as "not
// configured" for that mode. It is a shape, not a secret, so it may stand
// in the template; never change it (see operatorSecret).
const operatorPlaceholder = `{"test":"","live":""}`

// operatorSecrets declares the secrets of secretEnv the operator fills.
var operatorSecrets = map[string]operatorSecret{
	manifest.SecretStripeKeys: {
		id: "StripeApiKeys",
		description: `The platform's Stripe secret API keys by mode, JSON {"test": "sk_test_...", "live": "sk_live_..."}; ` +
			"put by the operator (docs/OPERATIONS-DEPOSITS.md)",
		output: "StripeApiKeysArn",
		noRotation: "The value is the platform's Stripe secret keys, issued by Stripe, not generated here: Secrets Manager " +
			"cannot roll them. They are rolled in Stripe's dashboard and put here by the operator " +
			"(docs/OPERATIONS-DEPOSITS.md).",
	},
	manifest.SecretStripeWebhook: {
		id: "StripeWebhookSecrets",
		description: `The signing secrets of the Stripe Connect webhook endpoints by mode, JSON {"test": "whsec_...", ` +
			`"live": "whsec_..."}; put by the operator (docs/OPERATIONS-DEPOSITS.md)`,
		output: "StripeWebhookSecretsArn",
		noRotation: "The values are the webhook endpoints' signing secrets, issued by Stripe when an endpoint is " +
			"created or its secret rolled in Stripe's dashboard; Secrets Manager cannot roll them. The operator puts " +
			"the new value here (docs/OPERATIONS-DEPOSITS.md).",
	},
}

// checkSecrets refuses a function that names a secret the stack does not
// deploy, so that adding one to the manifest without infra fails at synth,
// and a secret deployed the wrong way: a text secret (settings.
// SecretIsText) must be one the operator fills, any other a generated key.
func checkSecrets(fns []manifest.Function) error {
	for _, f := range fns {
		for _, name := range f.Secrets {
			_, env := secretEnv[name]
			_, gen := generatedSecrets[name]
			_, op := operatorSecrets[name]
			if !env || gen == op {
				return fmt.Errorf("function %s reads secret %q, which the stack does not deploy", f.Slug, name)
			}
			if text := settings.SecretIsText(name); text != op {
				return fmt.Errorf("function %s reads secret %q: text %v, but the stack deploys it as %s", f.Slug, name, text,
					map[bool]string{true: "text the operator puts in", false: "a generated hex key"}[op])
			}
		}
	}
	return nil
}

// newSecrets declares every secret of generatedSecrets, generated by
// CloudFormation so that no value passes through this code or the
// template, and every secret of operatorSecrets, holding
// operatorPlaceholder until the operator puts its value in.
func newSecrets(s awscdk.Stack, sz sizing) map[string]awssecretsmanager.Secret {
	out := map[string]awssecretsmanager.Secret{}
	for _, name := range slices.Sorted(maps.Keys(generatedSecrets)) {
		g := generatedSecrets[name]
		sec := awssecretsmanager.NewSecret(s, jsii.String(g.id), &awssecretsmanager.SecretProps{
			Description: jsii.String(g.description),
			// 64 characters from 0-9a-f: awsenv hex-decodes the value into
			// the 32-byte key (leads' cursor signer, webhook.NewSealer).
			// Every non-hex class is excluded; not requiring each class
			// keeps the draw uniform.
			GenerateSecretString: &awssecretsmanager.SecretStringGenerator{
				PasswordLength:          jsii.Number(64),
				ExcludePunctuation:      jsii.Bool(true),
				ExcludeUppercase:        jsii.Bool(true),
				IncludeSpace:            jsii.Bool(false),
				ExcludeCharacters:       jsii.String("ghijklmnopqrstuvwxyz"),
				RequireEachIncludedType: jsii.Bool(false),
			},
			RemovalPolicy: sz.removal,
		})
		suppress(sec, "AwsSolutions-SMG4", g.noRotation)
		out[name] = sec
	}
	for _, name := range slices.Sorted(maps.Keys(operatorSecrets)) {
		o := operatorSecrets[name]
		sec := awssecretsmanager.NewSecret(s, jsii.String(o.id), &awssecretsmanager.SecretProps{
			Description: jsii.String(o.description),
			// A placeholder, not a value (see operatorPlaceholder).
			SecretStringValue: awscdk.SecretValue_UnsafePlainText(jsii.String(operatorPlaceholder)),
			RemovalPolicy:     sz.removal,
		})
		suppress(sec, "AwsSolutions-SMG4", o.noRotation)
		awscdk.NewCfnOutput(s, jsii.String(o.output), &awscdk.CfnOutputProps{
			Value: sec.SecretArn(),
			Description: jsii.String("Secret " + name + ": put its JSON value with aws secretsmanager put-secret-value " +
				"(docs/OPERATIONS-DEPOSITS.md)"),
		})
		out[name] = sec
	}
	// opctl webhook add|rotate-secret seal endpoints' secrets with it
	// (WEBHOOK_SEALING_KEY_ARN): the ARN, never the value.
	awscdk.NewCfnOutput(s, jsii.String("WebhookSealingKeyArn"), &awscdk.CfnOutputProps{
		Value:       out[manifest.SecretWebhookSealing].SecretArn(),
		Description: jsii.String("Set WEBHOOK_SEALING_KEY_ARN to this for opctl webhook add and rotate-secret"),
	})
	return out
}
