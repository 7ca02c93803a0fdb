package wiring_test

import (
	"context"
	"encoding/json"
	"github.com/moveleads/partnerapi/shared/local/dynamolocal"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/google/uuid"

	"github.com/moveleads/partnerapi/shared/adapter/dynamo"
	"github.com/moveleads/partnerapi/shared/adapter/stripepay"
	"github.com/moveleads/partnerapi/shared/domain/deposit"
	"github.com/moveleads/partnerapi/shared/edge/apigw"
	"github.com/moveleads/partnerapi/shared/spec/manifest"
	"github.com/moveleads/partnerapi/shared/spec/settings"
	"github.com/moveleads/partnerapi/shared/wire/awsenv"
	"github.com/moveleads/partnerapi/shared/wire/wiring"
)

const (
	region      = "us-east-1"
	accessKey   = "AKIDEXAMPLE"
	secretKey   = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"
	secretARN   = "arn:aws:secretsmanager:us-east-1:123456789012:secret:stripe-webhook-secrets-AbCdEf"
	whsec       = "whsec_paywiring_test"
	secretValue = `{"test": "` + whsec + `", "live": ""}`
)

// secretsManager stands in for Secrets Manager's GetSecretValue (JSON 1.1,
// the SigV4 credential scope checked) and counts the reads: each is a paid
// call in AWS.
func secretsManager(t *testing.T, reads *atomic.Int32) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/x-amz-json-1.1")
		// The SDK's client signs; the scope says with which key, region
		// and service.
		if auth := r.Header.Get("Authorization"); !strings.Contains(auth, "Credential="+accessKey+"/") || !strings.Contains(auth, "/"+region+"/secretsmanager/aws4_request") {
			w.WriteHeader(http.StatusForbidden)
			_ = json.NewEncoder(w).Encode(map[string]string{"__type": "InvalidSignatureException", "message": "credential scope of " + auth})
			return
		}
		var in struct{ SecretId string }
		_ = json.Unmarshal(body, &in)
		if r.Header.Get("X-Amz-Target") != "secretsmanager.GetSecretValue" || in.SecretId != secretARN {
			w.WriteHeader(http.StatusBadRequest)
			_ = json.NewEncoder(w).Encode(map[string]string{"__type": "ResourceNotFoundException", "message": "Secrets Manager can't find the specified secret."})
			return
		}
		reads.Add(1)
		_ = json.NewEncoder(w).Encode(map[string]string{"ARN": in.SecretId, "SecretString": secretValue})
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// receiver builds the stripe-webhook function as its main does
// (apigw.Build over the environment Lambda gives it), reading its signing
// secrets from the counting stand-in and its table from DynamoDB Local.
func receiver(t *testing.T, reads *atomic.Int32) apigw.LambdaFunc {
	t.Helper()
	ctx := context.Background()
	cfg, err := config.LoadDefaultConfig(ctx)
	if err != nil {
		t.Fatal(err)
	}
	db := dynamodb.NewFromConfig(cfg)
	table := "paywiring-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	if err := dynamo.CreateTables(ctx, db, table); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = dynamo.DeleteTables(context.Background(), db, table) })
	vars := map[string]string{
		settings.Table: table, "AWS_REGION": region, "AWS_ACCESS_KEY_ID": accessKey, "AWS_SECRET_ACCESS_KEY": secretKey,
		settings.StripeWebhookSecretsARN:   secretARN,
		"AWS_ENDPOINT_URL_SECRETS_MANAGER": secretsManager(t, reads),
	}
	getenv := func(k string) string {
		if v, ok := vars[k]; ok {
			return v
		}
		return os.Getenv(k) // AWS_ENDPOINT_URL_DYNAMODB: the test binary's DynamoDB Local
	}
	fn, err := apigw.Build(func() (*awsenv.Env, error) { return awsenv.LoadFrom(getenv) }, wiring.StripeWebhook)
	if err != nil {
		t.Fatal(err)
	}
	return fn
}

