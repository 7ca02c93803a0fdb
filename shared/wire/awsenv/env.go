// Package awsenv is every function's environment and AWS wiring, HTTP or
// not: the table, the AWS configuration Lambda provides, the DynamoDB
// store, the JSON logger, and the secrets its manifest entry lists. Build
// it once, at init; it makes no network call.
package awsenv

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"

	"github.com/moveleads/partnerapi/shared/adapter/dynamo"
	"github.com/moveleads/partnerapi/shared/spec/manifest"
	"github.com/moveleads/partnerapi/shared/spec/settings"
	"github.com/moveleads/partnerapi/shared/spec/table"
)

// Env is one function's wiring.
type Env struct {
	Config aws.Config
	Store  *dynamo.Store
	Log    *slog.Logger

	getenv func(string) string
	// secret, when set, supplies secrets instead of the environment
	// (local tools; see ForTools).
	secret func(name string) func(context.Context) ([]byte, error)
	// now is the cache's clock (tests move it).
	now       func() time.Time
	mu        sync.Mutex
	requested []string
	cache     map[string]*cachedSecret
}

// SecretTTL is how long a function instance keeps a secret's value after
// reading it: each Secrets Manager read is paid for, and a request
// (anonymous ones included) must not cause one. A rotated value reaches
// every instance within SecretTTL.
const SecretTTL = 10 * time.Minute

// cachedSecret is one secret's value as last read, shared by every loader
// of that name in the Env. Errors are not kept: the next use reads again.
type cachedSecret struct {
	mu    sync.Mutex
	load  func(context.Context) ([]byte, error)
	value []byte
	until time.Time
}

func (c *cachedSecret) get(ctx context.Context, now func() time.Time) ([]byte, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.value != nil && now().Before(c.until) {
		return c.value, nil
	}
	v, err := c.load(ctx)
	if err != nil {
		return nil, err
	}
	c.value, c.until = v, now().Add(SecretTTL)
	return v, nil
}

// Load builds the Env from the process environment: TABLE_NAME,
// EVENTS_TABLE_NAME (for the functions that write events) and the AWS
// settings Lambda provides (see lambdaConfig).
func Load() (*Env, error) { return load(os.Getenv) }

// LoadFrom is Load with the variables getenv gives (a local tool's choice
// of make dev's dev.json over the process environment).
func LoadFrom(getenv func(string) string) (*Env, error) { return load(getenv) }

func load(getenv func(string) string) (*Env, error) {
	tableName := getenv(settings.Table)
	if tableName == "" {
		return nil, errors.New(settings.Table + " is not set")
	}
	cfg, err := lambdaConfig(getenv)
	if err != nil {
		return nil, err
	}
	db := dynamodb.NewFromConfig(cfg, func(o *dynamodb.Options) { o.BaseEndpoint = Endpoint(getenv, "DYNAMODB") })
	// Deployed functions that write events get the events table's name;
	// a local tool without it uses the local name (table.EventsName).
	events := getenv(settings.EventsTable)
	if events == "" {
		events = table.EventsName(tableName)
	}
	return &Env{
		Config: cfg, Store: dynamo.NewWithEvents(db, tableName, events),
		Log:    JSONLog(),
		getenv: getenv,
	}, nil
}

// ForTools returns an Env over an existing store for tools that run
// functions' code in one process (make dev, tests, benchmarks); secret
// supplies each secret by name, cfg is the AWS configuration of other
// clients (S3), and settings (the bucket, the public base URL) come from
// the process environment.
func ForTools(store *dynamo.Store, log *slog.Logger, secret func(name string) func(context.Context) ([]byte, error), cfg aws.Config) *Env {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Env{Config: cfg, Store: store, Log: log, getenv: os.Getenv, secret: secret}
}

// WithGetenv makes e read its settings through getenv instead of the
// process environment, and returns e: stacks side by side in one process
// (parallel tests) each get their own bucket and base URL.
func (e *Env) WithGetenv(getenv func(string) string) *Env {
	e.getenv = getenv
	return e
}

// Getenv returns the environment variable name (a settings name) as the
// function sees it.
func (e *Env) Getenv(name string) string { return e.getenv(name) }

// Setting returns the environment variable name, or an error saying it is
// not set.
func (e *Env) Setting(name string) (string, error) {
	if v := e.getenv(name); v != "" {
		return v, nil
	}
	return "", fmt.Errorf("%s is not set", name)
}

// Secret returns the loader of the secret called name. In AWS the function
// gets the secret's ARN (<VAR>_ARN) and reads it from Secrets Manager on
// first use (never at init); locally it gets the value itself (<VAR>, hex).
// The value is the hex encoding of the key; anything else is an error,
// never silently taken as raw bytes. Every loader of one name shares one
// cached value, read again SecretTTL after it was read (a failed read is
// not kept).
func (e *Env) Secret(name string) func(context.Context) ([]byte, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.requested = append(e.requested, name)
	c, ok := e.cache[name]
	if !ok {
		c = &cachedSecret{load: e.loader(name)}
		if e.cache == nil {
			e.cache = map[string]*cachedSecret{}
		}
		e.cache[name] = c
	}
	now := e.now
	if now == nil {
		now = time.Now
	}
	return func(ctx context.Context) ([]byte, error) { return c.get(ctx, now) }
}

