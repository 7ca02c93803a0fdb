package stack

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2/assertions"
	"github.com/aws/jsii-runtime-go"

	"github.com/moveleads/partnerapi/shared/spec/manifest"
	"github.com/moveleads/partnerapi/shared/spec/settings"
	"github.com/moveleads/partnerapi/shared/spec/table"
)

func TestTableFollowsSchema(t *testing.T) {
	s := devStack(t)
	key := func(name, typ string) map[string]any { return map[string]any{"AttributeName": name, "KeyType": typ} }
	var gsis []any
	for _, ix := range table.Indexes {
		gsis = append(gsis, map[string]any{
			"IndexName":  ix.Name,
			"KeySchema":  []any{key(ix.PK, "HASH"), key(ix.SK, "RANGE")},
			"Projection": map[string]any{"ProjectionType": "ALL"},
		})
	}
	var eventGSIs []any
	for _, ix := range table.EventIndexes {
		eventGSIs = append(eventGSIs, map[string]any{
			"IndexName":  ix.Name,
			"KeySchema":  []any{key(ix.PK, "HASH"), key(ix.SK, "RANGE")},
			"Projection": map[string]any{"ProjectionType": "ALL"},
		})
	}
	assert(t, "table", func() {
		s.template.HasResourceProperties(jsii.String("AWS::DynamoDB::Table"), &map[string]any{
			"KeySchema":                 []any{key(table.PK, "HASH"), key(table.SK, "RANGE")},
			"BillingMode":               "PAY_PER_REQUEST",
			"GlobalSecondaryIndexes":    gsis,
			"TimeToLiveSpecification":   map[string]any{"AttributeName": table.TTLAttribute, "Enabled": true},
			"StreamSpecification":       assertions.Match_Absent(),
			"SSESpecification":          map[string]any{"SSEEnabled": true},
			"DeletionProtectionEnabled": false,
			"PointInTimeRecoverySpecification": map[string]any{
				"PointInTimeRecoveryEnabled": true,
			},
		})
	})
	// Only the events table streams: the webhook events owed and nothing
	// else (the main table's writes, the rate-limit count of every
	// request among them, stay off the dispatcher's stream).
	assert(t, "events table", func() {
		s.template.HasResourceProperties(jsii.String("AWS::DynamoDB::Table"), &map[string]any{
			"KeySchema":                 []any{key(table.PK, "HASH"), key(table.SK, "RANGE")},
			"BillingMode":               "PAY_PER_REQUEST",
			"GlobalSecondaryIndexes":    eventGSIs,
			"TimeToLiveSpecification":   map[string]any{"AttributeName": table.TTLAttribute, "Enabled": true},
			"StreamSpecification":       map[string]any{"StreamViewType": table.StreamView},
			"SSESpecification":          map[string]any{"SSEEnabled": true},
			"DeletionProtectionEnabled": false,
			"PointInTimeRecoverySpecification": map[string]any{
				"PointInTimeRecoveryEnabled": true,
			},
		})
	})
	if n := len(s.resources("AWS::DynamoDB::Table")); n != 2 {
		t.Errorf("%d tables; want 2 (the main table and the events table)", n)
	}
	// Every key attribute is a string.
	for _, res := range s.resources("AWS::DynamoDB::Table") {
		for _, a := range list(props(res)["AttributeDefinitions"]) {
			if typ := a.(map[string]any)["AttributeType"]; typ != "S" {
				t.Errorf("attribute %v has type %v; want S", a, typ)
			}
		}
	}
}

func TestProdRetainsDataAndDevDoesNot(t *testing.T) {
	for _, tc := range []struct {
		name    string
		s       *synthed
		policy  string
		protect bool
	}{
		{"dev", devStack(t), "Delete", false},
		{"prod", prodStack(t), "Retain", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, typ := range []string{"AWS::DynamoDB::Table", "AWS::S3::Bucket", "AWS::SecretsManager::Secret", "AWS::Logs::LogGroup", "AWS::SQS::Queue"} {
				for id, res := range tc.s.resources(typ) {
					if res["DeletionPolicy"] != tc.policy || res["UpdateReplacePolicy"] != tc.policy {
						t.Errorf("%s %s: DeletionPolicy %v UpdateReplacePolicy %v; want %s", typ, id,
							res["DeletionPolicy"], res["UpdateReplacePolicy"], tc.policy)
					}
				}
			}
			for id, res := range tc.s.resources("AWS::DynamoDB::Table") {
				if got := props(res)["DeletionProtectionEnabled"]; got != tc.protect {
					t.Errorf("table %s: DeletionProtectionEnabled = %v; want %v", id, got, tc.protect)
				}
			}
		})
	}
}

