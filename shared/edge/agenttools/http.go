package agenttools

import (
	"bytes"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/moveleads/partnerapi/shared/app/pipeline"
	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/domain/errcode"
	"github.com/moveleads/partnerapi/shared/domain/partner"
	"github.com/moveleads/partnerapi/shared/spec/manifest"
)

// HTTPOptions configure the HTTP transport.
type HTTPOptions struct {
	// AllowedOrigins are the web origins (scheme://host[:port]) whose
	// pages may call the transport from a browser. A request with an
	// Origin header not listed is refused: MCP clients are programs and
	// send none, and refusing browsers' cross-site and DNS-rebinding
	// requests is the spec's advice. Empty: no browser may call.
	AllowedOrigins []string
	// Now defaults to time.Now (for the rate-limit headers).
	Now func() time.Time
	// AnswerLimit bounds one answer in bytes; 0 is
	// manifest.AgentToolsAnswerLimit (tests lower it).
	AnswerLimit int
}

// HTTPHandler serves the tools over MCP's streamable HTTP transport,
// stateless, answering JSON (no event streams), at any path (the edge
// routes /v1-mcp and /v1/mcp here). Each request carries the partner API
// key in the X-Partner-Key header (manifest.AgentKeyHeader); Authorization
// is left to the client. Before any MCP handling, a request
//   - from a browser origin not allowed answers 403 origin_not_allowed;
//   - over manifest.AgentToolsBodyLimit answers 413 payload_too_large;
//   - with a Content-Type other than JSON or a Content-Encoding answers
//     415, and with an Accept that does not allow JSON 400 bad_request;
//   - without a valid key answers 401 invalid_api_key, and over the key's
//     rate limit 429 rate_limited;
//   - whose body is not one JSON object (a JSON-RPC batch among them)
//     answers 422 invalid_json;
//
// all with the API's error body and headers. A message that is not a
// request or notification this server takes answers 400 with a JSON-RPC
// error object. So a request carries at most one tool call, counted once
// against the key's limit like one API request, and run as that key
// without being counted again. An answer over the AnswerLimit is replaced
// by a JSON-RPC error saying to ask for less. tools/list shows only the
// tools the key's scopes and the partner's beta features allow.
func (b *Backend) HTTPHandler(o HTTPOptions) http.Handler {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.AnswerLimit <= 0 {
		o.AnswerLimit = manifest.AgentToolsAnswerLimit
	}
	route := manifest.ByOperation(manifest.AgentTools)
	// The SDK's Host check (DNS rebinding) is off: it applies only where
	// the listener is loopback (make dev, never behind API Gateway) and
	// answers plain text; the Origin check above it refuses browser pages
	// everywhere, and every request needs the key.
	opts := &mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true, MaxRequestBodyBytes: int64(route.BodyLimit), DisableLocalhostProtection: true}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := r.Header.Get("X-Request-Id")
		if id == "" {
			id = uuid.NewString()
		}
		fail := func(err error, res pipeline.Result) {
			res.Status, res.Body = pipeline.Render(err)
			writeResult(w, id, res, o.Now())
		}
		if origin := r.Header.Get("Origin"); origin != "" && !slices.Contains(o.AllowedOrigins, origin) {
			fail(errcode.New(errcode.OriginNotAllowed, "Requests from the web origin %s are not allowed; call the agent tool server from a program, not a browser page.", origin), pipeline.Result{})
			return
		}
		body, err := io.ReadAll(io.LimitReader(r.Body, int64(route.BodyLimit)+1))
		if err != nil {
			fail(errcode.New(errcode.BadRequest, "The request body could not be read."), pipeline.Result{})
			return
		}
		if len(body) > route.BodyLimit {
			fail(pipeline.TooLarge(route.BodyLimit), pipeline.Result{})
			return
		}
		if err := mediaTypes(r.Header); err != nil {
			fail(err, pipeline.Result{})
			return
		}
		req := &pipeline.Request{
			Route: route, RequestID: id, Key: r.Header.Get(manifest.AgentKeyHeader),
			UserAgent: r.UserAgent(), SourceIP: sourceIP(r),
		}
		if strings.TrimSpace(req.Key) == "" {
			req.KeyErr = errcode.New(errcode.InvalidAPIKey, "Send your API key in the %s header.", manifest.AgentKeyHeader)
		}
		pr, res, err := b.Pipeline.Admit(r.Context(), req)
		if err != nil {
			fail(err, res)
			return
		}
		msg, err := readMessage(body)
		if err != nil {
			b.refuse(w, id, res, o.Now(), err)
			return
		}
		ptn, err := b.Pipeline.Partner(r.Context(), pr.PartnerID)
		if err != nil {
			fail(err, res)
			return
		}
		srv := b.Server(Caller{Key: req.Key, Admitted: &pr, RequestID: id, UserAgent: req.UserAgent, SourceIP: req.SourceIP}, pr, ptn)
		// The SDK wants these exactly; readMessage and mediaTypes checked
		// what this server needs of them.
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Accept", "application/json, text/event-stream")
		cw := &capture{header: http.Header{}, limit: o.AnswerLimit}
		mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, opts).ServeHTTP(cw, r)
		if cw.status == 0 {
			cw.status = http.StatusOK
		}
		ct, _, _ := mime.ParseMediaType(cw.header.Get("Content-Type"))
		switch {
		case cw.status >= 400 && ct != "application/json":
			b.Log.InfoContext(r.Context(), "agent tools: the SDK refused the request", "request_id", id, "status", cw.status)
			b.refuse(w, id, res, o.Now(), sdkRefusal(msg, cw.status, cw.body.String()))
			return
		case cw.size > o.AnswerLimit:
			b.Log.InfoContext(r.Context(), "agent tools: answer over the limit", "request_id", id, "bytes", cw.size, "limit", o.AnswerLimit)
			res.Status, res.Body = http.StatusOK, (&rpcError{id: msg.id, code: jsonrpc.CodeInvalidParams, data: map[string]any{"max_bytes": o.AnswerLimit},
				message: fmt.Sprintf("The answer would be %d bytes, over the %d bytes one answer may carry, so none of it was sent. Ask for less: e.g. list_leads with a smaller limit, a page at a time.", cw.size, o.AnswerLimit)}).body()
		case ct == "application/json":
			res.Status, res.Body = cw.status, sanitize(msg, cw.body.Bytes(), func(name string) bool { return visibleTool(pr, ptn, name) })
		default: // 202 to a notification: no body
			res.Status, res.Body = cw.status, cw.body.Bytes()
		}
		for k, v := range res.Headers(id, o.Now()) {
			w.Header().Set(k, v)
		}
		if len(res.Body) == 0 {
			w.Header().Del("Content-Type")
		}
		w.WriteHeader(res.Status)
		_, _ = w.Write(res.Body)
	})
}

