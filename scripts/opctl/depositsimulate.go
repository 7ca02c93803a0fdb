package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/moveleads/partnerapi/scripts/devstack/devfile"
	"github.com/moveleads/partnerapi/shared/adapter/webhookhttp"
	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/domain/deposit"
	"github.com/moveleads/partnerapi/shared/domain/errcode"
	"github.com/moveleads/partnerapi/shared/local/stripelocal"
	"github.com/moveleads/partnerapi/shared/spec/settings"
)

// Limits of deposit simulate.
const (
	// maxResponseText is how much of an answer that is not JSON is shown,
	// in characters.
	maxResponseText = 1024
	// maxEventIDLen bounds --event-id (Stripe's are "evt_" and 24
	// characters).
	maxEventIDLen = 255
)

// eventIDPrefix starts a Stripe event id.
const eventIDPrefix = "evt_"

// simulated is the output of deposit simulate: the Stripe event sent, and
// the receiver's answer (its HTTP status and its JSON body; a body that is
// not JSON is shown as a string, cut to 1024 characters, and an empty one
// as null).
type simulated struct {
	EventID   string          `json:"event_id"`
	Type      string          `json:"type"`
	DepositID string          `json:"deposit_id"`
	Status    int             `json:"status"`
	Response  json.RawMessage `json:"response"`
}

func parseDepositSimulate(fs *flag.FlagSet, args []string) (action, error) {
	readTenant := tenantFlags(fs)
	depositFlag := fs.String("deposit", "", "deposit id (required)")
	eventName := fs.String("event", "", "the outcome to simulate (required): "+eventNames())
	rawURL := fs.String("url", "", "where to POST the event (default: $PUBLIC_BASE_URL/stripe-webhook/MODE)")
	eventID := fs.String("event-id", "", "the event's id, evt_… (default: a fresh evt_sim_…; repeat one to simulate a redelivery)")
	if err := parseNoArgs(fs, args); err != nil {
		return nil, err
	}
	tenant, err := readTenant()
	if err != nil {
		return nil, err
	}
	partnerID, mode := tenant.PartnerID, tenant.Mode
	depositID, err := plainID(fs, "deposit", *depositFlag)
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(*eventName) == "" {
		return nil, usagef(fs, "--event is required: %s", eventNames())
	}
	event, err := deposit.ParseEvent(strings.TrimSpace(*eventName))
	if err != nil {
		return nil, usagef(fs, "--event: %v; want one of %s", err, eventNames())
	}
	set := setFlags(fs)
	dest := strings.TrimSpace(*rawURL)
	if set["url"] {
		if err := webhookhttp.CheckURL(dest, false); err != nil {
			return nil, usagef(fs, "--url: %v", err)
		}
	}
	evtID := strings.TrimSpace(*eventID)
	if set["event-id"] {
		if err := checkEventID(evtID); err != nil {
			return nil, usagef(fs, "--event-id: %v", err)
		}
	} else {
		evtID = stripelocal.NewEventID()
	}
	return func(ctx context.Context, s target, now time.Time) (any, error) {
		// The environment is checked before the table is read.
		secret, err := stripeWebhookSecret(s.env, mode)
		if err != nil {
			return nil, err
		}
		url := dest
		if url == "" {
			if url, err = receiverURL(s.env, mode); err != nil {
				return nil, err
			}
		}
		d, err := s.GetDeposit(ctx, tenant, depositID)
		if e := errcode.As(err); e != nil && e.Code == errcode.NotFound {
			return nil, fmt.Errorf("deposit %s not found (partner %s, %s mode)", depositID, partnerID, mode)
		}
		if err != nil {
			return nil, err
		}
		payload, typ, err := stripelocal.DepositEvent(d, event, evtID, mode, now)
		if err != nil {
			return nil, err
		}
		status, body, err := stripelocal.Deliver(ctx, url, payload, secret, now, "opctl deposit simulate")
		if err != nil {
			return nil, err
		}
		out := simulated{EventID: evtID, Type: typ, DepositID: d.ID, Status: status, Response: responseJSON(body)}
		if status < 200 || status > 299 {
			return nil, shownError{out: out, err: fmt.Errorf("the receiver at %s answered %d %s", url, status, http.StatusText(status))}
		}
		return out, nil
	}, nil
}

