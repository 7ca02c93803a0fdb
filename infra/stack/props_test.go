package stack

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2"

	"github.com/moveleads/partnerapi/shared/spec/manifest"
	"github.com/moveleads/partnerapi/shared/spec/settings"
)

func TestParseEnv(t *testing.T) {
	for in, want := range map[string]Env{"": Dev, "dev": Dev, "prod": Prod} {
		if got, err := ParseEnv(in); err != nil || got != want {
			t.Errorf("ParseEnv(%q) = %q, %v; want %q, nil", in, got, err, want)
		}
	}
	for _, in := range []string{"staging", "Prod", " dev"} {
		if _, err := ParseEnv(in); err == nil {
			t.Errorf("ParseEnv(%q) error = nil; want an error", in)
		}
	}
}

func TestValidate(t *testing.T) {
	dir := t.TempDir()
	writeAssets(t, dir, manifest.Functions)
	good := Props{Env: Dev, AssetDir: dir}
	for _, tc := range []struct {
		name    string
		mutate  func(*Props)
		wantErr string
	}{
		{"ok", func(*Props) {}, ""},
		{"unknown env", func(p *Props) { p.Env = "staging" }, `env "staging"`},
		{"both alarm targets", func(p *Props) { p.AlarmEmail, p.AlarmTopicArn = "a@example.com", "arn:aws:sns:x" }, "not both"},
		{"bad email", func(p *Props) { p.AlarmEmail = "Ops <ops@example.com>" }, "alarmEmail"},
		{"bad topic", func(p *Props) { p.AlarmTopicArn = "ops" }, "alarmTopicArn"},
		{"allowed origins", func(p *Props) {
			p.AgentToolsAllowedOrigins = []string{"https://console.example.com", "http://127.0.0.1:5173"}
		}, ""},
		{"allowed origin with a path", func(p *Props) { p.AgentToolsAllowedOrigins = []string{"https://console.example.com/"} },
			`agentToolsAllowedOrigins: origin "https://console.example.com/": want scheme://host[:port] with no path`},
		{"two origins in one entry", func(p *Props) { p.AgentToolsAllowedOrigins = []string{"https://a.example,https://b.example"} },
			`agentToolsAllowedOrigins: origin "https://a.example,https://b.example": want exactly one origin`},
		{"empty origin", func(p *Props) { p.AgentToolsAllowedOrigins = []string{""} }, "agentToolsAllowedOrigins"},
		{"missing zips", func(p *Props) { p.AssetDir = t.TempDir() }, "v1-leads.zip is missing (run make build)"},
		{"new function without zip", func(p *Props) {
			p.Functions = append(append([]manifest.Function{}, manifest.Functions...), manifest.Function{Slug: "v1-new"})
		}, "v1-new.zip is missing"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := good
			tc.mutate(&p)
			err := p.validate()
			switch {
			case tc.wantErr == "" && err != nil:
				t.Errorf("validate() = %v; want nil", err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Errorf("validate() = %v; want an error containing %q", err, tc.wantErr)
			}
		})
	}
}

func TestCheckSecrets(t *testing.T) {
	if err := checkSecrets(manifest.Functions); err != nil {
		t.Errorf("checkSecrets(manifest.Functions) = %v; want nil", err)
	}
	bad := []manifest.Function{{Slug: "v1-pay", Secrets: []string{"stripe-api-key"}}}
	if err := checkSecrets(bad); err == nil || !strings.Contains(err.Error(), "stripe-api-key") {
		t.Errorf("checkSecrets(undeployed secret) = %v; want an error naming it", err)
	}
	// Every secret of the manifest is deployed exactly one way: text the
	// operator puts in (settings.SecretIsText), or a generated hex key.
	for _, name := range manifest.Secrets {
		_, gen := generatedSecrets[name]
		_, op := operatorSecrets[name]
		if gen == op {
			t.Errorf("secret %s: generated %v, operator-filled %v; want exactly one", name, gen, op)
		}
		if text := settings.SecretIsText(name); text != op {
			t.Errorf("secret %s: text %v but operator-filled %v", name, text, op)
		}
	}
	if got := len(generatedSecrets) + len(operatorSecrets); got != len(manifest.Secrets) {
		t.Errorf("the stack deploys %d secrets; the manifest lists %d", got, len(manifest.Secrets))
	}
}