func TestBucketsArePrivateAndTLSOnly(t *testing.T) {
	s := devStack(t)
	assert(t, "every bucket", func() {
		s.template.AllResourcesProperties(jsii.String("AWS::S3::Bucket"), &map[string]any{
			"PublicAccessBlockConfiguration": map[string]any{
				"BlockPublicAcls": true, "BlockPublicPolicy": true, "IgnorePublicAcls": true, "RestrictPublicBuckets": true,
			},
			"BucketEncryption": map[string]any{"ServerSideEncryptionConfiguration": []any{
				map[string]any{"ServerSideEncryptionByDefault": map[string]any{"SSEAlgorithm": "AES256"}},
			}},
		})
	})
	buckets := s.resources("AWS::S3::Bucket")
	policies := map[string][]statement{}
	for _, res := range s.resources("AWS::S3::BucketPolicy") {
		b := ref(props(res)["Bucket"])
		policies[b] = append(policies[b], parseStatements(props(res)["PolicyDocument"])...)
	}
	for id := range buckets {
		var denies bool
		for _, st := range policies[id] {
			want := map[string]any{"Bool": map[string]any{"aws:SecureTransport": "false"}}
			denies = denies || (st.effect == "Deny" && slices.Contains(st.actions, "s3:*") && reflect.DeepEqual(st.condition, want))
		}
		if !denies {
			t.Errorf("bucket %s: no policy denies requests with aws:SecureTransport=false", id)
		}
	}

	clips := s.clipBucket(t)
	if lc := props(clips)["LoggingConfiguration"]; lc == nil {
		t.Errorf("clip bucket has no server access logging")
	}
	assert(t, "ClipBucketName output", func() {
		s.template.HasOutput(jsii.String("ClipBucketName"), &map[string]any{"Value": map[string]any{"Ref": assertions.Match_AnyValue()}})
	})
}

// clipBucket returns the bucket the ClipBucketName output names.
func (s *synthed) clipBucket(t *testing.T) map[string]any {
	t.Helper()
	out, _ := s.json["Outputs"].(map[string]any)["ClipBucketName"].(map[string]any)
	b, ok := s.resources("AWS::S3::Bucket")[ref(out["Value"])]
	if !ok {
		t.Fatalf("ClipBucketName output %v names no bucket", out)
	}
	return b
}

// TestClipCORSAllowsOnlyTheAPIOrigin: the only browser origin that may
// upload clips is the capture page's, which the API serves: the API's
// endpoint, the same value the functions get as PUBLIC_BASE_URL and the
// BaseUrl output. Only a PUT with Content-Type and If-None-Match; ETag
// readable; preflights cached briefly.
func TestClipCORSAllowsOnlyTheAPIOrigin(t *testing.T) {
	for name, s := range map[string]*synthed{"dev": devStack(t), "prod": prodStack(t)} {
		t.Run(name, func(t *testing.T) {
			cors, _ := props(s.clipBucket(t))["CorsConfiguration"].(map[string]any)
			want := []any{map[string]any{
				"Id":             "capture-page",
				"AllowedMethods": []any{"PUT"},
				"AllowedOrigins": []any{s.apiEndpoint(t)},
				"AllowedHeaders": []any{"Content-Type", "If-None-Match"},
				"ExposedHeaders": []any{"ETag"},
				"MaxAge":         float64(clipCORSMaxAge),
			}}
			if got := cors["CorsRules"]; !reflect.DeepEqual(got, want) {
				t.Errorf("CorsRules = %v; want %v", got, want)
			}
			if clipCORSMaxAge <= 0 || clipCORSMaxAge > 3600 {
				t.Errorf("MaxAge %d s; want a short preflight cache (at most an hour)", clipCORSMaxAge)
			}
			id := s.functionIDs(t)["v1-capture"]
			env, _ := props(s.resources("AWS::Lambda::Function")[id])["Environment"].(map[string]any)["Variables"].(map[string]any)
			if got := env[settings.PublicBaseURL]; !reflect.DeepEqual(got, s.apiEndpoint(t)) {
				t.Errorf("v1-capture %s = %v; want the CORS origin %v", settings.PublicBaseURL, got, s.apiEndpoint(t))
			}
		})
	}
}