// eventNames lists deposit.Events for messages: "paid|unpaid|…".
func eventNames() string {
	names := make([]string, len(deposit.Events))
	for i, e := range deposit.Events {
		names[i] = string(e)
	}
	return strings.Join(names, "|")
}

// checkEventID says why id is not a Stripe event id: "evt_" and letters,
// digits or underscores, at most maxEventIDLen bytes.
func checkEventID(id string) error {
	rest, ok := strings.CutPrefix(id, eventIDPrefix)
	if !ok || rest == "" || len(id) > maxEventIDLen || strings.ContainsFunc(rest, func(r rune) bool {
		return !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || r == '_')
	}) {
		return fmt.Errorf("%q is not a Stripe event id: want %s and letters, digits or underscores", clipped(id), eventIDPrefix)
	}
	return nil
}

// stripeWebhookSecret returns mode's Stripe webhook signing secret from
// STRIPE_WEBHOOK_SECRETS in env (dev.json's while make dev runs, else the
// environment's): JSON text, {"test": "whsec_…", "live": "whsec_…"}. It
// fails when the variable is unset, is not such an object or has no
// secret for mode; no message ever quotes the value.
func stripeWebhookSecret(env devfile.Choice, mode auth.Mode) (string, error) {
	name := settings.StripeWebhookSecrets
	const shape = `{"test": "whsec_…", "live": "whsec_…"}`
	v := env.Getenv(name)
	if strings.TrimSpace(v) == "" {
		msg := fmt.Sprintf("%s is not set: it must hold the Stripe webhook signing secrets by mode, %s", name, shape)
		switch {
		case env.FromFile:
			msg += "; neither " + devfile.RelPath + " nor the environment sets it"
		case env.Skipped != "":
			msg += " (make dev: " + env.Skipped + ")"
		}
		return "", errors.New(msg)
	}
	from := name
	if _, ok := env.File.Env[name]; env.FromFile && ok {
		from += " of " + devfile.RelPath
	}
	var secrets map[string]string
	if err := json.Unmarshal([]byte(v), &secrets); err != nil || secrets == nil {
		return "", fmt.Errorf("%s is not a JSON object of signing secrets by mode, %s", from, shape)
	}
	secret := strings.TrimSpace(secrets[string(mode)])
	if secret == "" {
		return "", fmt.Errorf("%s has no %s signing secret (%q)", from, mode, mode)
	}
	return secret, nil
}

// receiverURL returns where the stripe-webhook function receives mode's
// events: PUBLIC_BASE_URL in env (make dev's local gateway, while it
// runs) and the route's path (manifest.StripeWebhook) for mode.
func receiverURL(env devfile.Choice, mode auth.Mode) (string, error) {
	base := strings.TrimSpace(env.Getenv(settings.PublicBaseURL))
	if base == "" {
		return "", fmt.Errorf("%s is not set, so there is no default receiver: give --url, or run inside the checkout while make dev runs", settings.PublicBaseURL)
	}
	url := stripelocal.ReceiverURL(base, mode)
	if err := webhookhttp.CheckURL(url, false); err != nil {
		return "", fmt.Errorf("%s %q gives no receiver URL: %w", settings.PublicBaseURL, base, err)
	}
	return url, nil
}

// responseJSON returns body as the output's response: the JSON itself
// when it is JSON, null when empty, else a string of its first
// maxResponseText characters.
func responseJSON(body []byte) json.RawMessage {
	b := bytes.TrimSpace(body)
	switch {
	case len(b) == 0:
		return json.RawMessage("null")
	case json.Valid(b):
		return b
	}
	s := string(b)
	if r := []rune(s); len(r) > maxResponseText {
		s = string(r[:maxResponseText]) + "…"
	}
	out, _ := json.Marshal(s)
	return out
}
