package agenttools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/google/uuid"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/moveleads/partnerapi/shared/app/pipeline"
	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/domain/partner"
	"github.com/moveleads/partnerapi/shared/spec/manifest"
)

// Implementation is the server's name and version in the MCP handshake.
var Implementation = &mcp.Implementation{Name: "moveleads-partner-api", Title: "MoveLeads partner API", Version: "1.0.0"}

// Instructions is what the server tells a connected client about itself.
const Instructions = "Tools for a moving company's lead intake: create and find leads, send the customer a video-survey link, " +
	"share the survey's video with a carrier, and (beta) quote, record acceptance and take a deposit. " +
	"Every tool acts for the one moving company whose API key the server holds, in its test or live mode. " +
	"Errors come back as the API's error object: {\"error\": {\"code\", \"message\", \"details\"}}; read the message, fix the arguments it names, and do not retry validation errors unchanged."

// Backend runs the tools' operations: the same pipeline and endpoints the
// HTTP API runs, in process.
type Backend struct {
	Pipeline  *pipeline.Pipeline
	Endpoints map[manifest.Operation]pipeline.Endpoint
	Log       *slog.Logger
	cache     *mcp.SchemaCache
}

// NewBackend returns the backend over p and eps (which must hold an
// endpoint for every tool's operation).
func NewBackend(p *pipeline.Pipeline, eps []pipeline.Endpoint, log *slog.Logger) (*Backend, error) {
	b := &Backend{Pipeline: p, Endpoints: map[manifest.Operation]pipeline.Endpoint{}, Log: log, cache: mcp.NewSchemaCache()}
	if b.Log == nil {
		b.Log = slog.New(slog.DiscardHandler)
	}
	for _, ep := range eps {
		b.Endpoints[ep.Operation] = ep
	}
	for _, t := range Tools {
		if _, ok := b.Endpoints[t.Operation]; !ok {
			return nil, fmt.Errorf("agenttools: no endpoint for tool %s (%s)", t.Name, t.Operation)
		}
	}
	return b, nil
}

// Caller is who calls the tools of one server: the key, as the transport
// got it, and what it knows of the client.
type Caller struct {
	// Key is the partner API key.
	Key string
	// Admitted, when set, is the key as the transport admitted it for the
	// request that carries the calls (HTTP): the calls run as it and are
	// not counted again. Nil (stdio): each call is admitted, and counted,
	// as an API request is.
	Admitted *auth.Principal
	// RequestID names the transport's request in logs ("" for a fresh id
	// per call).
	RequestID string
	// UserAgent and SourceIP describe the client, for the records an
	// operation keeps (acceptance evidence).
	UserAgent, SourceIP string
}

// Visible returns the tools p may call: those whose operation's scope p
// has and whose beta feature partner has enabled.
func Visible(p auth.Principal, ptn partner.Partner) []*Tool {
	var out []*Tool
	for _, t := range Tools {
		rt := t.Route()
		if rt.Scope != "" && !p.Has(rt.Scope) {
			continue
		}
		if rt.Beta != "" && !ptn.BetaEnabled(rt.Beta) {
			continue
		}
		out = append(out, t)
	}
	return out
}

// Server returns an MCP server with the tools of Visible(p, partner),
// each running as c.
func (b *Backend) Server(c Caller, p auth.Principal, ptn partner.Partner) *mcp.Server {
	s := mcp.NewServer(Implementation, &mcp.ServerOptions{
		Instructions: Instructions, SchemaCache: b.cache, Logger: b.Log,
	})
	run := func(ctx context.Context, op manifest.Operation, cl call) (int, []byte) { return b.run(ctx, c, op, cl) }
	for _, t := range Visible(p, ptn) {
		t.register(s, t, run)
	}
	return s
}

// run runs op for c with the request cl makes, through the pipeline, and
// returns the status and body the HTTP API would answer.
func (b *Backend) run(ctx context.Context, c Caller, op manifest.Operation, cl call) (int, []byte) {
	req := &pipeline.Request{
		Route: manifest.ByOperation(op), RequestID: c.RequestID, Key: c.Key, Admitted: c.Admitted,
		PathParam: cl.PathParam, Query: cl.Query, UserAgent: c.UserAgent, SourceIP: c.SourceIP,
	}
	if req.RequestID == "" {
		req.RequestID = uuid.NewString()
	}
	if req.Query == nil {
		req.Query = map[string]string{}
	}
	if cl.Body != nil {
		body, err := json.Marshal(cl.Body)
		if err != nil {
			b.Log.ErrorContext(ctx, "agent tool: encode the body", "operation", string(op), "error", err.Error())
			return 500, internalBody()
		}
		req.Body = body
	}
	if cl.IdempotencyKey != "" && req.Route.Idempotent {
		k := cl.IdempotencyKey
		req.IdempotencyKey = &k
	}
	res := b.Pipeline.Run(ctx, b.Endpoints[op], req)
	attrs := []any{"request_id", req.RequestID, "operation", string(op), "status", res.Status, "transport", transport(c)}
	if res.Principal != nil {
		attrs = append(attrs, "partner_id", res.Principal.PartnerID, "mode", string(res.Principal.Mode))
	}
	if res.Err != nil && res.Status >= 500 {
		attrs = append(attrs, "error", res.Err.Error())
	}
	b.Log.InfoContext(ctx, "agent tool call", attrs...)
	return res.Status, res.Body
}

func transport(c Caller) string {
	if c.Admitted != nil {
		return "http"
	}
	return "stdio"
}

// internalBody is the API's answer to an internal error (rendered when
// first needed: init stays free of JSON work).
func internalBody() []byte { _, b := pipeline.Render(errors.New("internal")); return b }

// inputSchema is the schema of In for a tool's arguments: inferred, with
// idempotency_key described once and the enumerations the API checks.
func inputSchema[In any]() *jsonschema.Schema {
	s := mustSchema[In]()
	for name, p := range s.Properties {
		switch name {
		case "idempotency_key":
			p.Description = idempotencyDoc
		case "estimate_type":
			p.Enum = []any{"non_binding", "binding", "binding_not_to_exceed"}
		case "liability_election":
			p.Enum = []any{"released_value", "full_value_protection"}
		}
		if strings.HasSuffix(name, "_id") && p.Type == "string" {
			p.Format = "uuid"
		}
	}
	return s
}

// mustSchema infers T's schema; the types are this package's, so a
// failure is a programming error every test catches.
func mustSchema[T any]() *jsonschema.Schema {
	s, err := jsonschema.For[T](nil)
	if err != nil {
		panic(fmt.Sprintf("agenttools: schema of %T: %v", *new(T), err))
	}
	return s
}