// TestClipLifecycle: clips expire clipRetention (90) days after upload,
// only under clips/, and incomplete multipart uploads are aborted after a
// day.
func TestClipLifecycle(t *testing.T) {
	if clipRetention != 90 {
		t.Errorf("clipRetention = %d; README's operator section says 90 days", clipRetention)
	}
	for name, s := range map[string]*synthed{"dev": devStack(t), "prod": prodStack(t)} {
		t.Run(name, func(t *testing.T) {
			lc, _ := props(s.clipBucket(t))["LifecycleConfiguration"].(map[string]any)
			want := []any{
				map[string]any{"Id": "expire-clips", "Prefix": manifest.ClipPrefix, "ExpirationInDays": float64(clipRetention), "Status": "Enabled"},
				map[string]any{"Id": "abort-incomplete-uploads", "Status": "Enabled",
					"AbortIncompleteMultipartUpload": map[string]any{"DaysAfterInitiation": float64(1)}},
			}
			if got := lc["Rules"]; !reflect.DeepEqual(got, want) {
				t.Errorf("lifecycle rules = %v; want %v", got, want)
			}
			for _, r := range list(lc["Rules"]) {
				if rule := r.(map[string]any); deletesObjects(rule) && covers(rulePrefix(rule), manifest.SignaturePrefix) {
					t.Errorf("lifecycle rule %v deletes or moves objects under %s; signature evidence is kept", rule, manifest.SignaturePrefix)
				}
			}
		})
	}
}

// deletesObjects reports whether a lifecycle rule expires or transitions
// stored objects (aborting incomplete multipart uploads deletes none).
func deletesObjects(rule map[string]any) bool {
	for k := range rule {
		switch k {
		case "Id", "Status", "Prefix", "Filter", "AbortIncompleteMultipartUpload", "ObjectSizeGreaterThan", "ObjectSizeLessThan", "TagFilters":
		default:
			return true // ExpirationInDays, ExpirationDate, Transitions, NoncurrentVersion*, ExpiredObjectDeleteMarker, …
		}
	}
	return false
}

// rulePrefix is the key prefix a lifecycle rule applies to ("" for the
// whole bucket).
func rulePrefix(rule map[string]any) string {
	if p, ok := rule["Prefix"].(string); ok {
		return p
	}
	if f, ok := rule["Filter"].(map[string]any); ok {
		p, _ := f["Prefix"].(string)
		return p
	}
	return ""
}

// covers reports whether objects under prefix may match a rule on
// rulePrefix.
func covers(rulePrefix, prefix string) bool {
	return strings.HasPrefix(prefix, rulePrefix) || strings.HasPrefix(rulePrefix, prefix)
}

func TestDeletesObjects(t *testing.T) {
	for _, tc := range []struct {
		rule map[string]any
		want bool
	}{
		{map[string]any{"Id": "a", "Status": "Enabled", "AbortIncompleteMultipartUpload": map[string]any{"DaysAfterInitiation": 1.0}}, false},
		{map[string]any{"Id": "b", "Status": "Enabled", "ExpirationInDays": 90.0}, true},
		{map[string]any{"Id": "c", "Status": "Enabled", "Transitions": []any{}}, true},
	} {
		if got := deletesObjects(tc.rule); got != tc.want {
			t.Errorf("deletesObjects(%v) = %v; want %v", tc.rule, got, tc.want)
		}
	}
	if !covers("", manifest.SignaturePrefix) || covers(manifest.ClipPrefix, manifest.SignaturePrefix) {
		t.Error("covers: a whole-bucket rule must cover signatures/, a clips/ rule must not")
	}
}