// loader reads the secret called name, uncached (see Secret).
func (e *Env) loader(name string) func(context.Context) ([]byte, error) {
	if e.secret != nil {
		return e.secret(name)
	}
	envName := settings.SecretVar(name)
	if envName == "" {
		return failing(fmt.Errorf("secret %q has no environment variable (settings.SecretVar)", name))
	}
	if arn := e.getenv(envName + "_ARN"); arn != "" {
		load := secretsManager(e.Config, Endpoint(e.getenv, "SECRETS_MANAGER"), arn)
		return func(ctx context.Context) ([]byte, error) {
			v, err := load(ctx)
			if err != nil {
				return nil, fmt.Errorf("read secret %s: %w", name, err)
			}
			return decodeSecret(name, v)
		}
	}
	if v := e.getenv(envName); v != "" {
		b, err := decodeSecret(name, v)
		if err != nil {
			return failing(fmt.Errorf("%s: %w", envName, err))
		}
		return func(context.Context) ([]byte, error) { return b, nil }
	}
	return failing(fmt.Errorf("secret %s: neither %s_ARN nor %s is set", name, envName, envName))
}

// Wire loads a function's environment with load, builds its processor (or
// any other value its edge serves) from it, and checks that the secrets
// the building read are exactly those f's manifest entry lists: the
// wiring every event-triggered function's Build shares.
func Wire[P any](f manifest.Function, load func() (*Env, error), build func(*Env) (P, error)) (P, *Env, error) {
	var zero P
	env, err := load()
	if err != nil {
		return zero, nil, err
	}
	p, err := build(env)
	if err != nil {
		return zero, nil, err
	}
	if err := env.Check(f); err != nil {
		return zero, nil, err
	}
	return p, env, nil
}

// Check reports whether the secrets the function's code asked for are
// exactly those its manifest entry lists, so a function can neither read a
// secret it has no grant for nor be granted one it never reads.
func (e *Env) Check(f manifest.Function) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	got := slices.Clone(e.requested)
	want := slices.Clone(f.Secrets)
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(slices.Compact(got), want) {
		return fmt.Errorf("function %s reads secrets %v but its manifest entry lists %v", f.Slug, got, want)
	}
	return nil
}

// decodeSecret decodes the value of the secret named name: text secrets
// (settings.SecretIsText) as they are, others by DecodeSecret.
func decodeSecret(name, v string) ([]byte, error) {
	if settings.SecretIsText(name) {
		if strings.TrimSpace(v) == "" {
			return nil, errors.New("secret value is empty")
		}
		return []byte(v), nil
	}
	return DecodeSecret(v)
}

// DecodeSecret decodes a secret's hex value (the stack generates 64 hex
// characters); anything else is an error.
func DecodeSecret(v string) ([]byte, error) {
	b, err := hex.DecodeString(v)
	if err != nil {
		return nil, fmt.Errorf("secret value is not hex: %w", err)
	}
	if len(b) == 0 {
		return nil, errors.New("secret value is empty")
	}
	return b, nil
}

func failing(err error) func(context.Context) ([]byte, error) {
	return func(context.Context) ([]byte, error) { return nil, err }
}

// secretsManager reads a secret's string value by ARN with the SDK's
// Secrets Manager client (at endpoint when not nil). The client is built
// on first use, never at init; the value is never part of an error.
func secretsManager(cfg aws.Config, endpoint *string, arn string) func(context.Context) (string, error) {
	var once sync.Once
	var client *secretsmanager.Client
	return func(ctx context.Context) (string, error) {
		once.Do(func() {
			client = secretsmanager.NewFromConfig(cfg, func(o *secretsmanager.Options) { o.BaseEndpoint = endpoint })
		})
		out, err := client.GetSecretValue(ctx, &secretsmanager.GetSecretValueInput{SecretId: aws.String(arn)})
		if err != nil {
			return "", fmt.Errorf("GetSecretValue %s: %w", arn, err)
		}
		if out.SecretString == nil {
			return "", fmt.Errorf("GetSecretValue %s: the secret has no string value", arn)
		}
		return *out.SecretString, nil
	}
}

// Endpoint honours the SDK's standard endpoint variables for service (its
// environment name, e.g. DYNAMODB): AWS_ENDPOINT_URL_<service>, else
// AWS_ENDPOINT_URL. Nil means the service's regional endpoint.
func Endpoint(getenv func(string) string, service string) *string {
	if v := getenv("AWS_ENDPOINT_URL_" + service); v != "" {
		return &v
	}
	if v := getenv("AWS_ENDPOINT_URL"); v != "" {
		return &v
	}
	return nil
}

// JSONLog is the functions' logger: one JSON object per line on stdout.
func JSONLog() *slog.Logger { return slog.New(slog.NewJSONHandler(os.Stdout, nil)) }
