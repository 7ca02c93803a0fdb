package stack

import (
	"reflect"
	"strings"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2"

	"github.com/moveleads/partnerapi/shared/manifest"
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

func TestCheckOrigin(t *testing.T) {
	for _, tc := range []struct {
		origin string
		ok     bool
	}{
		{"https://survey.example.com", true},
		{"https://survey.example.com:8443", true},
		{"http://localhost:5173", true},
		{"http://survey.example.com", false},
		{"https://survey.example.com/", false},
		{"https://survey.example.com/capture", false},
		{"https://*.example.com", false},
		{"*", false},
		{"survey.example.com", false},
		{"https://user@survey.example.com", false},
	} {
		t.Run(tc.origin, func(t *testing.T) {
			if err := checkOrigin(tc.origin); (err == nil) != tc.ok {
				t.Errorf("checkOrigin(%q) error = %v; want ok %v", tc.origin, err, tc.ok)
			}
		})
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
		{"bad origin", func(p *Props) { p.CaptureOrigins = []string{"*"} }, "capture origin"},
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
		{"stream", []manifest.Function{{Slug: "fanout", Stream: &manifest.StreamTrigger{BatchSize: 10}}}, []string{`fanout: trigger "DynamoDB"`}},
		{"s3", []manifest.Function{{Slug: "clip-probe", S3: &manifest.S3Trigger{Prefix: "clips/"}}}, []string{`clip-probe: trigger "S3"`}},
		{"bucket access", []manifest.Function{func() manifest.Function {
			f := http("v1-clip", "/v1-clip")
			f.Bucket.Write = []string{"clips/"}
			return f
		}()}, []string{"v1-clip: bucket access"}},
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
		ContextEnv:            "prod",
		ContextAlarmEmail:     "ops@example.com",
		ContextCaptureOrigins: "https://a.example.com, https://b.example.com",
	}})
	got, err := FromContext(app)
	if err != nil {
		t.Fatalf("FromContext() error = %v", err)
	}
	want := Props{
		Env: Prod, AssetDir: DefaultAssetDir, AlarmEmail: "ops@example.com",
		CaptureOrigins: []string{"https://a.example.com", "https://b.example.com"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("FromContext() = %+v; want %+v", got, want)
	}

	bad := awscdk.NewApp(&awscdk.AppProps{Context: &map[string]any{ContextEnv: "staging"}})
	if _, err := FromContext(bad); err == nil {
		t.Error("FromContext(env=staging) error = nil; want an error")
	}
	if _, err := New(bad, "Bad", Props{Env: "staging", AssetDir: t.TempDir()}); err == nil {
		t.Error("New(env=staging) error = nil; want an error")
	}
}
