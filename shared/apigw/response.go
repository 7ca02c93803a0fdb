package apigw

import (
	"encoding/json"

	"github.com/aws/aws-lambda-go/events"

	"github.com/moveleads/partnerapi/shared/auth"
	"github.com/moveleads/partnerapi/shared/errcode"
)

// response is an operation's answer before the pipeline adds its headers.
type response struct {
	status   int
	body     []byte
	replayed bool
}

// jsonResponse marshals v. Views are plain structs, so marshalling cannot
// fail short of a programming error, which the tests catch.
func jsonResponse(status int, v any) *response {
	b, err := json.Marshal(v)
	if err != nil {
		return errorResponse(err)
	}
	return &response{status: status, body: b}
}

type errorBody struct {
	Error errorDetail `json:"error"`
}

type errorDetail struct {
	Code    errcode.Code   `json:"code"`
	Message string         `json:"message"`
	Details map[string]any `json:"details"`
}

// errorResponse renders err as the spec's error body. An error without a
// code is internal: its text goes to the log, never to the client.
func errorResponse(err error) *response {
	e := errcode.As(err)
	if e == nil {
		e = errcode.New(errcode.Internal, "An internal error occurred; nothing was written. Retry the request.")
	}
	details := e.Details
	if details == nil {
		details = map[string]any{}
	}
	b, _ := json.Marshal(errorBody{Error: errorDetail{Code: e.Code, Message: e.Message, Details: details}})
	return &response{status: errcode.Status(e.Code), body: b}
}

// lambda renders r with the headers every response carries.
func (r *response) lambda(req *request, usage *auth.Usage) events.APIGatewayV2HTTPResponse {
	h := map[string]string{
		"Content-Type":  "application/json",
		"Cache-Control": "no-store",
		"X-Request-Id":  req.id,
	}
	if usage != nil {
		rateHeaders(usage, req.now, h)
	}
	if r.replayed {
		h["Idempotent-Replayed"] = "true"
	}
	return events.APIGatewayV2HTTPResponse{StatusCode: r.status, Headers: h, Body: string(r.body)}
}
