package awsenv

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/smithy-go"

	"github.com/moveleads/partnerapi/shared/spec/manifest"
)

// secretsManagerStandIn stands in for Secrets Manager's GetSecretValue:
// the part of its JSON 1.1 wire protocol the functions use
// (https://docs.aws.amazon.com/secretsmanager/latest/apireference/API_GetSecretValue.html),
// a SigV4-signed POST to / with X-Amz-Target secretsmanager.GetSecretValue
// and {"SecretId": …}, answered with the secret's JSON or an error
// document {"__type": …, "message": …}. Secrets Manager cannot run here;
// the SDK's own client is what talks to it.
type secretsManagerStandIn struct {
	t        *testing.T
	secrets  map[string]*string // nil value: a binary secret
	requests atomic.Int32
	// fail, when set, answers the nth request (from 1) instead.
	fail func(n int32, w http.ResponseWriter) bool
}

func (s *secretsManagerStandIn) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	n := s.requests.Add(1)
	body, _ := io.ReadAll(r.Body)
	if s.fail != nil && s.fail(n, w) {
		return
	}
	auth := r.Header.Get("Authorization")
	if r.Method != http.MethodPost || r.URL.Path != "/" || r.Header.Get("Content-Type") != "application/x-amz-json-1.1" ||
		!strings.Contains(auth, "/us-east-1/secretsmanager/aws4_request") || !strings.Contains(auth, "x-amz-target") {
		s.t.Errorf("request %s %s, Content-Type %q, Authorization %q; want a signed JSON 1.1 POST to /",
			r.Method, r.URL, r.Header.Get("Content-Type"), auth)
		smAnswer(w, 400, "UnknownOperationException", "")
		return
	}
	if r.Header.Get("X-Amz-Target") != "secretsmanager.GetSecretValue" {
		smAnswer(w, 400, "UnknownOperationException", "")
		return
	}
	var in struct{ SecretId string }
	if err := json.Unmarshal(body, &in); err != nil {
		smAnswer(w, 400, "SerializationException", "")
		return
	}
	v, ok := s.secrets[in.SecretId]
	if !ok {
		smAnswer(w, 400, "ResourceNotFoundException", "Secrets Manager can't find the specified secret.")
		return
	}
	out := map[string]any{"ARN": in.SecretId, "Name": "cursor", "VersionId": "v1", "VersionStages": []string{"AWSCURRENT"}, "CreatedDate": 1.7e9}
	if v != nil {
		out["SecretString"] = *v
	} else {
		out["SecretBinary"] = "AAEC"
	}
	w.Header().Set("Content-Type", "application/x-amz-json-1.1")
	w.Header().Set("X-Amzn-Requestid", "req-1")
	_ = json.NewEncoder(w).Encode(out)
}

func smAnswer(w http.ResponseWriter, status int, code, msg string) {
	w.Header().Set("Content-Type", "application/x-amz-json-1.1")
	w.Header().Set("X-Amzn-Requestid", "req-err")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]string{"__type": code, "message": msg})
}

// noWait is the standard retryer with zero backoff.
func noWait() aws.Retryer {
	return retry.NewStandard(func(o *retry.StandardOptions) {
		o.Backoff = retry.BackoffDelayerFunc(func(int, error) (time.Duration, error) { return 0, nil })
	})
}

// secretLoader returns the cursor secret's loader of an Env whose
// CURSOR_SECRET_ARN is arn at the stand-in s, retried without waits.
func secretLoader(t *testing.T, s *secretsManagerStandIn, arn string) func(context.Context) ([]byte, error) {
	t.Helper()
	s.t = t
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	e, err := load(envOf(withVars(map[string]string{"CURSOR_SECRET_ARN": arn, "AWS_ENDPOINT_URL_SECRETS_MANAGER": srv.URL})))
	if err != nil {
		t.Fatal(err)
	}
	e.Config.Retryer = noWait
	return e.Secret(manifest.SecretCursor)
}

var hexKey = strings.Repeat("ab", 32)

