package secretsmgr

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

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"

	"github.com/moveleads/partnerapi/shared/awsjson"
	"github.com/moveleads/partnerapi/shared/awsjson/awsjsontest"
)

const (
	region    = "us-east-1"
	accessKey = "AKIDEXAMPLE"
	secretKey = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"
	arn       = "arn:aws:secretsmanager:us-east-1:123456789012:secret:stripe-api-keys-AbCdEf"
	value     = `{"test":"sk_test_123","live":""}`
)

// standIn is a stand-in for Secrets Manager's GetSecretValue, the part of
// its JSON 1.1 wire protocol this package speaks
// (https://docs.aws.amazon.com/secretsmanager/latest/apireference/API_GetSecretValue.html):
// a signed POST to / with X-Amz-Target secretsmanager.GetSecretValue and a
// JSON body {"SecretId": …}, answered with the secret's JSON or an error
// document {"__type": …, "message": …}. It checks each request's SigV4
// signature as AWS does (awsjsontest.VerifySignature), by signing the
// request again (the SDK's signer, over the headers the request says it
// signed) with the secret key it knows, so a request signed wrong is
// refused as AWS would refuse it.
type standIn struct {
	secrets  map[string]*string // nil value: a binary secret
	requests atomic.Int32
	// fail, when set, answers the nth request (1-based) instead.
	fail func(n int32, w http.ResponseWriter) bool
}

func (s *standIn) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	n := s.requests.Add(1)
	body, _ := io.ReadAll(r.Body)
	if s.fail != nil && s.fail(n, w) {
		return
	}
	if r.Method != http.MethodPost || r.URL.Path != "/" || r.Header.Get("Content-Type") != "application/x-amz-json-1.1" {
		answer(w, 404, "UnknownOperationException", "")
		return
	}
	creds := aws.Credentials{AccessKeyID: accessKey, SecretAccessKey: secretKey}
	if err := awsjsontest.VerifySignature(r, body, creds, "secretsmanager", region); err != nil {
		answer(w, 403, "InvalidSignatureException", err.Error())
		return
	}
	if r.Header.Get("X-Amz-Target") != "secretsmanager.GetSecretValue" {
		answer(w, 400, "UnknownOperationException", "")
		return
	}
	var in struct{ SecretId string }
	if err := json.Unmarshal(body, &in); err != nil {
		answer(w, 400, "SerializationException", "")
		return
	}
	v, ok := s.secrets[in.SecretId]
	if !ok {
		answer(w, 400, "ResourceNotFoundException", "Secrets Manager can't find the specified secret.")
		return
	}
	out := map[string]any{"ARN": in.SecretId, "Name": "stripe-api-keys", "VersionId": "v1", "VersionStages": []string{"AWSCURRENT"}, "CreatedDate": 1.7e9}
	if v != nil {
		out["SecretString"] = *v
	} else {
		out["SecretBinary"] = "AAEC"
	}
	w.Header().Set("Content-Type", "application/x-amz-json-1.1")
	w.Header().Set("X-Amzn-Requestid", "req-1")
	_ = json.NewEncoder(w).Encode(out)
}

func answer(w http.ResponseWriter, status int, code, msg string) {
	w.Header().Set("Content-Type", "application/x-amz-json-1.1")
	w.Header().Set("X-Amzn-Requestid", "req-err")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]string{"__type": code, "message": msg})
}

func serve(t *testing.T, s *standIn) string {
	t.Helper()
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	return srv.URL
}

func config(key string) aws.Config {
	return aws.Config{Region: region, Credentials: credentials.NewStaticCredentialsProvider(accessKey, key, "")}
}