func TestCheckFunctions(t *testing.T) {
	http := func(slug, path string) manifest.Function {
		return manifest.Function{Slug: slug, HTTP: []manifest.Route{{Operation: "x", Method: "GET", PilotPath: path}}}
	}
	for _, tc := range []struct {
		name    string
		fns     []manifest.Function
		wantErr []string
	}{
		{"manifest", manifest.Functions, nil},
		{"no trigger", []manifest.Function{{Slug: "v1-idle"}}, []string{"v1-idle declares no trigger"}},
		{"two triggers", []manifest.Function{{Slug: "v1-both", HTTP: http("a", "/a").HTTP, Queue: &manifest.QueueTrigger{Name: "q"}}},
			[]string{"v1-both declares no trigger or more than one"}},
		{"stream", []manifest.Function{{Slug: "fanout", Stream: &manifest.StreamTrigger{BatchSize: 10, InsertsOf: "event"}}}, nil},
		{"stream batch of 0", []manifest.Function{{Slug: "fanout", Stream: &manifest.StreamTrigger{}}}, []string{"fanout: stream BatchSize 0; want 1 to 30"}},
		{"stream batch too large to time", []manifest.Function{{Slug: "fanout", Stream: &manifest.StreamTrigger{BatchSize: 100}}},
			[]string{"fanout: stream BatchSize 100; want 1 to 30"}},
		{"queue without batch or concurrency", []manifest.Function{{Slug: "webhooks", Queue: &manifest.QueueTrigger{Name: "q"}}},
			[]string{"webhooks: queue trigger", "MaxConcurrency 2 to 1000"}},
		{"queue", []manifest.Function{{Slug: "webhooks", Queue: &manifest.QueueTrigger{Name: "q", BatchSize: 10, MaxConcurrency: 20}}}, nil},
		{"schedule", []manifest.Function{
			{Slug: "nightly", Schedule: &manifest.ScheduleTrigger{Expression: "rate(1 day)"}},
			{Slug: "weekly", Schedule: &manifest.ScheduleTrigger{Expression: "cron(0 3 ? * MON *)"}},
		}, nil},
		{"schedule not an expression", []manifest.Function{{Slug: "nightly", Schedule: &manifest.ScheduleTrigger{Expression: "every day"}}},
			[]string{`nightly: schedule "every day" is neither rate(...) nor cron(...)`}},
		{"s3 and bucket access", []manifest.Function{
			{Slug: "probe", S3: &manifest.S3Trigger{Prefix: "clips/"}, Bucket: manifest.BucketAccess{Read: []string{"clips/"}}},
			func() manifest.Function {
				f := http("v1-clip", "/v1-clip")
				f.Bucket.Write = []string{"clips/"}
				return f
			}(),
		}, nil},
		{"s3 triggers on disjoint prefixes or suffixes", []manifest.Function{
			{Slug: "a", S3: &manifest.S3Trigger{Prefix: "clips/"}},
			{Slug: "b", S3: &manifest.S3Trigger{Prefix: "exports/"}},
			{Slug: "c", S3: &manifest.S3Trigger{Prefix: "thumbs/", Suffix: ".jpg"}},
			{Slug: "d", S3: &manifest.S3Trigger{Prefix: "thumbs/", Suffix: ".png"}},
		}, nil},
		{"s3 trigger on the whole bucket", []manifest.Function{{Slug: "all", S3: &manifest.S3Trigger{}}},
			[]string{"all: S3 trigger names neither a Prefix nor a Suffix"}},
		{"overlapping s3 triggers", []manifest.Function{
			{Slug: "a", S3: &manifest.S3Trigger{Prefix: "clips/"}},
			{Slug: "b", S3: &manifest.S3Trigger{Prefix: "clips/ptn_1/", Suffix: ".webm"}},
		}, []string{"functions a and b: S3 triggers", "overlap"}},
		{"two defaults", []manifest.Function{http("nf-a", manifest.DefaultPath), http("nf-b", manifest.DefaultPath)},
			[]string{`"nf-a" "nf-b"`, "$default"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := checkFunctions(tc.fns)
			if len(tc.wantErr) == 0 {
				if err != nil {
					t.Errorf("checkFunctions = %v; want nil", err)
				}
				return
			}
			for _, w := range tc.wantErr {
				if err == nil || !strings.Contains(err.Error(), w) {
					t.Errorf("checkFunctions = %v; want an error containing %q", err, w)
				}
			}
		})
	}
}

func TestFromContext(t *testing.T) {
	app := awscdk.NewApp(&awscdk.AppProps{Context: &map[string]any{
		ContextEnv:                      "prod",
		ContextAlarmEmail:               "ops@example.com",
		ContextAgentToolsAllowedOrigins: " https://console.example.com, http://127.0.0.1:5173,https://console.example.com",
	}})
	got, err := FromContext(app)
	if err != nil {
		t.Fatalf("FromContext() error = %v", err)
	}
	want := Props{Env: Prod, AssetDir: DefaultAssetDir, AlarmEmail: "ops@example.com",
		AgentToolsAllowedOrigins: []string{"https://console.example.com", "http://127.0.0.1:5173"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("FromContext() = %+v; want %+v", got, want)
	}

	// Without the key, no origin (nil, as the default Props has).
	if got, err := FromContext(awscdk.NewApp(nil)); err != nil || got.AgentToolsAllowedOrigins != nil {
		t.Errorf("FromContext(no origins) = %q, %v; want nil, nil", got.AgentToolsAllowedOrigins, err)
	}
	// cdk.json may hold a list.
	list := awscdk.NewApp(&awscdk.AppProps{Context: &map[string]any{
		ContextAgentToolsAllowedOrigins: []any{"https://a.example", "https://b.example:8443"},
	}})
	if got, err := FromContext(list); err != nil || !slices.Equal(got.AgentToolsAllowedOrigins, []string{"https://a.example", "https://b.example:8443"}) {
		t.Errorf("FromContext(list of origins) = %q, %v; want both", got.AgentToolsAllowedOrigins, err)
	}
	for _, bad := range []any{"https://console.example.com/", "https://*.example.com", "null", []any{"https://a.example", "ftp://b.example"}} {
		app := awscdk.NewApp(&awscdk.AppProps{Context: &map[string]any{ContextAgentToolsAllowedOrigins: bad}})
		if _, err := FromContext(app); err == nil || !strings.HasPrefix(err.Error(), "context agentToolsAllowedOrigins: origin ") {
			t.Errorf("FromContext(%s=%v) error = %v; want one naming the key and the origin", ContextAgentToolsAllowedOrigins, bad, err)
		}
	}

	bad := awscdk.NewApp(&awscdk.AppProps{Context: &map[string]any{ContextEnv: "staging"}})
	if _, err := FromContext(bad); err == nil {
		t.Error("FromContext(env=staging) error = nil; want an error")
	}
	if _, err := New(bad, "Bad", Props{Env: "staging", AssetDir: t.TempDir()}); err == nil {
		t.Error("New(env=staging) error = nil; want an error")
	}
}