// TestSecretsAreGeneratedHex: every generated secret (the cursor signing
// key, the webhook sealing key) is generated by CloudFormation as 64
// lowercase hex digits, 32 bytes once decoded, and none has a value in the
// template.
func TestSecretsAreGeneratedHex(t *testing.T) {
	s := devStack(t)
	ids := s.secretIDs(t)
	if len(ids) != len(manifest.Secrets) {
		t.Errorf("secrets %v; want one per manifest.Secrets entry %q", ids, manifest.Secrets)
	}
	if len(generatedSecrets) == 0 {
		t.Fatal("no generated secrets")
	}
	for name := range generatedSecrets {
		id := ids[name]
		p := props(s.resources("AWS::SecretsManager::Secret")[id])
		if _, ok := p["SecretString"]; ok {
			t.Errorf("secret %s has a literal SecretString", id)
		}
		g, _ := p["GenerateSecretString"].(map[string]any)
		if g["PasswordLength"] != float64(64) {
			t.Errorf("PasswordLength = %v; want 64 (32 bytes hex)", g["PasswordLength"])
		}
		// The alphabet Secrets Manager draws from, given the exclusions.
		alphabet := ""
		add := func(excluded any, chars string) {
			if excluded != true {
				alphabet += chars
			}
		}
		add(g["ExcludeLowercase"], "abcdefghijklmnopqrstuvwxyz")
		add(g["ExcludeUppercase"], "ABCDEFGHIJKLMNOPQRSTUVWXYZ")
		add(g["ExcludeNumbers"], "0123456789")
		add(g["ExcludePunctuation"], "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")
		if g["IncludeSpace"] == true {
			alphabet += " "
		}
		exclude, _ := g["ExcludeCharacters"].(string)
		var got []rune
		for _, c := range alphabet {
			if !strings.ContainsRune(exclude, c) {
				got = append(got, c)
			}
		}
		slices.Sort(got)
		if string(got) != "0123456789abcdef" {
			t.Errorf("secret alphabet = %q; want lowercase hex digits", string(got))
		}
	}
}

func TestNagFindsNothingUnsuppressed(t *testing.T) {
	stacks := map[string]*synthed{
		"dev":   devStack(t),
		"prod":  prodStack(t),
		"topic": synth(t, "topic", Props{Env: Dev, AlarmTopicArn: "arn:aws:sns:us-east-1:123456789012:ops"}),
	}
	nag := assertions.Match_StringLikeRegexp(jsii.String("AwsSolutions-.*"))
	for name, s := range stacks {
		t.Run(name, func(t *testing.T) {
			a := assertions.Annotations_FromStack(s.stack)
			for _, m := range *a.FindError(jsii.String("*"), nag) {
				t.Errorf("cdk-nag error at %s: %v", *m.Id, m.Entry.Data)
			}
			for _, m := range *a.FindWarning(jsii.String("*"), nag) {
				t.Errorf("cdk-nag warning at %s: %v", *m.Id, m.Entry.Data)
			}
			for _, m := range *a.FindError(jsii.String("*"), assertions.Match_AnyValue()) {
				t.Errorf("error annotation at %s: %v", *m.Id, m.Entry.Data)
			}
		})
	}
}

func TestAlarmsNotifyTopic(t *testing.T) {
	t.Run("none", func(t *testing.T) {
		for id, res := range devStack(t).resources("AWS::CloudWatch::Alarm") {
			if a := props(res)["AlarmActions"]; a != nil {
				t.Errorf("alarm %s has actions %v without a topic", id, a)
			}
		}
	})
	t.Run("email", func(t *testing.T) {
		s := prodStack(t)
		topics := s.resources("AWS::SNS::Topic")
		if len(topics) != 1 {
			t.Fatalf("got %d topics; want 1", len(topics))
		}
		for id, res := range topics {
			if props(res)["KmsMasterKeyId"] == nil {
				t.Errorf("topic %s is not encrypted", id)
			}
			for aid, a := range s.resources("AWS::CloudWatch::Alarm") {
				acts := list(props(a)["AlarmActions"])
				if len(acts) != 1 || ref(acts[0]) != id {
					t.Errorf("alarm %s actions = %v; want the topic", aid, acts)
				}
			}
		}
		assert(t, "email subscription", func() {
			s.template.HasResourceProperties(jsii.String("AWS::SNS::Subscription"), &map[string]any{
				"Protocol": "email", "Endpoint": "ops@example.com",
			})
		})
	})
	t.Run("count", func(t *testing.T) {
		s := devStack(t)
		if fns := len(s.functionIDs(t)); fns != len(manifest.Functions) {
			t.Fatalf("%d functions; want %d", fns, len(manifest.Functions))
		}
		if got, want := len(s.resources("AWS::CloudWatch::Alarm")), wantAlarmCount(manifest.Functions); got != want {
			t.Errorf("got %d alarms; want %d (5xx rate, p99, Errors + Throttles per function, one per dead-letter queue, the job alarms)", got, want)
		}
	})
}

