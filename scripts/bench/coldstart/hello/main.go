// Command hello is the cold-start baseline: the smallest aws-lambda-go
// function behind API Gateway, answering every request with a fixed 200.
// The cold-start benchmark builds it exactly as the release build builds
// the functions and reports each function's init time over this one's.
package main

import (
	"context"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambda"
)

func main() {
	lambda.Start(hello)
}

func hello(context.Context, events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error) {
	return events.APIGatewayV2HTTPResponse{
		StatusCode: 200,
		Headers:    map[string]string{"Content-Type": "application/json"},
		Body:       `{"hello":"world"}`,
	}, nil
}
