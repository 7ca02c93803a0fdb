// Command webhook-listen is a webhook receiver for partners' developers on
// the local stack, like `stripe listen`: it listens on 127.0.0.1:PORT,
// registers itself as a test-mode webhook endpoint of make dev's demo
// partner (from .local/dev.json), and prints each event it receives with
// the result of verifying its signature with the Standard Webhooks library.
// Ctrl-C disables the endpoint and exits.
//
//	go run ./scripts/webhook-listen [--port 4000]
//
// It needs a running make dev: the stack's loopback-allowing setting
// (WEBHOOK_ALLOW_LOOPBACK, local only) is what lets a delivery reach it.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"github.com/moveleads/partnerapi/scripts/devstack/devfile"
	"github.com/moveleads/partnerapi/scripts/webhook-listen/listener"
	"github.com/moveleads/partnerapi/shared/spec/settings"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "webhook-listen:", err)
		os.Exit(1)
	}
}

// run listens until ctx ends.
func run(ctx context.Context, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("webhook-listen", flag.ContinueOnError)
	port := fs.Int("port", 4000, "port to listen on (127.0.0.1)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	env := devfile.Choose(ctx, os.Getenv)
	if !env.FromFile {
		return fmt.Errorf("no running make dev (%s): start it first", env.Skipped)
	}
	if env.File.Env[settings.WebhookAllowLoopback] != "1" {
		return errors.New("this make dev does not deliver webhooks to loopback; restart it (make dev) with the current code")
	}
	store, sealer, err := listener.Open(env.File)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(*port)))
	if err != nil {
		return fmt.Errorf("port %d is taken (use --port N): %w", *port, err)
	}
	defer ln.Close()
	url := "http://" + ln.Addr().String() + "/webhooks"
	ep, secret, err := listener.Register(ctx, store, sealer, env.File.PartnerID, url, time.Now())
	if err != nil {
		return err
	}
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := listener.Unregister(ctx, store, ep, time.Now()); err != nil {
			fmt.Fprintln(out, "could not disable the endpoint:", err)
			return
		}
		fmt.Fprintf(out, "Endpoint %s disabled. Bye.\n", ep.ID)
	}()
	h, err := listener.Handler(secret, out, nil)
	if err != nil {
		return err
	}
	printIntro(out, url, ep.ID, env.File.PartnerID)
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second}
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
	}()
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// printIntro says where the listener listens and how a partner verifies
// deliveries. The signing secret stays in memory: secrets are never
// printed or logged, except once by opctl webhook add to the endpoint's
// owner, which is how a partner tries its own receiver.
func printIntro(out io.Writer, url, endpointID, partnerID string) {
	fmt.Fprintf(out, `Listening at %s
  registered as test-mode endpoint %s of partner %s (every event type)
Events appear below as make dev sends them, each verified with the endpoint's
signing secret, which stays in this process (secrets are never printed).
To verify deliveries in your own receiver: register its URL with
  go run ./scripts/opctl webhook add --partner %s --mode test --url URL
which prints that endpoint's secret once, and check each request's raw body
with the Standard Webhooks library (docs/WEBHOOKS.md#verifying-the-signature).
Ctrl-C disables the endpoint and exits.

`, url, endpointID, partnerID, partnerID)
}
