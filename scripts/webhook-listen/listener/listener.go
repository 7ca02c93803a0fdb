// Package listener is scripts/webhook-listen's receiver, apart from its
// main so that make dev's test drives it too: an HTTP handler that
// verifies each delivery with the Standard Webhooks library (as a partner's
// receiver would), prints it, and reports it; and the registration of the
// listener as a test-mode endpoint of a partner on the local stack.
package listener

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/moveleads/partnerapi/scripts/devstack/devfile"
	"github.com/moveleads/partnerapi/shared/adapter/dynamo"
	"github.com/moveleads/partnerapi/shared/adapter/webhookhttp"
	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/domain/webhook"
	"github.com/moveleads/partnerapi/shared/spec/settings"
	"github.com/moveleads/partnerapi/shared/wire/awsenv"
)

// Received is one delivery as the listener saw it.
type Received struct {
	WebhookID string
	Type      string
	At        time.Time
	Payload   json.RawMessage
	// Header is the delivery's request header.
	Header http.Header
	// Verified reports whether the signature verified; Error says why not.
	Verified bool
	Error    string
	// Duplicate reports a webhook-id seen before (a retry or redelivery
	// of a delivery this listener already took): a receiver dedupes by it.
	Duplicate bool
}

// maxBody bounds a delivery's body.
const maxBody = 1 << 20

// Handler returns the receiver for deliveries signed with secret: it
// verifies each (signature and timestamp tolerance, the library's
// Verify), writes a summary line and the payload to out, calls seen (nil:
// nothing) with what it received, and answers 204 to a verified delivery
// and 400 to any other, so the service retries what did not verify.
func Handler(secret string, out io.Writer, seen func(Received)) (http.Handler, error) {
	wh, err := standardwebhooks.NewWebhook(secret)
	if err != nil {
		return nil, fmt.Errorf("signing secret: %w", err)
	}
	var (
		mu  sync.Mutex
		ids = map[string]bool{}
	)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			http.Error(w, "POST deliveries here", http.StatusMethodNotAllowed)
			return
		}
		body, err := io.ReadAll(io.LimitReader(r.Body, maxBody))
		if err != nil {
			http.Error(w, "read body", http.StatusBadRequest)
			return
		}
		rec := Received{WebhookID: r.Header.Get("webhook-id"), At: time.Now(), Payload: body, Header: r.Header.Clone()}
		if err := wh.Verify(body, r.Header); err != nil {
			rec.Error = err.Error()
		} else {
			rec.Verified = true
		}
		var env struct {
			Type string `json:"type"`
		}
		_ = json.Unmarshal(body, &env)
		rec.Type = env.Type
		mu.Lock()
		if rec.Verified {
			rec.Duplicate = ids[rec.WebhookID]
			ids[rec.WebhookID] = true
		}
		print(out, rec)
		mu.Unlock()
		if seen != nil {
			seen(rec)
		}
		if !rec.Verified {
			http.Error(w, "signature does not verify", http.StatusBadRequest)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}), nil
}

// print writes rec: one summary line, then the payload indented.
func print(out io.Writer, rec Received) {
	verdict := "signature verified"
	if !rec.Verified {
		verdict = "SIGNATURE DOES NOT VERIFY: " + rec.Error + " (answered 400; it will be retried)"
	}
	if rec.Duplicate {
		verdict += " (duplicate webhook-id: already received; a receiver skips it)"
	}
	fmt.Fprintf(out, "%s  %-18s %s  %s\n", rec.At.Format("15:04:05"), rec.Type, rec.WebhookID, verdict)
	var pretty bytes.Buffer
	if json.Indent(&pretty, rec.Payload, "    ", "  ") == nil {
		fmt.Fprintf(out, "    %s\n", pretty.Bytes())
	}
}

// Register stores a new test-mode endpoint of partnerID at url receiving
// every event type, with a fresh signing secret sealed with sealer, and
// returns it with the secret.
func Register(ctx context.Context, store *dynamo.Store, sealer *webhook.Sealer, partnerID, url string, now time.Time) (webhook.Endpoint, string, error) {
	if err := webhookhttp.CheckURL(url, false); err != nil {
		return webhook.Endpoint{}, "", err
	}
	if _, err := store.GetPartner(ctx, partnerID); err != nil {
		return webhook.Endpoint{}, "", fmt.Errorf("partner %s: %w", partnerID, err)
	}
	ep, secret, err := webhook.NewEndpoint(auth.Tenant{PartnerID: partnerID, Mode: auth.Test}, url, nil, sealer, now)
	if err != nil {
		return webhook.Endpoint{}, "", err
	}
	if err := store.PutEndpoint(ctx, ep); err != nil {
		return webhook.Endpoint{}, "", err
	}
	return ep, secret, nil
}

// Unregister disables ep (its deliveries stay in the log: opctl webhook
// deliveries), so nothing is sent to a listener that is gone.
func Unregister(ctx context.Context, store *dynamo.Store, ep webhook.Endpoint, now time.Time) error {
	cur, err := store.GetEndpoint(ctx, ep.ID)
	if err != nil {
		return err
	}
	cur.Disabled, cur.DisabledAt, cur.DisabledReason = true, now, "webhook-listen stopped"
	return store.UpdateEndpoint(ctx, cur)
}

// Open returns the table and the webhook sealer of the make dev whose
// dev.json is f.
func Open(f devfile.File) (*dynamo.Store, *webhook.Sealer, error) {
	get := func(k string) string { return f.Env[k] }
	endpoint := awsenv.Endpoint(get, "DYNAMODB")
	if endpoint == nil || get(settings.Table) == "" {
		return nil, nil, fmt.Errorf("%s names no table or DynamoDB endpoint", devfile.RelPath)
	}
	key, err := awsenv.DecodeSecret(get(settings.WebhookSealingKey))
	if err != nil {
		return nil, nil, fmt.Errorf("%s in %s: %w", settings.WebhookSealingKey, devfile.RelPath, err)
	}
	sealer, err := webhook.NewSealer(key)
	if err != nil {
		return nil, nil, err
	}
	db := dynamodb.New(dynamodb.Options{
		Region:       get("AWS_REGION"),
		Credentials:  credentials.NewStaticCredentialsProvider(get("AWS_ACCESS_KEY_ID"), get("AWS_SECRET_ACCESS_KEY"), ""),
		BaseEndpoint: endpoint,
		// Never through a proxy: DynamoDB Local is on loopback.
		HTTPClient: &http.Client{Transport: &http.Transport{Proxy: nil}},
	})
	return dynamo.New(db, get(settings.Table)), sealer, nil
}
