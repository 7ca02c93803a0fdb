package apigw

import (
	"fmt"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/moveleads/partnerapi/shared/app/pipeline"
	"github.com/moveleads/partnerapi/shared/spec/manifest"
	"github.com/moveleads/partnerapi/shared/wire/awsenv"
)

// Start is every HTTP function's main: it builds the function's wiring
// from the environment (awsenv.Load), the function's endpoints from it (one
// per route of its manifest entry), checks that the secrets they read are
// exactly those the manifest lists for the function, and hands the handler
// to lambda.Start. It exits 1 with one line on stderr when the wiring
// fails.
func Start(build func(*awsenv.Env) ([]pipeline.Endpoint, error)) {
	awsenv.Run(Build(awsenv.Load, build))
}

// Build is Start without the runtime: the Lambda handler a function's main
// starts, built exactly as Start builds it (also used by scripts/invoke and
// the events tests). The endpoints must serve every route of one function
// and nothing else.
func Build(load func() (*awsenv.Env, error), build func(*awsenv.Env) ([]pipeline.Endpoint, error)) (LambdaFunc, error) {
	env, err := load()
	if err != nil {
		return nil, err
	}
	eps, err := build(env)
	if err != nil {
		return nil, err
	}
	f, err := FunctionOf(eps)
	if err != nil {
		return nil, err
	}
	if err := env.Check(f); err != nil {
		return nil, err
	}
	p := pipeline.New(pipeline.Deps{Store: env.Store, Log: env.Log})
	return New(p, env.Log, nil).ServeAll(eps), nil
}

// FunctionOf returns the function whose routes eps serve, or an error when
// eps is empty, mixes functions, or leaves one of the function's routes
// unserved.
func FunctionOf(eps []pipeline.Endpoint) (manifest.Function, error) {
	if len(eps) == 0 {
		return manifest.Function{}, fmt.Errorf("no endpoints")
	}
	f := eps[0].Route().Function()
	seen := map[manifest.Operation]bool{}
	for _, ep := range eps {
		if rt := ep.Route(); rt.Slug != f.Slug {
			return manifest.Function{}, fmt.Errorf("endpoints of %s and %s in one function", f.Slug, rt.Slug)
		}
		seen[ep.Operation] = true
	}
	for _, r := range f.HTTP {
		if !seen[r.Operation] {
			return manifest.Function{}, fmt.Errorf("function %s does not serve its route %s", f.Slug, r.Operation)
		}
	}
	if len(seen) != len(eps) {
		return manifest.Function{}, fmt.Errorf("function %s: an operation is served twice", f.Slug)
	}
	return f, nil
}

// StartNotFound is the $default function's main.
func StartNotFound() {
	lambda.Start(NotFound(awsenv.JSONLog()))
}
