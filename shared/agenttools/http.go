package agenttools

import (
	"bytes"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/moveleads/partnerapi/shared/api"
	"github.com/moveleads/partnerapi/shared/errcode"
	"github.com/moveleads/partnerapi/shared/manifest"
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
}

// HTTPHandler serves the tools over MCP's streamable HTTP transport,
// stateless, answering JSON (no event streams), at any path (the edge
// routes /v1-mcp and /v1/mcp here). Each request carries the partner API
// key in the X-Partner-Key header (manifest.AgentKeyHeader); Authorization
// is left to the client. Before any MCP handling, a request
//   - from a browser origin not allowed answers 403 origin_not_allowed;
//   - over manifest.AgentToolsBodyLimit answers 413 payload_too_large;
//   - without a valid key answers 401 invalid_api_key, and over the key's
//     rate limit 429 rate_limited, with the API's error body and headers.
//
// The request is counted once against the key's limit, like one API
// request, and the tool calls in it run as that key without being counted
// again. tools/list shows only the tools the key's scopes and the
// partner's beta features allow.
func (b *Backend) HTTPHandler(o HTTPOptions) http.Handler {
	if o.Now == nil {
		o.Now = time.Now
	}
	route := manifest.ByOperation(manifest.AgentTools)
	opts := &mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true, MaxRequestBodyBytes: int64(route.BodyLimit)}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := r.Header.Get("X-Request-Id")
		if id == "" {
			id = uuid.NewString()
		}
		fail := func(err error, res api.Result) {
			res.Status, res.Body = api.Render(err)
			writeResult(w, id, res, o.Now())
		}
		if origin := r.Header.Get("Origin"); origin != "" && !slices.Contains(o.AllowedOrigins, origin) {
			fail(errcode.New(errcode.OriginNotAllowed, "Requests from the web origin %s are not allowed; call the agent tool server from a program, not a browser page.", origin), api.Result{})
			return
		}
		body, err := io.ReadAll(io.LimitReader(r.Body, int64(route.BodyLimit)+1))
		if err != nil {
			fail(errcode.New(errcode.BadRequest, "The request body could not be read."), api.Result{})
			return
		}
		if len(body) > route.BodyLimit {
			fail(api.TooLarge(route.BodyLimit), api.Result{})
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		req := &api.Request{
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
		partner, err := b.Pipeline.Partner(r.Context(), pr.PartnerID)
		if err != nil {
			fail(err, res)
			return
		}
		srv := b.Server(Caller{Key: req.Key, Admitted: &pr, RequestID: id, UserAgent: req.UserAgent, SourceIP: req.SourceIP}, pr, partner)
		for k, v := range res.Headers(id, o.Now()) {
			if k != "Content-Type" {
				w.Header().Set(k, v)
			}
		}
		mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, opts).ServeHTTP(w, r)
	})
}

// writeResult writes res with the API's headers.
func writeResult(w http.ResponseWriter, id string, res api.Result, now time.Time) {
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
