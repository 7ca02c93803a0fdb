// Command v1-lead-get is the Lambda function behind the v1-lead-get route (see
// shared/route). It only wires: the handler is built once, at init, and
// serves only this endpoint, so the binary links only its code.
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/moveleads/partnerapi/shared/apigw"
)

func main() {
	h, err := apigw.NewFromEnv(context.Background(), nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, "init:", err)
		os.Exit(1)
	}
	lambda.Start(h.Serve(apigw.GetLead()))
}
