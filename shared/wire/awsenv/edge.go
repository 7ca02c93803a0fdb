package awsenv

import (
	"fmt"
	"os"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/moveleads/partnerapi/shared/spec/manifest"
)

// BuildEdge is the Build every event edge shares (shared/edge/s3event,
// shared/edge/streamevent, shared/edge/schedule): the manifest entry of slug, which must
// be triggered by kind (what names the kind in the error, e.g.
// "stream-triggered"), the environment from load, the processor from
// build with its secrets checked against the entry (Wire), and the edge's
// handler around it from wrap.
func BuildEdge[P, H any](load func() (*Env, error), slug string, kind manifest.TriggerKind, what string,
	build func(*Env) (P, error), wrap func(f manifest.Function, p P, e *Env) H) (H, error) {
	var zero H
	f, ok := manifest.BySlug(slug)
	if !ok || f.Trigger() != kind {
		return zero, fmt.Errorf("function %q is not a %s function of the manifest", slug, what)
	}
	p, env, err := Wire(f, load, build)
	if err != nil {
		return zero, err
	}
	return wrap(f, p, env), nil
}

// Run is every function main's last step: it exits 1 with one line on
// stderr when building the handler failed (err), and otherwise hands h to
// lambda.Start.
func Run(h any, err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "init:", err)
		os.Exit(1)
	}
	lambda.Start(h)
}
