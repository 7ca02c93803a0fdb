package stack

import (
	"errors"
	"fmt"
	"net/mail"
	"os"
	"path/filepath"
	"strings"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"

	"github.com/moveleads/partnerapi/shared/spec/manifest"
	"github.com/moveleads/partnerapi/shared/spec/settings"
)

// Env is a deployment environment. It decides what is kept when the stack
// is deleted, how long logs are kept and the API's throttle.
type Env string

// The environments the stack can be deployed as.
const (
	Dev  Env = "dev"
	Prod Env = "prod"
)

// ParseEnv returns the Env named s; "" means Dev.
func ParseEnv(s string) (Env, error) {
	switch Env(s) {
	case "", Dev:
		return Dev, nil
	case Prod:
		return Prod, nil
	}
	return "", fmt.Errorf("env %q: want %q or %q", s, Dev, Prod)
}

// Props configure the partner API stack.
type Props struct {
	awscdk.StackProps
	// Env is Dev or Prod.
	Env Env
	// AssetDir holds <slug>.zip for every function (make build writes
	// them to ../build).
	AssetDir string
	// AlarmTopicArn, when set, receives every alarm. AlarmEmail, when set
	// instead, gets a new encrypted topic with an email subscription. With
	// neither, alarms only change state in CloudWatch.
	AlarmTopicArn string
	AlarmEmail    string
	// AgentToolsAllowedOrigins are the web origins (scheme://host[:port],
	// as settings.ParseOrigins accepts them) whose pages may call the
	// agent tool server from a browser: its function's
	// settings.AgentToolsAllowedOrigins. Empty: no browser page may (the
	// variable is not set).
	AgentToolsAllowedOrigins []string
	// Functions is the manifest the stack deploys; nil means
	// manifest.Functions. Only tests set it, to show that a new function
	// flows through.
	Functions []manifest.Function
}

// Context keys read by FromContext (cdk synth -c key=value, or
// CDK_CONTEXT_JSON when the app runs without the CDK CLI).
const (
	ContextEnv           = "env"
	ContextAssetDir      = "assetDir"
	ContextAlarmEmail    = "alarmEmail"
	ContextAlarmTopicArn = "alarmTopicArn"
	// ContextAgentToolsAllowedOrigins holds Props.AgentToolsAllowedOrigins:
	// comma-separated origins (-c agentToolsAllowedOrigins=https://a.example,https://b.example),
	// or a list of strings in cdk.json.
	ContextAgentToolsAllowedOrigins = "agentToolsAllowedOrigins"
)

// DefaultAssetDir is where make build leaves the function zips, relative
// to the infra directory.
const DefaultAssetDir = "../build"

// FromContext reads Props from the app's context. It returns an error for
// an unknown env and for allowed origins settings.ParseOrigins refuses,
// naming the context key; the remaining checks happen in New.
func FromContext(app constructs.Construct) (Props, error) {
	str := func(key string) string {
		v := app.Node().TryGetContext(jsii.String(key))
		if v == nil {
			return ""
		}
		if list, ok := v.([]any); ok {
			// A list in cdk.json: its items as one comma-separated value.
			items := make([]string, len(list))
			for i, x := range list {
				items[i] = fmt.Sprint(x)
			}
			return strings.Join(items, ",")
		}
		return strings.TrimSpace(fmt.Sprint(v))
	}
	env, err := ParseEnv(str(ContextEnv))
	if err != nil {
		return Props{}, fmt.Errorf("context %s: %w", ContextEnv, err)
	}
	origins, err := settings.ParseOrigins(str(ContextAgentToolsAllowedOrigins))
	if err != nil {
		return Props{}, fmt.Errorf("context %s: %w", ContextAgentToolsAllowedOrigins, err)
	}
	p := Props{
		Env:                      env,
		AssetDir:                 str(ContextAssetDir),
		AlarmEmail:               str(ContextAlarmEmail),
		AlarmTopicArn:            str(ContextAlarmTopicArn),
		AgentToolsAllowedOrigins: origins,
	}
	if p.AssetDir == "" {
		p.AssetDir = DefaultAssetDir
	}
	return p, nil
}

// functions returns the functions to deploy.
func (p Props) functions() []manifest.Function {
	if p.Functions != nil {
		return p.Functions
	}
	return manifest.Functions
}

// validate reports every problem with p at once.
func (p Props) validate() error {
	var errs []error
	if p.Env != Dev && p.Env != Prod {
		errs = append(errs, fmt.Errorf("env %q: want %q or %q", p.Env, Dev, Prod))
	}
	if p.AlarmEmail != "" && p.AlarmTopicArn != "" {
		errs = append(errs, errors.New("set alarmEmail or alarmTopicArn, not both"))
	}
	if p.AlarmEmail != "" {
		if a, err := mail.ParseAddress(p.AlarmEmail); err != nil || a.Address != p.AlarmEmail {
			errs = append(errs, fmt.Errorf("alarmEmail %q is not a bare email address", p.AlarmEmail))
		}
	}
	if p.AlarmTopicArn != "" && !strings.HasPrefix(p.AlarmTopicArn, "arn:") {
		errs = append(errs, fmt.Errorf("alarmTopicArn %q is not an ARN", p.AlarmTopicArn))
	}
	for _, o := range p.AgentToolsAllowedOrigins {
		// Props set in code skip FromContext: each origin must be one
		// that settings.ParseOrigins gives back alone and unchanged.
		if got, err := settings.ParseOrigins(o); err != nil || len(got) != 1 || got[0] != o {
			if err == nil {
				err = fmt.Errorf("origin %q: want exactly one origin, without spaces", o)
			}
			errs = append(errs, fmt.Errorf("%s: %w", ContextAgentToolsAllowedOrigins, err))
		}
	}
	errs = append(errs, checkAssets(p.AssetDir, p.functions())...)
	return errors.Join(errs...)
}

// checkAssets reports each function whose zip is missing, so that a synth
// before make build fails with one clear message instead of a jsii stack
// trace.
func checkAssets(dir string, fns []manifest.Function) []error {
	if dir == "" {
		return []error{errors.New("asset directory not set")}
	}
	var errs []error
	for _, f := range fns {
		zip := assetPath(dir, f.Slug)
		if fi, err := os.Stat(zip); err != nil || !fi.Mode().IsRegular() {
			errs = append(errs, fmt.Errorf("function %s: %s is missing (run make build)", f.Slug, zip))
		}
	}
	return errs
}

// assetPath is where the zip of the function slug is.
func assetPath(dir, slug string) string { return filepath.Join(dir, slug+".zip") }
