package apigw

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/moveleads/partnerapi/shared/app/pipeline"
	"github.com/moveleads/partnerapi/shared/domain/errcode"
	"github.com/moveleads/partnerapi/shared/spec/manifest"
)

// ServeHTTP returns the Lambda handler of a route served by an
// http.Handler rather than the pipeline's endpoints (the agent tool
// server, whose protocol is its own): each event becomes an *http.Request
// (method, raw path and query, headers, the body decoded from base64 when
// API Gateway encoded it, the client's address as RemoteAddr, and
// X-Request-Id set to API Gateway's request id, whatever the client sent),
// and the handler's answer becomes the response event (a header given
// several values is joined with commas). It writes the request's one log
// line as Serve does, never a header.
func ServeHTTP(rt manifest.Route, h http.Handler, log *slog.Logger) LambdaFunc {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return func(ctx context.Context, ev events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error) {
		start := time.Now()
		id := requestID(&ev)
		var res pipeline.Result
		r, err := httpRequest(ctx, &ev, id)
		if err != nil {
			res.Err = errcode.New(errcode.BadRequest, "The request could not be read: %s.", err)
			res.Status, res.Body = pipeline.Render(res.Err)
			out := encode(id, res, time.Now())
			logLine(ctx, log, rt, &ev, id, res, start)
			return out, nil
		}
		w := &recorder{header: http.Header{}}
		h.ServeHTTP(w, r)
		if w.status == 0 {
			w.status = http.StatusOK
		}
		out := events.APIGatewayV2HTTPResponse{StatusCode: w.status, Headers: map[string]string{}, Body: w.body.String()}
		for k, v := range w.header {
			out.Headers[k] = strings.Join(v, ",")
		}
		res.Status = w.status
		logLine(ctx, log, rt, &ev, id, res, start)
		return out, nil
	}
}

// httpRequest is ev as an *http.Request.
func httpRequest(ctx context.Context, ev *events.APIGatewayV2HTTPRequest, id string) (*http.Request, error) {
	body := []byte(ev.Body)
	if ev.IsBase64Encoded {
		b, err := base64.StdEncoding.DecodeString(ev.Body)
		if err != nil {
			return nil, fmt.Errorf("the body is not base64")
		}
		body = b
	}
	target := ev.RawPath
	if target == "" {
		target = "/"
	}
	if ev.RawQueryString != "" {
		target += "?" + ev.RawQueryString
	}
	u, err := url.ParseRequestURI(target)
	if err != nil {
		return nil, fmt.Errorf("the path is not a valid URL path")
	}
	method := ev.RequestContext.HTTP.Method
	if method == "" {
		method = http.MethodPost
	}
	r, err := http.NewRequestWithContext(ctx, method, "/", bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("the method is not valid")
	}
	r.URL, r.RequestURI = u, target
	for k, v := range ev.Headers {
		r.Header.Set(k, v)
	}
	for _, c := range ev.Cookies {
		r.Header.Add("Cookie", c)
	}
	r.Host = r.Header.Get("Host")
	if r.Host == "" {
		r.Host = ev.RequestContext.DomainName
	}
	r.Header.Set("X-Request-Id", id)
	r.RemoteAddr = ev.RequestContext.HTTP.SourceIP + ":0"
	r.Proto, r.ProtoMajor, r.ProtoMinor = "HTTP/1.1", 1, 1
	r.ContentLength = int64(len(body))
	return r, nil
}

// recorder is the http.ResponseWriter of ServeHTTP.
type recorder struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (w *recorder) Header() http.Header { return w.header }

func (w *recorder) WriteHeader(status int) {
	if w.status == 0 {
		w.status = status
	}
}

func (w *recorder) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.body.Write(p)
}

// Flush lets handlers that flush (event streams) run; the answer is sent
// whole when the handler returns.
func (w *recorder) Flush() {}
