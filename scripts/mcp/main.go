// Command mcp is the agent tool server's local transport: MCP over stdio,
// for a desktop MCP client or an agent framework that starts it as a
// process. It serves one partner API key, read from the PARTNER_API_KEY
// environment variable (never a flag, which ps would show), for the life
// of the process, and runs the tools' operations in process against the
// table, bucket and Stripe of its environment:
//
//	PARTNER_API_KEY=mk_test_… go run ./scripts/mcp
//
// Environment: while make dev runs, the variables of <repo
// root>/.local/dev.json win over the process's (as scripts/invoke);
// otherwise the process environment, as a deployed function's (TABLE_NAME,
// AWS_REGION and credentials, CURSOR_SECRET[_ARN], CAPTURE_LINK_KEY[_ARN],
// STRIPE_API_KEYS[_ARN], CLIP_BUCKET, PUBLIC_BASE_URL). stdout carries the protocol only; one
// line on stderr says where the environment came from, and the server's
// log lines (JSON, never a key) go to stderr.
//
// It checks the key once at start (which counts as one request against
// its rate limit) and exits 1 with a message on stderr when it is missing,
// unknown or revoked; each tool call then counts as one API request.
// tools/list shows the tools the key's scopes and the partner's beta
// features allow (docs/AGENT-TOOLS.md).
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/google/uuid"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/moveleads/partnerapi/scripts/devstack/devfile"
	"github.com/moveleads/partnerapi/shared/app/pipeline"
	"github.com/moveleads/partnerapi/shared/domain/errcode"
	"github.com/moveleads/partnerapi/shared/edge/agenttools"
	"github.com/moveleads/partnerapi/shared/spec/manifest"
	"github.com/moveleads/partnerapi/shared/wire/awsenv"
	"github.com/moveleads/partnerapi/shared/wire/mcpwiring"
)

// KeyVar is the environment variable that holds the partner API key.
const KeyVar = "PARTNER_API_KEY"

// StdioUserAgent is the user agent the stdio transport's calls record.
const StdioUserAgent = "moveleads-agent-tools-stdio/1.0"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	env := devfile.Choose(ctx, os.Getenv)
	err := serve(ctx, env, os.Getenv(KeyVar), &mcp.StdioTransport{}, os.Stderr)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "mcp:", err)
		os.Exit(1)
	}
}

// serve serves the tools for key over t until the client goes away or ctx
// ends, with the environment env chose; log lines go to stderr.
func serve(ctx context.Context, env devfile.Choice, key string, t mcp.Transport, stderr io.Writer) error {
	key = strings.TrimSpace(key)
	if key == "" {
		return fmt.Errorf("set %s to the partner API key to serve (mk_test_… or mk_live_…)", KeyVar)
	}
	e, err := awsenv.LoadFrom(env.Getenv)
	if err != nil {
		return fmt.Errorf("environment %s: %w", env.Origin(), err)
	}
	e.Log = slog.New(slog.NewJSONHandler(stderr, nil))
	fmt.Fprintf(stderr, "mcp: using table %s, %s\n", env.Getenv("TABLE_NAME"), env.Origin())
	b, err := mcpwiring.Backend(e)
	if err != nil {
		return err
	}
	pr, _, err := b.Pipeline.Admit(ctx, &pipeline.Request{
		Route: manifest.ByOperation(manifest.AgentTools), RequestID: uuid.NewString(), Key: key,
	})
	if err != nil {
		if ce := errcode.As(err); ce != nil {
			return fmt.Errorf("%s: %s (%s)", KeyVar, ce.Message, ce.Code)
		}
		return fmt.Errorf("check the key: %w", err)
	}
	partner, err := b.Pipeline.Partner(ctx, pr.PartnerID)
	if err != nil {
		return fmt.Errorf("read the partner's settings: %w", err)
	}
	// The client is a process on this machine: acceptance evidence
	// records the loopback address and this transport as the user agent.
	srv := b.Server(agenttools.Caller{Key: key, UserAgent: StdioUserAgent, SourceIP: "127.0.0.1"}, pr, partner)
	err = srv.Run(ctx, t)
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, io.EOF) {
		return nil
	}
	return err
}
