package streamevent

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/moveleads/partnerapi/shared/spec/manifest"
	"github.com/moveleads/partnerapi/shared/wire/awsenv"
)

func toolsEnv() (*awsenv.Env, error) {
	secret := func(string) func(context.Context) ([]byte, error) {
		return func(context.Context) ([]byte, error) { return []byte("k"), nil }
	}
	return awsenv.ForTools(nil, nil, secret, aws.Config{}), nil
}

func TestBuildRefusesFunctionsNotOnTheStream(t *testing.T) {
	build := func(*awsenv.Env) (Processor, error) { return &recorder{}, nil }
	for _, slug := range []string{"no-such-function", manifest.Functions[0].Slug} {
		if _, err := Build(toolsEnv, slug, build); err == nil || !strings.Contains(err.Error(), "not a stream-triggered function") {
			t.Errorf("Build(%q) error = %v; want one saying it is not a stream-triggered function", slug, err)
		}
	}
}

func TestBuildFor(t *testing.T) {
	fn := manifest.Function{Slug: "webhooks-dispatch", Stream: &manifest.StreamTrigger{BatchSize: 10}}
	withSecret := fn
	withSecret.Secrets = []string{manifest.SecretCursor}
	p := &recorder{}
	plain := func(*awsenv.Env) (Processor, error) { return p, nil }
	readsSecret := func(env *awsenv.Env) (Processor, error) {
		env.Secret(manifest.SecretCursor)
		return p, nil
	}
	errLoad, errBuild := errors.New("TABLE_NAME is not set"), errors.New("no endpoint table")
	for _, tc := range []struct {
		name    string
		f       manifest.Function
		load    func() (*awsenv.Env, error)
		build   func(*awsenv.Env) (Processor, error)
		wantErr string
	}{
		{"plain", fn, toolsEnv, plain, ""},
		{"reads the secret it lists", withSecret, toolsEnv, readsSecret, ""},
		{"reads a secret it does not list", fn, toolsEnv, readsSecret, "reads secrets"},
		{"does not read the secret it lists", withSecret, toolsEnv, plain, "reads secrets"},
		{"load fails", fn, func() (*awsenv.Env, error) { return nil, errLoad }, plain, errLoad.Error()},
		{"build fails", fn, toolsEnv, func(*awsenv.Env) (Processor, error) { return nil, errBuild }, errBuild.Error()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, err := buildFor(tc.f, tc.load, tc.build)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error = %v; want one with %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			p.got = nil
			ev := events.DynamoDBEvent{Records: []events.DynamoDBEventRecord{{EventName: Insert, Change: events.DynamoDBStreamRecord{SequenceNumber: "7"}}}}
			if resp, err := h(context.Background(), ev); err != nil || len(resp.BatchItemFailures) != 0 || len(p.got) != 1 {
				t.Errorf("handler: %v, %v, processed %d; want success, 1 record", resp, err, len(p.got))
			}
		})
	}
}

// buildFor is Build for a manifest entry the manifest does not hold (the
// cases above): Wire, then the edge's handler, as awsenv.BuildEdge does.
func buildFor(f manifest.Function, load func() (*awsenv.Env, error), build func(*awsenv.Env) (Processor, error)) (Handler, error) {
	p, env, err := awsenv.Wire(f, load, build)
	if err != nil {
		return nil, err
	}
	return New(p, env.Log), nil
}
