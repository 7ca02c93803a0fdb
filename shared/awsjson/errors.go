package awsjson

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// ResponseError is an answer other than 200 OK.
type ResponseError struct {
	// Service is the service's name (Options.Service).
	Service string
	// Status is the HTTP status code.
	Status int
	// Code is the service's error type (ThrottlingException,
	// AccessDeniedException, ResourceNotFoundException, …), from the
	// X-Amzn-ErrorType header, else the body's __type, else its code,
	// without namespace or suffix; the status text without spaces
	// ("ServiceUnavailable") when the answer names none.
	Code string
	// Message is the service's message, if the answer had one.
	Message string
	// RequestID is the service's request id (x-amzn-RequestId), for AWS
	// support.
	RequestID string
}

func (e *ResponseError) Error() string {
	msg := fmt.Sprintf("%s answered %d %s", e.Service, e.Status, e.Code)
	if e.Message != "" {
		msg += ": " + e.Message
	}
	if e.RequestID != "" {
		msg += " (request id " + e.RequestID + ")"
	}
	return msg
}

// readError reads an error answer of the JSON 1.1 protocol: the code from
// the X-Amzn-ErrorType header, else the body's __type, else its code; the
// message from the body's message. Body members are matched whatever
// their case (Rekognition sends "Code" and "Message"); a body that is not
// a JSON object, is cut short or has members that are not strings gives
// none of them.
func readError(service string, resp *http.Response) *ResponseError {
	e := &ResponseError{Service: service, Status: resp.StatusCode, RequestID: resp.Header.Get("X-Amzn-Requestid")}
	data, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	var body struct {
		Type    string `json:"__type"`
		Code    string `json:"code"`
		Message string `json:"message"`
	}
	// A member of another type is skipped, the others still read.
	_ = json.Unmarshal(data, &body)
	code := resp.Header.Get("X-Amzn-Errortype")
	if code == "" {
		code = body.Type
	}
	if code == "" {
		code = body.Code
	}
	e.Code, e.Message = sanitizeCode(code), body.Message
	if e.Code == "" {
		e.Code = strings.ReplaceAll(http.StatusText(resp.StatusCode), " ", "")
	}
	return e
}

// sanitizeCode strips an error code's namespace
// ("com.amazonaws.rekognition#ThrottlingException") and suffix
// ("ThrottlingException:http://internal.amazon.com/…"), as the SDK does.
func sanitizeCode(code string) string {
	code, _, _ = strings.Cut(code, ":")
	if i := strings.LastIndexByte(code, '#'); i >= 0 {
		code = code[i+1:]
	}
	return strings.TrimSpace(code)
}
