package streamevent

import (
	"fmt"
	"os"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/moveleads/partnerapi/shared/awsenv"
	"github.com/moveleads/partnerapi/shared/manifest"
)

// Start is every stream-triggered function's main: it builds the
// function's wiring from the environment (awsenv.Load), the processor from
// it, checks the secrets it read against the manifest entry of slug, and
// hands the handler to lambda.Start. It exits 1 with one line on stderr
// when the wiring fails.
func Start(slug string, build func(*awsenv.Env) (Processor, error)) {
	h, err := Build(awsenv.Load, slug, build)
	if err != nil {
		fmt.Fprintln(os.Stderr, "init:", err)
		os.Exit(1)
	}
	lambda.Start(h)
}

// Build is Start without the runtime (scripts/invoke, make dev, tests): the
// handler of the manifest's stream-triggered function slug, or an error
// when slug names no such function, the environment or the processor
// cannot be built, or the processor reads secrets other than those the
// function's manifest entry lists.
func Build(load func() (*awsenv.Env, error), slug string, build func(*awsenv.Env) (Processor, error)) (Handler, error) {
	f, ok := manifest.BySlug(slug)
	if !ok || f.Stream == nil {
		return nil, fmt.Errorf("function %q is not a stream-triggered function of the manifest", slug)
	}
	return buildFor(f, load, build)
}

// buildFor is Build for the manifest entry f.
func buildFor(f manifest.Function, load func() (*awsenv.Env, error), build func(*awsenv.Env) (Processor, error)) (Handler, error) {
	p, env, err := awsenv.Wire(f, load, build)
	if err != nil {
		return nil, err
	}
	return New(p, env.Log), nil
}
