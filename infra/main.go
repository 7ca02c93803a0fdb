// Command infra is the partner API's CDK app. It only wires: context to
// stack.Props, one stack, synth. Run it through the CDK CLI (cdk.json) or
// directly, offline:
//
//	CDK_OUTDIR=cdk.out CDK_CONTEXT_JSON='{"env":"prod"}' go run .
//
// Context: env (dev|prod, default dev), assetDir (default ../build, where
// make build leaves <slug>.zip), alarmEmail or alarmTopicArn, and
// agentToolsAllowedOrigins (comma-separated browser origins the agent tool
// server accepts, scheme://host[:port]; none by default). The capture
// page's origin (PUBLIC_BASE_URL, the clip bucket's CORS origin) is the
// HTTP API's endpoint.
// It exits non-zero when the stack is misconfigured or synth reports an
// error annotation (an unsuppressed cdk-nag finding among them).
package main

import (
	"fmt"
	"os"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/jsii-runtime-go"

	"github.com/moveleads/partnerapi/infra/jsiiquiet"
	"github.com/moveleads/partnerapi/infra/stack"
)

func main() {
	// jsii.Close may print a false alarm (package jsiiquiet); it runs
	// before the real stderr is back.
	if restore, err := jsiiquiet.Stderr(); err == nil {
		restoreStderr = restore
	}
	defer restoreStderr()
	defer jsii.Close()
	app := awscdk.NewApp(nil)
	p, err := stack.FromContext(app)
	if err != nil {
		fail(err)
	}
	if _, err := stack.New(app, "PartnerApi-"+string(p.Env), p); err != nil {
		fail(err)
	}
	errs, warnings := stack.Findings(app.Synth(nil))
	for _, w := range warnings {
		fmt.Fprintln(os.Stderr, "warning:", w)
	}
	for _, e := range errs {
		fmt.Fprintln(os.Stderr, "error:", e)
	}
	if len(errs) > 0 {
		fail(fmt.Errorf("synth reported %d errors", len(errs)))
	}
}

// restoreStderr puts the real stderr back (jsiiquiet.Stderr).
var restoreStderr = func() {}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "infra:", err)
	jsii.Close()
	restoreStderr()
	os.Exit(1)
}
