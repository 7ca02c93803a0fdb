package apigw

import (
	"fmt"
	"os"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/moveleads/partnerapi/shared/api"
	"github.com/moveleads/partnerapi/shared/awsenv"
)

// Start is every HTTP function's main: it builds the function's wiring
// from the environment (awsenv.Load), the endpoint from it, checks that
// the secrets the endpoint reads are exactly those the manifest lists for
// its function, and hands the handler to lambda.Start. It exits 1 with one
// line on stderr when the wiring fails.
func Start(build func(*awsenv.Env) api.Endpoint) {
	h, err := Build(awsenv.Load, build)
	if err != nil {
		fmt.Fprintln(os.Stderr, "init:", err)
		os.Exit(1)
	}
	lambda.Start(h)
}

// Build is Start without the runtime: the Lambda handler a function's main
// starts, built exactly as Start builds it (also used by scripts/invoke and
// the events tests).
func Build(load func() (*awsenv.Env, error), build func(*awsenv.Env) api.Endpoint) (LambdaFunc, error) {
	env, err := load()
	if err != nil {
		return nil, err
	}
	ep := build(env)
	if err := env.Check(ep.Route().Function()); err != nil {
		return nil, err
	}
	p := api.New(api.Deps{Store: env.Store, Log: env.Log})
	return New(p, env.Log, nil).Serve(ep), nil
}

// StartNotFound is the $default function's main.
func StartNotFound() {
	lambda.Start(NotFound(awsenv.JSONLog()))
}