func client(t *testing.T, endpoint, key string) *Client {
	t.Helper()
	c, err := New(config(key), endpoint)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func ptr(s string) *string { return &s }

// TestSameWireAsSDK: the SDK's own client and this package read the same
// secret from the stand-in, both signed as the stand-in checks: the
// stand-in speaks the wire the SDK speaks, and this package speaks it too.
func TestSameWireAsSDK(t *testing.T) {
	s := &standIn{secrets: map[string]*string{arn: ptr(value)}}
	url := serve(t, s)
	sdk := secretsmanager.NewFromConfig(config(secretKey), func(o *secretsmanager.Options) { o.BaseEndpoint = &url })
	out, err := sdk.GetSecretValue(context.Background(), &secretsmanager.GetSecretValueInput{SecretId: aws.String(arn)})
	if err != nil || aws.ToString(out.SecretString) != value {
		t.Fatalf("the SDK's client against the stand-in: %v, %q", err, aws.ToString(out.SecretString))
	}
	got, err := client(t, url, secretKey).SecretString(context.Background(), arn)
	if err != nil || got != value {
		t.Fatalf("SecretString = %q, %v; want %q", got, err, value)
	}
	if n := s.requests.Load(); n != 2 {
		t.Errorf("%d requests; want one each", n)
	}

	// The stand-in's check can fail: a wrong secret key is refused, by
	// the SDK's client and by this package alike.
	if _, err := secretsmanager.NewFromConfig(config("wrong"), func(o *secretsmanager.Options) { o.BaseEndpoint = &url }).
		GetSecretValue(context.Background(), &secretsmanager.GetSecretValueInput{SecretId: aws.String(arn)}); err == nil || !strings.Contains(err.Error(), "InvalidSignatureException") {
		t.Errorf("the SDK's client with a wrong key: %v; want InvalidSignatureException", err)
	}
	_, err = client(t, url, "wrong").SecretString(context.Background(), arn)
	var re *awsjson.ResponseError
	if !errors.As(err, &re) || re.Status != 403 || re.Code != "InvalidSignatureException" || re.RequestID != "req-err" {
		t.Errorf("a wrong key: %v; want a 403 InvalidSignatureException ResponseError", err)
	}
}

func TestErrors(t *testing.T) {
	s := &standIn{secrets: map[string]*string{arn: ptr(value), "binary": nil}}
	url := serve(t, s)
	c := client(t, url, secretKey)
	ctx := context.Background()

	_, err := c.SecretString(ctx, arn+"-other")
	var re *awsjson.ResponseError
	if !errors.As(err, &re) || re.Status != 400 || re.Code != "ResourceNotFoundException" || !strings.Contains(re.Message, "can't find") {
		t.Errorf("missing secret: %v; want ResourceNotFoundException", err)
	}
	if !strings.Contains(err.Error(), arn+"-other") || !strings.Contains(err.Error(), "Secrets Manager answered 400 ResourceNotFoundException") {
		t.Errorf("error %q does not name the secret and Secrets Manager's answer", err)
	}
	if n := s.requests.Load(); n != 1 {
		t.Errorf("a 400 was sent %d times; want once (not retried)", n)
	}
	if _, err := c.SecretString(ctx, "binary"); err == nil || !strings.Contains(err.Error(), "no string value") {
		t.Errorf("binary secret: %v; want no string value", err)
	}
	if _, err := c.SecretString(ctx, ""); err == nil {
		t.Error("empty id: nil error")
	}
	for _, bad := range []string{"ftp://x", "localhost:4566", "http://"} {
		if _, err := New(config(secretKey), bad); err == nil {
			t.Errorf("New(endpoint %q): nil error", bad)
		}
	}
	if _, err := New(aws.Config{Credentials: config(secretKey).Credentials}, ""); err == nil {
		t.Error("New without a region: nil error")
	}
	if c, err := New(config(secretKey), ""); err != nil || c.api.URL() != "https://secretsmanager.us-east-1.amazonaws.com/" {
		t.Errorf("default endpoint %v, %v", c, err)
	}
}

func TestRetries(t *testing.T) {
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
		{"500 every time", 500, "InternalServiceError", 10, maxAttempts, false},
		{"access denied is final", 400, "AccessDeniedException", 10, 1, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := &standIn{secrets: map[string]*string{arn: ptr(value)}}
			s.fail = func(n int32, w http.ResponseWriter) bool {
				if n > tt.failures {
					return false
				}
				answer(w, tt.status, "com.amazonaws.secretsmanager#"+tt.code, "")
				return true
			}
			got, err := client(t, serve(t, s), secretKey).SecretString(context.Background(), arn)
			if tt.ok != (err == nil) || (tt.ok && got != value) {
				t.Errorf("SecretString = %q, %v; want ok %v", got, err, tt.ok)
			}
			var re *awsjson.ResponseError
			if !tt.ok && (!errors.As(err, &re) || re.Code != tt.code) {
				t.Errorf("error %v; want code %s (namespace dropped)", err, tt.code)
			}
			if n := s.requests.Load(); n != tt.want {
				t.Errorf("%d requests; want %d", n, tt.want)
			}
		})
	}
}

func TestContextEndsRetries(t *testing.T) {
	s := &standIn{fail: func(int32, http.ResponseWriter) bool { panic(http.ErrAbortHandler) }}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := client(t, serve(t, s), secretKey).SecretString(ctx, arn); !errors.Is(err, context.Canceled) {
		t.Errorf("SecretString with a done context: %v; want context.Canceled", err)
	}
}
