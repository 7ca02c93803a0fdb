package streamevent

import (
	"github.com/moveleads/partnerapi/shared/spec/manifest"
	"github.com/moveleads/partnerapi/shared/wire/awsenv"
)

// Start is every stream-triggered function's main: it builds the
// function's wiring from the environment (awsenv.Load), the processor from
// it, checks the secrets it read against the manifest entry of slug, and
// hands the handler to lambda.Start. It exits 1 with one line on stderr
// when the wiring fails.
func Start(slug string, build func(*awsenv.Env) (Processor, error)) {
	awsenv.Run(Build(awsenv.Load, slug, build))
}

// Build is Start without the runtime (scripts/invoke, make dev, tests): the
// handler of the manifest's stream-triggered function slug, or an error
// when slug names no such function, the environment or the processor
// cannot be built, or the processor reads secrets other than those the
// function's manifest entry lists.
func Build(load func() (*awsenv.Env, error), slug string, build func(*awsenv.Env) (Processor, error)) (Handler, error) {
	return awsenv.BuildEdge(load, slug, manifest.TriggerStream, "stream-triggered", build,
		func(_ manifest.Function, p Processor, env *awsenv.Env) Handler { return New(p, env.Log) })
}