// TestOperatorSecretsHoldAPlaceholder: each secret the operator fills
// (the Stripe API keys, the Stripe webhook signing secrets) is created
// with the placeholder {"test":"","live":""}, never generated (a random
// value would look configured) and never with a real value; its ARN is a
// stack output for the operator's put-secret-value.
func TestOperatorSecretsHoldAPlaceholder(t *testing.T) {
	var placeholder map[string]string
	if err := json.Unmarshal([]byte(operatorPlaceholder), &placeholder); err != nil ||
		!reflect.DeepEqual(placeholder, map[string]string{"test": "", "live": ""}) {
		t.Errorf("operatorPlaceholder %s; want JSON with empty test and live values (%v)", operatorPlaceholder, err)
	}
	for name, s := range map[string]*synthed{"dev": devStack(t), "prod": prodStack(t)} {
		t.Run(name, func(t *testing.T) {
			ids := s.secretIDs(t)
			outputs, _ := s.json["Outputs"].(map[string]any)
			for _, sec := range []string{manifest.SecretStripeKeys, manifest.SecretStripeWebhook} {
				o, ok := operatorSecrets[sec]
				if !ok {
					t.Errorf("secret %s is not filled by the operator", sec)
					continue
				}
				p := props(s.resources("AWS::SecretsManager::Secret")[ids[sec]])
				if p["SecretString"] != operatorPlaceholder || p["GenerateSecretString"] != nil {
					t.Errorf("%s: SecretString %v GenerateSecretString %v; want the placeholder %s and nothing generated",
						sec, p["SecretString"], p["GenerateSecretString"], operatorPlaceholder)
				}
				out, _ := outputs[o.output].(map[string]any)
				if ref(out["Value"]) != ids[sec] {
					t.Errorf("output %s = %v; want the ARN (Ref) of secret %s", o.output, out, sec)
				}
			}
		})
	}
}

// TestSealingKeyArnOutput: the stack outputs the webhook sealing key's
// ARN (for opctl's WEBHOOK_SEALING_KEY_ARN), a reference to the secret,
// never a value.
func TestSealingKeyArnOutput(t *testing.T) {
	s := devStack(t)
	out, _ := s.json["Outputs"].(map[string]any)["WebhookSealingKeyArn"].(map[string]any)
	if out == nil {
		t.Fatal("no WebhookSealingKeyArn output")
	}
	id := ref(out["Value"])
	res, ok := s.resources("AWS::SecretsManager::Secret")[id]
	if !ok {
		t.Fatalf("WebhookSealingKeyArn output %v names no secret", out)
	}
	if d, _ := props(res)["Description"].(string); !strings.Contains(strings.ToLower(d), "webhook") {
		t.Errorf("the output names secret %s (%q), not the webhook sealing key", id, d)
	}
}

// TestEventsTableNameOnlyOnEventWriters: EVENTS_TABLE_NAME, a Ref to the
// events table, is set exactly on the functions that read or write
// webhook events (manifest.Function.UsesEvents).
func TestEventsTableNameOnlyOnEventWriters(t *testing.T) {
	s := devStack(t)
	events := s.eventsTableID(t)
	for slug, fid := range s.functionIDs(t) {
		f, ok := manifest.BySlug(slug)
		if !ok {
			t.Fatalf("function %s is not in the manifest", slug)
		}
		vars, _ := props(s.resources("AWS::Lambda::Function")[fid])["Environment"].(map[string]any)["Variables"].(map[string]any)
		v, has := vars[settings.EventsTable]
		if has != f.UsesEvents() {
			t.Errorf("%s: %s set %v; want %v (reads or writes events)", slug, settings.EventsTable, has, f.UsesEvents())
		}
		if has && ref(v) != events {
			t.Errorf("%s: %s = %v; want a Ref to %s", slug, settings.EventsTable, v, events)
		}
	}
}
