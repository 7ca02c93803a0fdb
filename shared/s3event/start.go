package s3event

import (
	"fmt"
	"os"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/moveleads/partnerapi/shared/awsenv"
	"github.com/moveleads/partnerapi/shared/manifest"
)

// Start is every S3-triggered function's main: it builds the function's
// wiring from the environment (awsenv.Load), the processor from it, checks
// the secrets it read against the manifest entry of slug, and hands the
// handler to lambda.Start. It exits 1 with one line on stderr when the
// wiring fails.
func Start(slug string, build func(*awsenv.Env) (Processor, error)) {
	h, err := Build(awsenv.Load, slug, build)
	if err != nil {
		fmt.Fprintln(os.Stderr, "init:", err)
		os.Exit(1)
	}
	lambda.Start(h)
}

// Build is Start without the runtime (scripts/invoke, tests).
func Build(load func() (*awsenv.Env, error), slug string, build func(*awsenv.Env) (Processor, error)) (Handler, error) {
	f, ok := manifest.BySlug(slug)
	if !ok || f.S3 == nil {
		return nil, fmt.Errorf("function %q is not an S3-triggered function of the manifest", slug)
	}
	p, env, err := awsenv.Wire(f, load, build)
	if err != nil {
		return nil, err
	}
	return New(p, env.Log), nil
}
