package s3event

import (
	"github.com/moveleads/partnerapi/shared/spec/manifest"
	"github.com/moveleads/partnerapi/shared/wire/awsenv"
)

// Start is every S3-triggered function's main: it builds the function's
// wiring from the environment (awsenv.Load), the processor from it, checks
// the secrets it read against the manifest entry of slug, and hands the
// handler to lambda.Start. It exits 1 with one line on stderr when the
// wiring fails.
func Start(slug string, build func(*awsenv.Env) (Processor, error)) {
	awsenv.Run(Build(awsenv.Load, slug, build))
}

// Build is Start without the runtime (scripts/invoke, tests).
func Build(load func() (*awsenv.Env, error), slug string, build func(*awsenv.Env) (Processor, error)) (Handler, error) {
	return awsenv.BuildEdge(load, slug, manifest.TriggerS3, "S3-triggered", build,
		func(_ manifest.Function, p Processor, env *awsenv.Env) Handler { return New(p, env.Log) })
}
