// Command devstack is `make dev`: it installs Amazon DynamoDB Local when
// missing, starts it on loopback, creates the table from the shared schema,
// seeds a demo partner with a test-mode key, and serves every route of the
// route table at http://127.0.0.1:$PORT (default 3000) through the local API
// Gateway, which invokes the very handlers the Lambda functions run. It
// also seeds the fixtures the sample events in events/ use (events/sample).
// It writes .local/dev.json (package devfile) so that scripts and tools
// reach the same stack, and .local/sam-env.json and
// .local/sam-env.host-network.json so that `sam local invoke` and `sam
// local start-api` do (samconfig.toml).
//
// Ctrl-C (SIGINT) or SIGTERM stops everything it started, removes those
// files and exits 0: a signal is the normal way to stop it. It exits 1,
// with one line on stderr, when the stack cannot start or fails while
// serving.
package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/moveleads/partnerapi/events/sample"
	"github.com/moveleads/partnerapi/scripts/devstack/devfile"
	"github.com/moveleads/partnerapi/shared/auth"
	"github.com/moveleads/partnerapi/shared/awsenv"
	"github.com/moveleads/partnerapi/shared/catalog"
	"github.com/moveleads/partnerapi/shared/dynamo"
	"github.com/moveleads/partnerapi/shared/dynamolocal"
	"github.com/moveleads/partnerapi/shared/estimate"
	"github.com/moveleads/partnerapi/shared/localgw"
	"github.com/moveleads/partnerapi/shared/manifest"
	"github.com/moveleads/partnerapi/shared/openapi"
	"github.com/moveleads/partnerapi/shared/repo"
	"github.com/moveleads/partnerapi/shared/settings"
	"github.com/moveleads/partnerapi/shared/table"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := func() error {
		root, err := repo.Root()
		if err != nil {
			return err
		}
		return run(ctx, os.Stdout, os.Getenv, filepath.Join(root, ".local"))
	}()
	code := exitCode(ctx, err)
	if code != 0 {
		fmt.Fprintln(os.Stderr, "make dev:", err)
	}
	stop()
	os.Exit(code)
}

// exitCode is 0 when run ended without error, or because a signal ended
// ctx and what failed is only the work the signal cancelled (a Ctrl-C
// while DynamoDB Local starts, say); otherwise 1.
func exitCode(ctx context.Context, err error) int {
	if err == nil || (ctx.Err() != nil && errors.Is(err, context.Canceled)) {
		return 0
	}
	return 1
}

// run serves the stack until ctx ends, keeping its state files (lock,
// dev.json, the SAM env files) in stateDir. It returns nil when it stopped
// because ctx ended, having stopped DynamoDB Local and removed the files.
func run(ctx context.Context, out io.Writer, getenv func(string) string, stateDir string) error {
	if err := os.MkdirAll(stateDir, 0o755); err != nil {
		return err
	}
	unlock, err := lock(filepath.Join(stateDir, "dev.lock"), filepath.Join(stateDir, "dev.json"))
	if err != nil {
		return err
	}
	defer unlock()

	port := getenv("PORT")
	if port == "" {
		port = "3000"
	}
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", port))
	if err != nil {
		return fmt.Errorf("port %s is taken by another program (set PORT=another to use another port): %w", port, err)
	}
	defer ln.Close()

	fmt.Fprintln(out, "Starting Amazon DynamoDB Local (installing it first if missing)...")
	db, err := dynamolocal.Start(ctx)
	if err != nil {
		return err
	}
	defer db.Stop()
	if db.Warning != "" {
		fmt.Fprintln(out, "WARNING:", db.Warning)
	}

	env := map[string]string{settings.Table: table.DefaultName, settings.CursorSecret: randomHex(32)}
	for _, kv := range dynamolocal.Env(db.Endpoint) {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	for k, v := range env {
		os.Setenv(k, v)
	}

	key, partnerID, err := seed(ctx)
	if err != nil {
		return err
	}
	gw, err := gateway(out)
	if err != nil {
		return err
	}
	gw.Extra = map[string]http.Handler{"/openapi.yaml": http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/yaml")
		_, _ = w.Write(openapi.Document)
	})}

	base := "http://" + ln.Addr().String()
	dev := devfile.File{BaseURL: base, APIKey: key, PartnerID: partnerID, Env: env, PID: os.Getpid()}
	devPath := filepath.Join(stateDir, "dev.json")
	if err := devfile.Write(devPath, dev); err != nil {
		return err
	}
	defer os.Remove(devPath)
	for name, host := range samEnvFiles {
		path := filepath.Join(stateDir, name)
		if err := writeSAMEnv(path, env, db.Endpoint, host); err != nil {
			return err
		}
		defer os.Remove(path)
	}

	fmt.Fprintf(out, `
Partner API running at %s   (Ctrl-C stops it and DynamoDB Local)
  partner:  %s
  API key:  %s   (test mode, all scopes)
  details:  .local/dev.json   API description: %s/openapi.yaml
  fixtures: partner %s, key %s, lead %s
            (local-only, not secret) used by events/*.json

  curl -s %s/v1/leads -H "Authorization: Bearer %s" -H "Content-Type: application/json" -d '{"customer_name":"Ada Lovelace","email":"ada@example.com","from_address":"1 Main St, New York, NY 10001","to_address":"9 Oak Ave, Boston, MA 02108","home_size":"2 bedroom"}'

`, base, partnerID, key, base, sample.PartnerID, sample.APIKey, sample.LeadID, base, key)

	err = localgw.Serve(ctx, ln, gw)
	fmt.Fprintln(out, "Stopping DynamoDB Local and the API.")
	return err
}

