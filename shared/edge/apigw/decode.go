package apigw

import (
	"encoding/base64"
	"fmt"
	"mime"
	"net/url"
	"strings"

	"github.com/aws/aws-lambda-go/events"

	"github.com/moveleads/partnerapi/shared/app/pipeline"
	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/domain/dashboard"
	"github.com/moveleads/partnerapi/shared/domain/errcode"
	"github.com/moveleads/partnerapi/shared/spec/manifest"
)

// decode turns ev into the pipeline's request for route rt. What cannot be
// read is put in the request (KeyErr, Malformed) for the pipeline to report
// in its order, after authentication.
func decode(rt manifest.Route, ev *events.APIGatewayV2HTTPRequest) *pipeline.Request {
	req := &pipeline.Request{
		Route: rt, RequestID: requestID(ev), PathParam: rt.PathParam(ev.PathParameters),
		UserAgent: ev.RequestContext.HTTP.UserAgent, SourceIP: ev.RequestContext.HTTP.SourceIP,
	}
	if rt.Auth == manifest.AuthPartnerKey {
		authz, _ := header(ev, "authorization")
		key, ok := auth.BearerKey(authz)
		if !ok {
			req.KeyErr = errcode.New(errcode.InvalidAPIKey, "Send your API key as: Authorization: Bearer <API key>.")
		}
		req.Key = key
	}
	if rt.Slug == manifest.DashboardSlug {
		decodeDashboard(req, ev)
	}
	if rt.Auth == manifest.AuthProcessorSignature {
		req.Signature, _ = header(ev, "stripe-signature")
	}
	if rt.Idempotent {
		if v, ok := header(ev, "idempotency-key"); ok {
			req.IdempotencyKey = &v
		}
	}
	var err error
	if req.Query, err = ParseQuery(ev.RawQueryString); err != nil {
		req.Malformed = err
	}
	body, err := decodeBody(rt, ev)
	if err != nil && req.Malformed == nil {
		req.Malformed = err
	}
	req.Body = body
	return req
}

// decodeDashboard reads a dashboard route's credentials: the cookies (API
// Gateway lists them apart from the headers; a Cookie header is read too),
// the Origin and the X-CSRF-Token.
func decodeDashboard(req *pipeline.Request, ev *events.APIGatewayV2HTTPRequest) {
	req.Cookies = append(req.Cookies, ev.Cookies...)
	if c, ok := header(ev, "cookie"); ok {
		req.Cookies = append(req.Cookies, c)
	}
	req.Origin, _ = header(ev, "origin")
	req.CSRF, _ = header(ev, dashboard.CSRFHeader)
}

func header(ev *events.APIGatewayV2HTTPRequest, name string) (string, bool) {
	if v, ok := ev.Headers[name]; ok {
		return v, true
	}
	for k, v := range ev.Headers {
		if strings.EqualFold(k, name) {
			return v, true
		}
	}
	return "", false
}

// ParseQuery parses a raw query string strictly, the same under API
// Gateway and the local stack (API Gateway's own QueryStringParameters
// silently joins repeats with commas). A parameter given more than once, a
// bad percent-escape or a ';' separator answer validation_failed naming
// the parameter; an empty query is no parameters.
func ParseQuery(raw string) (map[string]string, error) {
	out := map[string]string{}
	if raw == "" {
		return out, nil
	}
	fe := errcode.FieldErrors{}
	for part := range strings.SplitSeq(raw, "&") {
		if part == "" {
			continue
		}
		k, v, _ := strings.Cut(part, "=")
		name, err := url.QueryUnescape(k)
		if err != nil {
			fe.Add("query", fmt.Sprintf("cannot be parsed: %q is not a valid percent-encoded name", k))
			continue
		}
		if strings.Contains(k, ";") || strings.Contains(v, ";") {
			fe.Add(name, "contains ';', which is not a query separator here; use '&' between parameters and encode ';' as %3B")
			continue
		}
		val, err := url.QueryUnescape(v)
		if err != nil {
			fe.Add(name, fmt.Sprintf("cannot be parsed: %q is not valid percent-encoding", v))
			continue
		}
		if _, dup := out[name]; dup {
			fe.Add(name, "given more than once; send it once")
			continue
		}
		out[name] = val
	}
	if err := fe.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// decodeBody returns the request body. A body over twice the route's limit
// is refused before decoding (base64 grows a body by a third); the exact
// limit is the pipeline's. A body must be JSON: another Content-Type or a
// Content-Encoding answers 415 (a missing Content-Type is accepted: form
// tools omit it).
func decodeBody(rt manifest.Route, ev *events.APIGatewayV2HTTPRequest) ([]byte, error) {
	if rt.BodyLimit > 0 && len(ev.Body) > 2*rt.BodyLimit {
		return nil, pipeline.TooLarge(rt.BodyLimit)
	}
	body := []byte(ev.Body)
	if ev.IsBase64Encoded {
		b, err := base64.StdEncoding.DecodeString(ev.Body)
		if err != nil {
			return nil, errcode.New(errcode.InvalidJSON, "The request body could not be decoded.")
		}
		body = b
	}
	if len(body) == 0 {
		return body, nil
	}
	if enc, ok := header(ev, "content-encoding"); ok && !strings.EqualFold(strings.TrimSpace(enc), "identity") {
		return body, errcode.New(errcode.UnsupportedMediaType,
			"Content-Encoding %q is not supported; send the JSON body uncompressed.", enc).WithDetail("content_encoding", enc)
	}
	if ct, ok := header(ev, "content-type"); ok && strings.TrimSpace(ct) != "" {
		mt, _, err := mime.ParseMediaType(ct)
		if err == nil && mt == "application/x-www-form-urlencoded" && rt.Slug == manifest.DashboardSlug {
			return body, nil // the dashboard's forms
		}
		if err != nil || !(mt == "application/json" || strings.HasPrefix(mt, "application/") && strings.HasSuffix(mt, "+json")) {
			return body, errcode.New(errcode.UnsupportedMediaType,
				"Content-Type %q is not JSON; send Content-Type: application/json (or omit it).", ct).WithDetail("content_type", ct)
		}
	}
	return body, nil
}