func post(t *testing.T, fn apigw.LambdaFunc, body, signature string) (int, map[string]any) {
	t.Helper()
	ev := events.APIGatewayV2HTTPRequest{
		RouteKey: "POST /stripe-webhook/{mode}", RawPath: "/stripe-webhook/test",
		PathParameters: map[string]string{"mode": "test"},
		Headers:        map[string]string{"content-type": "application/json"},
		Body:           body,
	}
	ev.RequestContext.HTTP.Method = "POST"
	if signature != "" {
		ev.Headers["stripe-signature"] = signature
	}
	res, err := fn(context.Background(), ev)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if err := json.Unmarshal([]byte(res.Body), &out); err != nil {
		t.Fatalf("answer %d %q is not JSON: %v", res.StatusCode, res.Body, err)
	}
	return res.StatusCode, out
}

// event is a Stripe event for a deposit this table does not hold (the
// receiver acknowledges it as unknown after one GetItem).
func event(t *testing.T) []byte {
	t.Helper()
	p, err := stripepay.SimulatedEvent(stripepay.Simulated{
		EventID: "evt_" + strings.ReplaceAll(uuid.NewString(), "-", ""), Account: "acct_1", DepositID: uuid.NewString(),
		LeadID: uuid.NewString(), PartnerID: "ptn_0000000000000001", SessionID: "cs_test_1", PaymentIntentID: "pi_1",
		AmountCents: 25000, Currency: "usd", At: time.Now(),
	}, deposit.EventPaid)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestUnsignedRequestsLoadNoSecret: requests whose Stripe-Signature cannot
// verify under any secret, and oversized bodies, are refused before the
// signing secret is loaded (anyone on the internet can send them, and each
// load is a paid GetSecretValue); signed requests on one instance load it
// once. Before, every request loaded it, unsigned ones included.
func TestUnsignedRequestsLoadNoSecret(t *testing.T) {
	var reads atomic.Int32
	fn := receiver(t, &reads)
	body := event(t)
	now := time.Now()
	stale := stripepay.SignPayload(body, whsec, now.Add(-time.Hour))
	for name, sig := range map[string]string{
		"no header":              "",
		"not pairs":              "garbage",
		"no v1":                  "t=" + strconv.FormatInt(now.Unix(), 10),
		"short v1":               "t=" + strconv.FormatInt(now.Unix(), 10) + ",v1=abcd",
		"an hour old, well made": stale,
	} {
		status, out := post(t, fn, string(body), sig)
		if e, _ := out["error"].(map[string]any); status != 400 || e["code"] != "invalid_signature" || e["message"] == "" || e["details"] == nil {
			t.Errorf("%s: %d %v; want 400 invalid_signature with the API's error body", name, status, out)
		}
	}
	big := strings.Repeat(" ", manifest.StripeWebhookBodyLimit) + string(body)
	if status, out := post(t, fn, big, stripepay.SignPayload([]byte(big), whsec, now)); status != 413 {
		t.Errorf("an oversized body: %d %v; want 413", status, out)
	}
	if n := reads.Load(); n != 0 {
		t.Fatalf("requests that cannot verify made %d secret loads; want 0", n)
	}

	for range 5 {
		p := event(t)
		status, out := post(t, fn, string(p), stripepay.SignPayload(p, whsec, time.Now()))
		if status != 200 || out["outcome"] != "unknown" {
			t.Errorf("a signed event: %d %v; want 200, acknowledged as unknown", status, out)
		}
	}
	// Well made but signed with another secret: checked against the
	// cached secret, refused.
	if status, _ := post(t, fn, string(body), stripepay.SignPayload(body, "whsec_other", now)); status != 400 {
		t.Errorf("a header signed with another secret: %d; want 400", status)
	}
	if n := reads.Load(); n != 1 {
		t.Errorf("six signed requests on one instance made %d secret loads; want 1", n)
	}
}

func TestMain(m *testing.M) { dynamolocal.RunTests(m) }
