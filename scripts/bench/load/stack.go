package load

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"net"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/moveleads/partnerapi/shared/adapter/dynamo"
	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/domain/estimate"
	"github.com/moveleads/partnerapi/shared/domain/partner"
	"github.com/moveleads/partnerapi/shared/local/dynamolocal"
	"github.com/moveleads/partnerapi/shared/local/localgw"
	"github.com/moveleads/partnerapi/shared/spec/manifest"
	"github.com/moveleads/partnerapi/shared/wire/catalog"
)

// stack is the local API under load: the same wiring as scripts/devstack
// (which this package must not import, being a main), on a table of its own.
type stack struct {
	base  string // http://127.0.0.1:PORT
	store *dynamo.Store
	// errs keeps the handlers' error log lines, to explain a 5xx.
	errs *logBuffer
	// dbPID is DynamoDB Local's process when known (0: not).
	dbPID int
	stops []func()
}

// startStack starts DynamoDB Local unless endpoint names a running one,
// creates a fresh table, and serves the real handlers through the local API
// Gateway on a loopback port. On failure it stops what it started.
func startStack(ctx context.Context, endpoint string) (_ *stack, err error) {
	st := &stack{errs: &logBuffer{limit: 16 << 10}}
	defer func() {
		if err != nil {
			st.close()
		}
	}()
	if endpoint == "" {
		db, err := dynamolocal.Start(ctx)
		if err != nil {
			return nil, err
		}
		st.stops = append(st.stops, func() { _ = db.Stop() })
		endpoint, st.dbPID = db.Endpoint, db.Pid()
	}
	client, err := dynamoClient(ctx, endpoint)
	if err != nil {
		return nil, err
	}
	name := fmt.Sprintf("bench-load-%d", time.Now().UnixNano())
	// Nothing reads the load table's stream, and DynamoDB Local slows
	// every write to a streamed table as its records pile up.
	if err := dynamo.CreateTables(ctx, client, name); err != nil {
		return nil, fmt.Errorf("create table: %w", err)
	}
	st.stops = append(st.stops, func() {
		dctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = dynamo.DeleteTables(dctx, client, name)
	})
	st.store = dynamo.New(client, name)
	secret := randomBytes(32)
	// Only errors are logged: a JSON line per request would measure the
	// terminal, and an error line is what explains a 5xx.
	log := slog.New(slog.NewJSONHandler(st.errs, &slog.HandlerOptions{Level: slog.LevelError}))
	h := catalog.New(catalog.Deps{Store: st.store, Log: log, Secret: func(string) func(context.Context) ([]byte, error) {
		return func(context.Context) ([]byte, error) { return secret, nil }
	}})
	gw := localgw.New(func(op manifest.Operation) any { return h.Route(op) }, log)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("listen on loopback: %w", err)
	}
	st.base = "http://" + ln.Addr().String()
	sctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = localgw.Serve(sctx, ln, gw); close(done) }()
	st.stops = append(st.stops, func() { cancel(); <-done })
	return st, nil
}

// dynamoClient reaches DynamoDB Local at endpoint with the region and dummy
// credentials of dynamolocal.Env, as make dev's processes do, without
// changing this process's environment.
func dynamoClient(ctx context.Context, endpoint string) (*dynamodb.Client, error) {
	env := map[string]string{}
	for _, kv := range dynamolocal.Env(endpoint) {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	creds := aws.Credentials{AccessKeyID: env["AWS_ACCESS_KEY_ID"], SecretAccessKey: env["AWS_SECRET_ACCESS_KEY"], Source: "dynamolocal"}
	cfg, err := config.LoadDefaultConfig(ctx,
		config.WithRegion(env["AWS_REGION"]),
		config.WithCredentialsProvider(aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
			return creds, nil
		})))
	if err != nil {
		return nil, fmt.Errorf("load AWS config: %w", err)
	}
	return dynamodb.NewFromConfig(cfg, func(o *dynamodb.Options) {
		o.BaseEndpoint = aws.String(endpoint)
		// DynamoDB Local sends no X-Amz-Crc32 on error responses, and this
		// SDK then checks the body against 0 and logs a warning per
		// ConditionalCheckFailed (every 429 and idempotent replay):
		// aws/aws-sdk-go-v2#3545. Thousands of those lines would bury the
		// report; on loopback the checksum guards nothing.
		o.DisableValidateResponseChecksum = true
	}), nil
}

// close stops what startStack started, in reverse order.
func (st *stack) close() {
	for i := len(st.stops) - 1; i >= 0; i-- {
		st.stops[i]()
	}
	st.stops = nil
}

// keySet is the API keys of one run, partner by partner, all in test mode.
type keySet struct {
	partners   []string
	keys       []string // flat: partner p's keys are keys[p*perPartner:(p+1)*perPartner]
	perPartner int
}

// partnerOf returns the index of the partner that owns flat key i.
func (ks keySet) partnerOf(i int) int { return i / ks.perPartner }

// keysOf returns partner p's keys.
func (ks keySet) keysOf(p int) []string { return ks.keys[p*ks.perPartner : (p+1)*ks.perPartner] }

// seed creates partners fresh partners with perPartner test-mode keys each,
// through the store code the operator CLI uses, a few at a time.
func (st *stack) seed(ctx context.Context, partners, perPartner int) (keySet, error) {
	ks := keySet{partners: make([]string, partners), keys: make([]string, partners*perPartner), perPartner: perPartner}
	now := time.Now()
	for p := range ks.partners {
		ks.partners[p] = "ptn_" + hex.EncodeToString(randomBytes(8))
		err := st.store.CreatePartner(ctx, partner.Partner{
			ID: ks.partners[p], Name: fmt.Sprintf("Load Movers %d", p), RateCard: estimate.DefaultRateCard("usd"), CreatedAt: now,
		})
		if err != nil {
			return keySet{}, fmt.Errorf("seed partner: %w", err)
		}
	}
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
		sem   = make(chan struct{}, 16)
	)
	for i := range ks.keys {
		key, keyID, err := auth.NewKey(auth.Test)
		if err != nil {
			return keySet{}, err
		}
		ks.keys[i] = key
		k := auth.Key{KeyID: keyID, Digest: auth.Digest(key), PartnerID: ks.partners[ks.partnerOf(i)],
			Mode: auth.Test, Scopes: auth.AllScopes, CreatedAt: now}
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			if err := st.store.CreateKey(ctx, k); err != nil {
				mu.Lock()
				first = cmp.Or(first, fmt.Errorf("seed key: %w", err))
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return ks, first
}

func randomBytes(n int) []byte {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return b
}

// logBuffer keeps the first limit bytes written to it since the last take,
// the first error lines being the ones that explain a failure. The log
// handlers write to it from many goroutines.
type logBuffer struct {
	mu    sync.Mutex
	limit int
	buf   []byte
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if room := b.limit - len(b.buf); room > 0 {
		b.buf = append(b.buf, p[:min(room, len(p))]...)
	}
	return len(p), nil
}

// take returns what was written since the last take and empties the buffer.
func (b *logBuffer) take() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	s := string(b.buf)
	b.buf = b.buf[:0]
	return s
}