// gateway returns the local API Gateway over the handlers of every route,
// built by package catalog from the environment run set (awsenv.Load: the
// table, DynamoDB Local, CURSOR_SECRET), logging one JSON line per
// request to out.
func gateway(out io.Writer) (*localgw.Gateway, error) {
	env, err := awsenv.Load()
	if err != nil {
		return nil, err
	}
	log := slog.New(slog.NewJSONHandler(out, nil))
	stack := catalog.New(catalog.Deps{Store: env.Store, Secret: env.Secret, Log: log})
	return localgw.New(func(op manifest.Operation) any { return stack.Route(op) }, log), nil
}

// seed creates the table, a demo partner with a fresh test-mode key, and
// the fixtures of the sample events.
func seed(ctx context.Context) (key, partnerID string, err error) {
	cfg, err := config.LoadDefaultConfig(ctx)
	if err != nil {
		return "", "", err
	}
	client := dynamodb.NewFromConfig(cfg)
	if err := dynamo.CreateTable(ctx, client, table.DefaultName); err != nil {
		return "", "", err
	}
	store := dynamo.New(client, table.DefaultName)
	partnerID = "ptn_" + randomHex(8)
	now := time.Now()
	if err := store.CreatePartner(ctx, auth.Partner{
		ID: partnerID, Name: "Demo Movers", RateCard: estimate.DefaultRateCard("usd"), CreatedAt: now,
	}); err != nil {
		return "", "", err
	}
	key, keyID, err := auth.NewKey(auth.Test)
	if err != nil {
		return "", "", err
	}
	err = store.CreateKey(ctx, auth.Key{
		KeyID: keyID, Digest: auth.Digest(key), PartnerID: partnerID, Mode: auth.Test,
		Scopes: manifest.AllScopes, CreatedAt: now,
	})
	if err != nil {
		return "", "", err
	}
	return key, partnerID, sample.Seed(ctx, store)
}

// samEnvFiles maps each SAM env-vars file to the host through which the
// functions' containers reach DynamoDB Local. It listens on 127.0.0.1
// only, so:
//   - sam-env.json (samconfig.toml's default) uses host.docker.internal,
//     which Docker Desktop (macOS, Windows) forwards to the host's
//     loopback; on Linux's Docker Engine it is the bridge gateway, where
//     nothing listens;
//   - sam-env.host-network.json uses 127.0.0.1, for Linux with
//     `--docker-network host`, where the container shares the host's
//     loopback.
var samEnvFiles = map[string]string{
	"sam-env.json":              "host.docker.internal",
	"sam-env.host-network.json": "127.0.0.1",
}

// writeSAMEnv writes an --env-vars file of `sam local` (samconfig.toml) in
// SAM's format, {"Parameters": {NAME: value}}, whose values apply to every
// function that declares NAME in template.yaml, with DynamoDB Local's
// endpoint rewritten to host (see samEnvFiles).
func writeSAMEnv(path string, env map[string]string, endpoint, host string) error {
	u, err := url.Parse(endpoint)
	if err != nil {
		return fmt.Errorf("dynamodb local endpoint %q: %w", endpoint, err)
	}
	u.Host = net.JoinHostPort(host, u.Port())
	params := map[string]string{
		settings.Table:              env[settings.Table],
		settings.CursorSecret:       env[settings.CursorSecret],
		"AWS_ENDPOINT_URL_DYNAMODB": u.String(),
	}
	b, _ := json.MarshalIndent(map[string]any{"Parameters": params}, "", "  ")
	return os.WriteFile(path, append(b, '\n'), 0o600)
}

// lock takes an exclusive lock so that a second `make dev` says plainly
// that one is already running instead of failing on a busy port.
func lock(path, devPath string) (func(), error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		msg := "another `make dev` is already running"
		if d, err := devfile.Read(devPath); err == nil {
			msg += fmt.Sprintf(" (pid %d, serving %s)", d.PID, d.BaseURL)
		}
		return nil, errors.New(msg + "; use it, or stop it with Ctrl-C first")
	}
	return func() { _ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN); f.Close() }, nil
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
