// Command devstack is `make dev`: it installs Amazon DynamoDB Local when
// missing, starts it on loopback, creates the table from the shared schema,
// seeds a demo partner with a test-mode key, and serves every route of the
// route table at http://127.0.0.1:$PORT (default 3000) through the local API
// Gateway, which invokes the very handlers the Lambda functions run. It
// also seeds the fixtures the sample events in events/ use (events/sample).
// It writes .local/dev.json so that scripts and tools reach the same stack,
// and .local/sam-env.json so that `sam local invoke` and `sam local
// start-api` do (samconfig.toml), and stops everything it started on Ctrl-C.
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
	"github.com/moveleads/partnerapi/shared/apigw"
	"github.com/moveleads/partnerapi/shared/auth"
	"github.com/moveleads/partnerapi/shared/dynamo"
	"github.com/moveleads/partnerapi/shared/dynamolocal"
	"github.com/moveleads/partnerapi/shared/estimate"
	"github.com/moveleads/partnerapi/shared/localgw"
	"github.com/moveleads/partnerapi/shared/openapi"
	"github.com/moveleads/partnerapi/shared/manifest"
	"github.com/moveleads/partnerapi/shared/settings"
	"github.com/moveleads/partnerapi/shared/table"

	"github.com/moveleads/partnerapi/shared/repo"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	root, err := repo.Root()
	if err == nil {
		err = run(ctx, os.Stdout, os.Getenv, filepath.Join(root, ".local"))
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "make dev:", err)
		os.Exit(1)
	}
}

// DevFile is the shape of .local/dev.json.
type DevFile struct {
	BaseURL   string            `json:"base_url"`
	APIKey    string            `json:"api_key"`
	PartnerID string            `json:"partner_id"`
	Env       map[string]string `json:"env"`
	PID       int               `json:"pid"`
}

// run serves the stack until ctx ends, keeping its state files (lock,
// dev.json, sam-env.json) in stateDir.
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
	h, err := apigw.NewFromEnv(ctx, apigw.SecretsManager)
	if err != nil {
		return err
	}
	gw := localgw.New(func(op manifest.Operation) any { return h.Route(op) },
		slog.New(slog.NewJSONHandler(out, nil)))
	gw.Extra = map[string]http.Handler{"/openapi.yaml": http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/yaml")
		_, _ = w.Write(openapi.Document)
	})}

	base := "http://" + ln.Addr().String()
	dev := DevFile{BaseURL: base, APIKey: key, PartnerID: partnerID, Env: env, PID: os.Getpid()}
	devPath := filepath.Join(stateDir, "dev.json")
	b, _ := json.MarshalIndent(dev, "", "  ")
	if err := os.WriteFile(devPath, append(b, '\n'), 0o600); err != nil {
		return err
	}
	defer os.Remove(devPath)
	samPath := filepath.Join(stateDir, "sam-env.json")
	if err := writeSAMEnv(samPath, env, db.Endpoint); err != nil {
		return err
	}
	defer os.Remove(samPath)

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
	fmt.Fprintln(out, "Stopping.")
	return err
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

// writeSAMEnv writes the --env-vars file of `sam local` (samconfig.toml) in
// SAM's format, {"Parameters": {NAME: value}}, whose values apply to every
// function that declares NAME in template.yaml. The functions run in
// containers, so they reach DynamoDB Local, which listens on every
// interface, through host.docker.internal instead of loopback.
func writeSAMEnv(path string, env map[string]string, endpoint string) error {
	u, err := url.Parse(endpoint)
	if err != nil {
		return fmt.Errorf("dynamodb local endpoint %q: %w", endpoint, err)
	}
	u.Host = "host.docker.internal:" + u.Port()
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
		if b, err := os.ReadFile(devPath); err == nil {
			var d DevFile
			if json.Unmarshal(b, &d) == nil {
				msg += fmt.Sprintf(" (pid %d, serving %s)", d.PID, d.BaseURL)
			}
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
