package s3local

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/moveleads/partnerapi/shared/local/childproc"
)

// forTestsTimeout bounds the first ForTests call: a cold install builds
// MinIO from source before the server starts.
const forTestsTimeout = installTimeout + startTimeout

// shared is the one server of a test binary.
var shared childproc.Shared[*Server]

// EnvAccessKey and EnvSecretKey name the variables that carry a running
// server's credentials to ForTests (make test's shared MinIO: see
// scripts/teststack). They take precedence over AWS_ACCESS_KEY_ID and
// AWS_SECRET_ACCESS_KEY, which dynamolocal.SetEnv replaces with dummies
// that MinIO refuses.
const (
	EnvAccessKey = "S3LOCAL_ACCESS_KEY_ID"
	EnvSecretKey = "S3LOCAL_SECRET_ACCESS_KEY"
)

// ForTests returns an S3 server for a test binary: a developer's running
// one when AWS_ENDPOINT_URL_S3 is set (with the credentials of
// [EnvAccessKey] and [EnvSecretKey], else of AWS_ACCESS_KEY_ID and
// AWS_SECRET_ACCESS_KEY, when those are set; stop then does nothing), else
// a server started on the first call, without
// notification targets, and shared by every later one. stop ends that
// server; call it once, after m.Run. On failure srv is nil and stop does
// nothing. A test that needs bucket notifications starts its own server
// with [Start], since MinIO reads its targets only when it starts.
func ForTests() (srv *Server, stop func(), err error) {
	if endpoint := os.Getenv("AWS_ENDPOINT_URL_S3"); endpoint != "" {
		return &Server{
			Endpoint:  endpoint,
			AccessKey: envOr(EnvAccessKey, envOr("AWS_ACCESS_KEY_ID", rootUser)),
			SecretKey: envOr(EnvSecretKey, envOr("AWS_SECRET_ACCESS_KEY", rootPassword)),
		}, func() {}, nil
	}
	srv, stop, err = shared.Get(forTestsTimeout, func(ctx context.Context) (*Server, error) { return Start(ctx) })
	if err != nil {
		return nil, stop, fmt.Errorf("minio for tests: %w", err)
	}
	return srv, stop, nil
}

func envOr(key, fallback string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return fallback
}

// RunTests runs a test binary's tests (m.Run) against the server of
// ForTests, with the process environment pointing the SDK at it (see
// [SetEnv]), and exits with their code. Call it from TestMain. A binary
// that also needs DynamoDB Local calls ForTests and SetEnv of both
// packages itself, dynamolocal's first (see [SetEnv]).
func RunTests(m interface{ Run() int }) {
	childproc.RunTests(m, ForTests, SetEnv)
}

// Env returns the environment variables, as KEY=value, that point an AWS
// SDK S3 client at srv: AWS_ENDPOINT_URL_S3, the server's credentials in
// AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, AWS_REGION, and
// AWS_EC2_METADATA_DISABLED, which keeps the SDK from ever asking the EC2
// metadata service, an address off this machine. It sets no other
// service's endpoint and not AWS_ENDPOINT_URL, so a DynamoDB client still
// goes to AWS_ENDPOINT_URL_DYNAMODB; DynamoDB Local accepts any credentials,
// these included, while MinIO checks them.
func Env(srv *Server) []string {
	return []string{
		"AWS_ENDPOINT_URL_S3=" + srv.Endpoint,
		"AWS_REGION=" + Region,
		"AWS_ACCESS_KEY_ID=" + srv.AccessKey,
		"AWS_SECRET_ACCESS_KEY=" + srv.SecretKey,
		"AWS_EC2_METADATA_DISABLED=true",
	}
}

// SetEnv sets the variables of [Env] in this process, typically from
// TestMain before any client is built. When the process also uses
// DynamoDB Local, call it after dynamolocal.SetEnv, whose dummy credentials
// MinIO would refuse.
func SetEnv(srv *Server) {
	for _, kv := range Env(srv) {
		k, v, _ := strings.Cut(kv, "=")
		// Setenv fails only for a malformed key, and these are constants.
		_ = os.Setenv(k, v)
	}
}
