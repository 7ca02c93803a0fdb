package stack

import (
	"errors"
	"fmt"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsapigatewayv2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsdynamodb"
	"github.com/aws/aws-cdk-go/awscdk/v2/awss3"

	"github.com/moveleads/partnerapi/shared/manifest"
)

// wiring is what a trigger may connect a function to: the resources of the
// stack that start functions.
type wiring struct {
	stack awscdk.Stack
	api   awsapigatewayv2.HttpApi
	table awsdynamodb.Table
	clips awss3.Bucket
}

// triggers connects each kind of trigger the stack deploys (manifest
// TriggerKind) to a function. Adding a kind is one entry here: a function
// that declares what starts f (an S3 notification on w.clips, an event
// source on the table's stream, a schedule rule, a queue with its
// dead-letter queue and event source) and grants f what that needs.
var triggers = map[manifest.TriggerKind]func(w wiring, f function){
	manifest.TriggerHTTP: connectHTTP,
}

// connectTriggers connects every function to what starts it. It panics,
// naming the function, for a trigger kind the stack does not deploy yet;
// New refuses such a manifest first (checkFunctions), so that synth fails
// with a clear error before anything is declared.
func connectTriggers(w wiring, fns []function) {
	for _, f := range fns {
		connect, ok := triggers[f.spec.Trigger()]
		if !ok {
			panic(fmt.Sprintf("stack: function %s: trigger %q is not deployed by infra/stack yet: add it to triggers",
				f.spec.Slug, f.spec.Trigger()))
		}
		connect(w, f)
	}
}

// checkFunctions reports every manifest entry the stack cannot deploy as
// declared: a function without exactly one trigger, with a trigger kind
// the stack does not connect, or with bucket access (no function has it
// yet, so the stack grants none and passes no bucket name: silently
// deploying it without would fail at run time); and more than one $default
// route (an HTTP API has one).
func checkFunctions(fns []manifest.Function) error {
	var errs []error
	var defaults []string
	for _, f := range fns {
		kind := f.Trigger()
		if kind == "" {
			errs = append(errs, fmt.Errorf("function %s declares no trigger or more than one", f.Slug))
		} else if _, ok := triggers[kind]; !ok {
			errs = append(errs, fmt.Errorf("function %s: trigger %q is not deployed by infra/stack yet (add it to triggers)", f.Slug, kind))
		}
		if len(f.Bucket.Read) > 0 || len(f.Bucket.Write) > 0 {
			errs = append(errs, fmt.Errorf("function %s: bucket access is not deployed by infra/stack yet (grants and the bucket's name)", f.Slug))
		}
		for _, r := range f.HTTP {
			if r.IsDefault() {
				defaults = append(defaults, f.Slug)
			}
		}
	}
	if len(defaults) > 1 {
		errs = append(errs, fmt.Errorf("functions %q all serve the $default route; an HTTP API has one", defaults))
	}
	return errors.Join(errs...)
}
