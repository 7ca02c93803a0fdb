// Command v1-leads-list is the Lambda function behind the v1-leads-list route (see
// shared/route). It only wires: the handler is built once, at init.
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/moveleads/partnerapi/shared/apigw"
	"github.com/moveleads/partnerapi/shared/route"
)

func main() {
	h, err := apigw.NewFromEnv(context.Background())
	if err != nil {
		fmt.Fprintln(os.Stderr, "init:", err)
		os.Exit(1)
	}
	lambda.Start(h.Route(route.ListLeads))
}