func TestSecretsManagerErrors(t *testing.T) {
	ctx := context.Background()
	t.Run("missing secret, not retried", func(t *testing.T) {
		s := &secretsManagerStandIn{secrets: map[string]*string{cursorARN: &hexKey}}
		_, err := secretLoader(t, s, cursorARN+"-other")(ctx)
		var api smithy.APIError
		if !errors.As(err, &api) || api.ErrorCode() != "ResourceNotFoundException" || !strings.Contains(api.ErrorMessage(), "can't find") {
			t.Errorf("error %v; want ResourceNotFoundException", err)
		}
		if !strings.Contains(err.Error(), cursorARN+"-other") {
			t.Errorf("error %q does not name the secret", err)
		}
		if n := s.requests.Load(); n != 1 {
			t.Errorf("a 400 was sent %d times; want once", n)
		}
	})
	t.Run("binary secret", func(t *testing.T) {
		s := &secretsManagerStandIn{secrets: map[string]*string{cursorARN: nil}}
		if _, err := secretLoader(t, s, cursorARN)(ctx); err == nil || !strings.Contains(err.Error(), "no string value") {
			t.Errorf("binary secret: %v; want no string value", err)
		}
	})
	t.Run("the value is never in an error", func(t *testing.T) {
		notHex := "sk_live_not_hex_value"
		s := &secretsManagerStandIn{secrets: map[string]*string{cursorARN: &notHex}}
		_, err := secretLoader(t, s, cursorARN)(ctx)
		if err == nil || strings.Contains(err.Error(), notHex) {
			t.Errorf("error %v; want one without the value", err)
		}
	})
	t.Run("done context", func(t *testing.T) {
		s := &secretsManagerStandIn{secrets: map[string]*string{cursorARN: &hexKey}}
		load := secretLoader(t, s, cursorARN)
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		if _, err := load(cctx); !errors.Is(err, context.Canceled) {
			t.Errorf("a done context: %v; want context.Canceled", err)
		}
	})
}

// Fault tests: the SDK's standard retryer (3 attempts, zero backoff here)
// against Secrets Manager's error answers.
func TestSecretsManagerRetries(t *testing.T) {
	for _, tt := range []struct {
		name     string
		status   int
		code     string
		failures int32
		want     int32 // requests sent
		ok       bool
	}{
		{"503 then success", 503, "ServiceUnavailable", 2, 3, true},
		{"throttled then success", 400, "ThrottlingException", 1, 2, true},
		{"500 every time", 500, "InternalServiceError", 10, 3, false},
		{"access denied is final", 400, "AccessDeniedException", 10, 1, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := &secretsManagerStandIn{secrets: map[string]*string{cursorARN: &hexKey}}
			s.fail = func(n int32, w http.ResponseWriter) bool {
				if n > tt.failures {
					return false
				}
				smAnswer(w, tt.status, "com.amazonaws.secretsmanager#"+tt.code, "")
				return true
			}
			got, err := secretLoader(t, s, cursorARN)(context.Background())
			if tt.ok != (err == nil) || (tt.ok && len(got) != 32) {
				t.Errorf("secret = %x, %v; want ok %v", got, err, tt.ok)
			}
			var api smithy.APIError
			if !tt.ok && (!errors.As(err, &api) || api.ErrorCode() != tt.code) {
				t.Errorf("error %v; want code %s (namespace dropped)", err, tt.code)
			}
			if n := s.requests.Load(); n != tt.want {
				t.Errorf("%d requests; want %d", n, tt.want)
			}
		})
	}
	t.Run("connection dropped, then success", func(t *testing.T) {
		s := &secretsManagerStandIn{secrets: map[string]*string{cursorARN: &hexKey}}
		s.fail = func(n int32, _ http.ResponseWriter) bool {
			if n == 1 {
				panic(http.ErrAbortHandler)
			}
			return false
		}
		if got, err := secretLoader(t, s, cursorARN)(context.Background()); err != nil || len(got) != 32 || s.requests.Load() != 2 {
			t.Errorf("secret = %x, %v after %d requests; want the key after 2", got, err, s.requests.Load())
		}
	})
}
