package architecture

import "strings"

// exception is an import that breaks its folder's rule on purpose. From
// ending in "/" covers every package under it.
type exception struct{ from, to string }

// exceptions are every import the folder rules allow by name, each with
// its reason. A test fails when one excuses nothing any more: delete it
// then.
var exceptions = map[exception]string{
	{"shared/adapter/dynamo", "shared/app/pipeline/idempotency"}: "the store keeps the Idempotency-Key protocol's claims: pipeline/idempotency's types are what the pipeline's Store port takes",
	{"shared/adapter/dynamo", "shared/app/record"}:               "the records the features exchange with their Store ports (its types are the ports')",

	{"shared/edge/", "shared/wire/awsenv"}: "each edge's Start loads the function's environment (awsenv) before the builder runs, so a main stays one line; awsenv is the wiring's root, not an adapter",

	{"shared/spec/openapi/webhookexample", "shared/adapter/webhookhttp"}: "the document's webhook examples are signed with the real signer so that they verify; only docgen and tests import it",
}

// excused returns the exception that allows from to import to.
func excused(from, to string) (exception, bool) {
	for e := range exceptions {
		if e.to == to && (e.from == from || strings.HasSuffix(e.from, "/") && strings.HasPrefix(from, e.from)) {
			return e, true
		}
	}
	return exception{}, false
}