// refuse answers err for an admitted request (res carries its count): a
// JSON-RPC-level refusal as a JSON-RPC error object (400), anything else
// as the API's error body.
func (b *Backend) refuse(w http.ResponseWriter, id string, res pipeline.Result, now time.Time, err error) {
	if re, ok := err.(*rpcError); ok {
		res.Status, res.Body = http.StatusBadRequest, re.body()
	} else {
		res.Status, res.Body = pipeline.Render(err)
	}
	writeResult(w, id, res, now)
}

// mediaTypes checks the request's body headers as the API's edge does (a
// missing Content-Type is accepted) and that Accept, when sent, allows the
// JSON this server answers.
func mediaTypes(h http.Header) error {
	if enc := h.Get("Content-Encoding"); enc != "" && !strings.EqualFold(strings.TrimSpace(enc), "identity") {
		return errcode.New(errcode.UnsupportedMediaType, "Content-Encoding is not supported; send the JSON-RPC message uncompressed.")
	}
	if ct := strings.TrimSpace(h.Get("Content-Type")); ct != "" {
		mt, _, err := mime.ParseMediaType(ct)
		if err != nil || !(mt == "application/json" || strings.HasPrefix(mt, "application/") && strings.HasSuffix(mt, "+json")) {
			return errcode.New(errcode.UnsupportedMediaType, "The Content-Type is not JSON; send the JSON-RPC message with Content-Type: application/json.")
		}
	}
	if accept := strings.TrimSpace(strings.Join(h.Values("Accept"), ",")); accept != "" && !acceptsJSON(accept) {
		return errcode.New(errcode.BadRequest, "The Accept header does not allow application/json, the only form this server answers in; send Accept: application/json, text/event-stream.")
	}
	return nil
}

// acceptsJSON reports whether the Accept header allows application/json.
func acceptsJSON(accept string) bool {
	for part := range strings.SplitSeq(accept, ",") {
		mt, params, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err != nil || params["q"] == "0" {
			continue
		}
		if mt == "application/json" || mt == "application/*" || mt == "*/*" {
			return true
		}
	}
	return false
}

// visibleTool reports whether the tool named name is one p may call.
func visibleTool(p auth.Principal, ptn partner.Partner, name string) bool {
	return slices.ContainsFunc(Visible(p, ptn), func(t *Tool) bool { return t.Name == name })
}

// capture buffers the SDK's answer (JSON, never a stream here) and counts
// its size; past limit it keeps counting but stops keeping.
type capture struct {
	header http.Header
	status int
	body   bytes.Buffer
	size   int
	limit  int
}

func (c *capture) Header() http.Header { return c.header }

func (c *capture) WriteHeader(status int) {
	if c.status == 0 {
		c.status = status
	}
}

func (c *capture) Write(p []byte) (int, error) {
	c.WriteHeader(http.StatusOK)
	c.size += len(p)
	if c.size <= c.limit {
		c.body.Write(p)
	}
	return len(p), nil
}

// writeResult writes res with the API's headers.
func writeResult(w http.ResponseWriter, id string, res pipeline.Result, now time.Time) {
	for k, v := range res.Headers(id, now) {
		w.Header().Set(k, v)
	}
	w.WriteHeader(res.Status)
	_, _ = w.Write(res.Body)
}

// sourceIP is the client's address without its port.
func sourceIP(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}
