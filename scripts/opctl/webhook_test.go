package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"maps"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/moveleads/partnerapi/shared/adapter/dynamo"
	"github.com/moveleads/partnerapi/shared/adapter/webhookhttp"
	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/domain/lead"
	"github.com/moveleads/partnerapi/shared/domain/webhook"
)

// hookEnv is a table and a sealing key for the webhook commands.
type hookEnv struct {
	s   *dynamo.Store
	key string // hex, as WEBHOOK_SEALING_KEY holds it
}

// newHookEnv returns a fresh table and a fresh sealing key.
func newHookEnv(t *testing.T) hookEnv {
	t.Helper()
	return hookEnv{s: newStore(t), key: newSealingKey()}
}

func newSealingKey() string {
	b := make([]byte, sealingKeyBytes)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// run runs opctl against h's table with h's sealing key.
func (h hookEnv) run(t *testing.T, args ...string) result {
	t.Helper()
	return opctlEnv(t, map[string]string{"TABLE_NAME": h.s.Table(), "WEBHOOK_SEALING_KEY": h.key}, args...)
}

// sealer returns the Sealer over h's key.
func (h hookEnv) sealer(t *testing.T) *webhook.Sealer {
	t.Helper()
	b, _ := hex.DecodeString(h.key)
	sl, err := webhook.NewSealer(b)
	if err != nil {
		t.Fatal(err)
	}
	return sl
}

// add runs webhook add for partnerID with args and returns its output.
func (h hookEnv) add(t *testing.T, partnerID string, args ...string) webhookAdded {
	t.Helper()
	return ok[webhookAdded](t, h.run(t, append([]string{"webhook", "add", "--partner", partnerID}, args...)...))
}

// endpoint reads endpoint id from the table.
func (h hookEnv) endpoint(t *testing.T, id string) webhook.Endpoint {
	t.Helper()
	e, err := h.s.GetEndpoint(context.Background(), id)
	if err != nil {
		t.Fatalf("GetEndpoint(%s): %v", id, err)
	}
	return e
}

// verifies reports whether secret verifies a delivery signed with signing,
// checked by the Standard Webhooks library itself.
func verifies(t *testing.T, signing []string, secret string) bool {
	t.Helper()
	payload := []byte(`{"type":"webhook.test","timestamp":"2026-01-01T00:00:00Z","data":{}}`)
	h, err := webhookhttp.Sign(signing, webhook.MessageID("evt_1", "we_1"), time.Now(), payload)
	if err != nil {
		t.Fatalf("Sign: %v", err)
	}
	headers := http.Header{}
	for k, v := range h {
		headers.Set(k, v)
	}
	wh, err := standardwebhooks.NewWebhook(secret)
	if err != nil {
		t.Fatalf("the printed secret is not a Standard Webhooks secret: %v", err)
	}
	return wh.Verify(payload, headers) == nil
}

func TestWebhookAdd(t *testing.T) {
	t.Parallel()
	h := newHookEnv(t)
	id := createPartner(t, h.s)
	tests := []struct {
		name       string
		args       []string
		wantMode   auth.Mode
		wantTypes  []webhook.Type
		wantEvents []string
	}{
		{"test mode, http, every type", []string{"--mode", "test", "--url", "http://127.0.0.1:9000/hooks"}, auth.Test, nil, []string{"*"}},
		{
			"live mode, https, some types", []string{"--mode", "live", "--url", "https://hooks.example.com/in", "--events", " estimate.ready,survey.completed,estimate.ready"},
			auth.Live, []webhook.Type{webhook.SurveyCompleted, webhook.EstimateReady}, []string{"survey.completed", "estimate.ready"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := h.run(t, append([]string{"webhook", "add", "--partner", id}, tt.args...)...)
			want := []string{"created_at", "disabled_at", "disabled_reason", "endpoint_id", "events", "failing_since", "mode", "note",
				"partner_id", "previous_secret_until", "secret", "status", "url"}
			if got := fields(t, r.stdout); !slices.Equal(got, want) {
				t.Errorf("output fields %q; want %q", got, want)
			}
			out := ok[webhookAdded](t, r)
			if _, err := hex.DecodeString(strings.TrimPrefix(out.EndpointID, webhook.EndpointPrefix)); err != nil || !strings.HasPrefix(out.EndpointID, webhook.EndpointPrefix) {
				t.Errorf("endpoint_id %q; want we_ and hex digits", out.EndpointID)
			}
			if _, endpoint, ok := parseWebhookID(webhook.MessageID("evt_x", out.EndpointID)); !ok || endpoint != out.EndpointID {
				t.Errorf("a webhook-id of endpoint %s does not parse back to it", out.EndpointID)
			}
			if !strings.HasPrefix(out.Secret, webhook.SecretPrefix) {
				t.Errorf("secret %.8q…; want it to start %s", out.Secret, webhook.SecretPrefix)
			}
			if !strings.Contains(out.Note, "only time") {
				t.Errorf("note %q; want it to say the secret is shown only this time", out.Note)
			}
			if out.Mode != tt.wantMode || out.PartnerID != id || out.Status != statusEnabled || !slices.Equal(out.Events, tt.wantEvents) {
				t.Errorf("output %+v; want mode %s, partner %s, enabled, events %q", out.endpointView, tt.wantMode, id, tt.wantEvents)
			}

			e := h.endpoint(t, out.EndpointID)
			if e.Tenant != (auth.Tenant{PartnerID: id, Mode: tt.wantMode}) || e.URL != out.URL || !slices.Equal(e.Types, tt.wantTypes) || e.Disabled {
				t.Errorf("stored endpoint %+v; want tenant %s/%s, url %s, types %q, enabled", e, id, tt.wantMode, out.URL, tt.wantTypes)
			}
			if strings.Contains(e.Sealed.Current, out.Secret) || strings.Contains(e.Sealed.Current, strings.TrimPrefix(out.Secret, webhook.SecretPrefix)) {
				t.Error("the table holds the secret in clear")
			}
			secrets, err := e.Open(h.sealer(t))
			if err != nil {
				t.Fatalf("open the stored secret: %v", err)
			}
			if secrets.Current != out.Secret || secrets.Previous != "" {
				t.Error("the stored secret does not open to the printed one")
			}
			if !verifies(t, secrets.Signing(time.Now()), out.Secret) {
				t.Error("a delivery signed with the stored secret does not verify with the printed one")
			}
			if stranger, _ := webhook.NewSecret(); verifies(t, secrets.Signing(time.Now()), stranger) {
				t.Error("a stranger's secret verifies")
			}
		})
	}
}

func TestWebhookAddUsage(t *testing.T) {
	t.Parallel()
	base := []string{"--partner", "ptn_x", "--mode", "test", "--url", "https://hooks.example.com/"}
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"live over http", []string{"--partner", "ptn_x", "--mode", "live", "--url", "http://hooks.example.com/"}, "webhook add: --url: invalid webhook URL: live-mode endpoints must use https"},
		{"bad event type", append(slices.Clone(base), "--events", "survey.completed,lead.created"), `webhook add: --events: unknown event type "lead.created" (known: survey.completed`},
		{"empty events", append(slices.Clone(base), "--events", " "), "--events: name at least one event type"},
		{"no partner", []string{"--mode", "test", "--url", "https://x.example/"}, "--partner is required"},
		{"no mode", []string{"--partner", "ptn_x", "--url", "https://x.example/"}, "--mode is required"},
		{"bad mode", []string{"--partner", "ptn_x", "--mode", "prod", "--url", "https://x.example/"}, `mode must be test or live, got "prod"`},
		{"no url", []string{"--partner", "ptn_x", "--mode", "test"}, "--url is required"},
		{"not a URL", []string{"--partner", "ptn_x", "--mode", "test", "--url", "hooks.example.com"}, "must be an absolute http or https URL"},
		{"fragment", []string{"--partner", "ptn_x", "--mode", "test", "--url", "https://x.example/#a"}, "fragment"},
		{"user info", []string{"--partner", "ptn_x", "--mode", "test", "--url", "https://u:p@x.example/"}, "user name or password"},
		{"description is not stored", append(slices.Clone(base), "--description", "main"), "flag provided but not defined: -description"},
		{"positional", append(slices.Clone(base), "now"), `unexpected argument "now"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := opctl(t, "", append([]string{"webhook", "add"}, tt.args...)...)
			fails(t, r, exitUsage, tt.want)
			if r.using != "" {
				t.Errorf("a usage error named a table (%q); want nothing read", r.using)
			}
		})
	}
}

func TestWebhookAddFailures(t *testing.T) {
	t.Parallel()
	h := newHookEnv(t)
	id := createPartner(t, h.s)
	args := []string{"webhook", "add", "--partner", id, "--mode", "test", "--url", "https://hooks.example.com/"}
	tests := []struct {
		name string
		vars map[string]string
		args []string
		want string
	}{
		{"unknown partner", map[string]string{"WEBHOOK_SEALING_KEY": h.key},
			[]string{"webhook", "add", "--partner", "ptn_x", "--mode", "test", "--url", "https://hooks.example.com/"}, "opctl: partner ptn_x not found\n"},
		{"no sealing key", nil, args,
			"opctl: the webhook sealing key is not set: set WEBHOOK_SEALING_KEY (64 hex characters) or WEBHOOK_SEALING_KEY_ARN (the ARN of its Secrets Manager secret, the stack's webhook-sealing-key)\n"},
		{"sealing key not hex", map[string]string{"WEBHOOK_SEALING_KEY": "zz" + h.key[2:]}, args,
			"opctl: the webhook sealing key in WEBHOOK_SEALING_KEY is not 64 hex characters (32 bytes)\n"},
		{"sealing key too short", map[string]string{"WEBHOOK_SEALING_KEY": h.key[:62]}, args,
			"opctl: the webhook sealing key in WEBHOOK_SEALING_KEY is not 64 hex characters (32 bytes)\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			vars := map[string]string{"TABLE_NAME": h.s.Table()}
			maps.Copy(vars, tt.vars)
			r := opctlEnv(t, vars, tt.args...)
			fails(t, r, exitFailure, "")
			if r.stderr != tt.want {
				t.Errorf("stderr %q; want %q", r.stderr, tt.want)
			}
			if strings.Contains(r.stderr, h.key[2:]) {
				t.Error("the error quotes the sealing key")
			}
		})
	}
	for _, m := range []auth.Mode{auth.Test, auth.Live} {
		if eps, err := h.s.TenantEndpoints(context.Background(), auth.Tenant{PartnerID: id, Mode: m}); err != nil || len(eps) != 0 {
			t.Errorf("%s endpoints after failed adds = %+v, %v; want none", m, eps, err)
		}
	}
}

func TestWebhookList(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	h := newHookEnv(t)
	id := createPartner(t, h.s)
	list := func(args ...string) (result, webhookList) {
		t.Helper()
		r := h.run(t, append([]string{"webhook", "list", "--partner", id}, args...)...)
		return r, ok[webhookList](t, r)
	}

	r, out := list()
	if out.PartnerID != id || out.Endpoints == nil || len(out.Endpoints) != 0 || !strings.Contains(r.stdout, `"endpoints": []`) {
		t.Errorf("list without endpoints: %q; want partner_id %s and \"endpoints\": []", r.stdout, id)
	}

	test := h.add(t, id, "--mode", "test", "--url", "http://127.0.0.1:9000/a", "--events", "survey.failed")
	live := h.add(t, id, "--mode", "live", "--url", "https://hooks.example.com/b")
	rotated := ok[secretRotated](t, h.run(t, "webhook", "rotate-secret", "--endpoint", live.EndpointID))
	// The service disables an endpoint that failed every attempt for
	// DisableAfter, with this kind of reason.
	failing := time.Date(2026, 3, 1, 8, 0, 0, 0, time.UTC)
	e := h.endpoint(t, test.EndpointID)
	e.Disabled, e.DisabledAt, e.FailingSince = true, failing.Add(webhook.DisableAfter), failing
	e.DisabledReason = "every attempt failed since 2026-03-01T08:00:00Z (120h0m0s); last: status 503"
	if err := h.s.UpdateEndpoint(ctx, e); err != nil {
		t.Fatal(err)
	}

	r, out = list()
	var sealed []string
	for _, id := range []string{test.EndpointID, live.EndpointID} {
		e := h.endpoint(t, id)
		sealed = append(sealed, e.Sealed.Current, e.Sealed.Previous)
	}
	for _, secret := range append(sealed, test.Secret, live.Secret, rotated.Secret, webhook.SecretPrefix, "v1:") {
		if secret != "" && strings.Contains(r.stdout, secret) {
			t.Errorf("webhook list output contains a secret or a sealed secret %.10q…", secret)
		}
	}
	var raw struct {
		Endpoints []map[string]json.RawMessage `json:"endpoints"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &raw); err != nil {
		t.Fatal(err)
	}
	for _, ep := range raw.Endpoints {
		want := []string{"created_at", "disabled_at", "disabled_reason", "endpoint_id", "events", "failing_since", "mode", "partner_id",
			"previous_secret_until", "status", "url"}
		if got := slices.Sorted(maps.Keys(ep)); !slices.Equal(got, want) {
			t.Errorf("endpoint fields %q; want %q", got, want)
		}
	}
	if len(out.Endpoints) != 2 {
		t.Fatalf("list = %d endpoints; want 2", len(out.Endpoints))
	}
	got := map[string]endpointView{}
	for _, v := range out.Endpoints {
		got[v.EndpointID] = v
	}
	d := got[test.EndpointID]
	if d.Status != statusDisabled || d.DisabledReason == nil || *d.DisabledReason != e.DisabledReason ||
		d.DisabledAt == nil || *d.DisabledAt != lead.FormatTime(e.DisabledAt) || d.FailingSince == nil || *d.FailingSince != lead.FormatTime(failing) ||
		!slices.Equal(d.Events, []string{"survey.failed"}) || d.Mode != auth.Test || d.URL != test.URL {
		t.Errorf("disabled endpoint %+v; want disabled with the service's reason, time and failing_since", d)
	}
	l := got[live.EndpointID]
	if l.Status != statusEnabled || l.DisabledReason != nil || l.DisabledAt != nil || l.FailingSince != nil ||
		l.PreviousSecretUntil == nil || *l.PreviousSecretUntil != rotated.PreviousSecretUntil || !slices.Equal(l.Events, []string{"*"}) {
		t.Errorf("live endpoint %+v; want enabled, every event, previous secret until %s", l, rotated.PreviousSecretUntil)
	}

	if _, out = list("--mode", "live"); len(out.Endpoints) != 1 || out.Endpoints[0].EndpointID != live.EndpointID {
		t.Errorf("list --mode live = %+v; want the live endpoint only", out.Endpoints)
	}
	fails(t, h.run(t, "webhook", "list", "--partner", "ptn_x"), exitFailure, "opctl: partner ptn_x not found")
	fails(t, h.run(t, "webhook", "list", "--partner", id, "--mode", ""), exitUsage, "--mode is required")
	fails(t, h.run(t, "webhook", "list"), exitUsage, "opctl: webhook list: --partner is required")
}

func TestWebhookDisableEnable(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	h := newHookEnv(t)
	id := createPartner(t, h.s)
	added := h.add(t, id, "--mode", "test", "--url", "https://hooks.example.com/")

	first := ok[endpointView](t, h.run(t, "webhook", "disable", "--endpoint", added.EndpointID))
	if first.Status != statusDisabled || first.DisabledReason == nil || *first.DisabledReason != operatorDisabled || first.DisabledAt == nil {
		t.Errorf("disable output %+v; want disabled by an operator, with a time", first)
	}
	e := h.endpoint(t, added.EndpointID)
	if !e.Disabled || e.DisabledReason != operatorDisabled || lead.FormatTime(e.DisabledAt) != *first.DisabledAt || e.Receives(webhook.SurveyCompleted) {
		t.Errorf("stored endpoint %+v; want disabled as printed", e)
	}
	time.Sleep(2 * time.Millisecond)
	if again := ok[endpointView](t, h.run(t, "webhook", "disable", "--endpoint", added.EndpointID)); *again.DisabledAt != *first.DisabledAt {
		t.Errorf("second disable moved disabled_at from %s to %s; want the first kept", *first.DisabledAt, *again.DisabledAt)
	}

	e.FailingSince = time.Now().Add(-time.Hour)
	if err := h.s.UpdateEndpoint(ctx, e); err != nil {
		t.Fatal(err)
	}
	r := h.run(t, "webhook", "enable", "--endpoint", added.EndpointID)
	en := ok[webhookEnabled](t, r)
	if en.Status != statusEnabled || en.DisabledReason != nil || en.DisabledAt != nil || en.FailingSince != nil || !strings.Contains(en.Note, "redeliver") {
		t.Errorf("enable output %+v; want enabled, no reason, no failure run, a note on redeliver", en)
	}
	e = h.endpoint(t, added.EndpointID)
	if e.Disabled || e.DisabledReason != "" || !e.DisabledAt.IsZero() || !e.FailingSince.IsZero() || !e.Receives(webhook.SurveyCompleted) {
		t.Errorf("stored endpoint after enable %+v; want enabled, its failure run and reason cleared", e)
	}
	if secrets, err := e.Open(h.sealer(t)); err != nil || secrets.Current != added.Secret {
		t.Errorf("the secret after disable and enable does not open to the one added (%v)", err)
	}

	for _, verb := range []string{"disable", "enable"} {
		r := h.run(t, "webhook", verb, "--endpoint", "we_0000000000000000")
		fails(t, r, exitFailure, "")
		if want := "opctl: webhook endpoint we_0000000000000000 not found\n"; r.stderr != want {
			t.Errorf("%s of an unknown endpoint: stderr %q; want %q", verb, r.stderr, want)
		}
		fails(t, h.run(t, "webhook", verb), exitUsage, "opctl: webhook "+verb+": --endpoint is required")
	}
}

func TestWebhookRotateSecret(t *testing.T) {
	t.Parallel()
	h := newHookEnv(t)
	id := createPartner(t, h.s)
	added := h.add(t, id, "--mode", "live", "--url", "https://hooks.example.com/")

	before := time.Now()
	r := h.run(t, "webhook", "rotate-secret", "--endpoint", added.EndpointID)
	if got, want := fields(t, r.stdout), []string{"endpoint_id", "note", "previous_secret_until", "secret"}; !slices.Equal(got, want) {
		t.Errorf("output fields %q; want %q", got, want)
	}
	out := ok[secretRotated](t, r)
	if out.EndpointID != added.EndpointID || !strings.HasPrefix(out.Secret, webhook.SecretPrefix) || out.Secret == added.Secret {
		t.Fatalf("rotate output for %s: a new whsec_ secret expected", out.EndpointID)
	}
	until, err := time.Parse(lead.TimeLayout, out.PreviousSecretUntil)
	if err != nil || until.Before(before.Add(webhook.RotationOverlap)) || until.After(time.Now().Add(webhook.RotationOverlap)) {
		t.Errorf("previous_secret_until %q (%v); want now + %s", out.PreviousSecretUntil, err, webhook.RotationOverlap)
	}
	secrets, err := h.endpoint(t, added.EndpointID).Open(h.sealer(t))
	if err != nil {
		t.Fatal(err)
	}
	if secrets.Current != out.Secret || secrets.Previous != added.Secret || lead.FormatTime(secrets.PreviousUntil) != out.PreviousSecretUntil {
		t.Error("stored secrets are not the new one with the old one until previous_secret_until")
	}
	signing := secrets.Signing(time.Now())
	if len(signing) != 2 {
		t.Fatalf("%d signing secrets during the overlap; want 2", len(signing))
	}
	for name, secret := range map[string]string{"new": out.Secret, "old": added.Secret} {
		if !verifies(t, signing, secret) {
			t.Errorf("a delivery during the overlap does not verify with the %s secret", name)
		}
	}
	if after := secrets.Signing(until); len(after) != 1 || after[0] != out.Secret {
		t.Error("after the overlap the old secret still signs")
	}

	// A second rotation during the overlap: the oldest secret stops now.
	second := ok[secretRotated](t, h.run(t, "webhook", "rotate-secret", "--endpoint", added.EndpointID))
	if !strings.Contains(second.Note, "stopped signing now") {
		t.Errorf("note %q; want it to say the oldest secret stopped signing", second.Note)
	}
	if s, _ := h.endpoint(t, added.EndpointID).Open(h.sealer(t)); s.Current != second.Secret || s.Previous != out.Secret {
		t.Error("second rotation: want the newest secret current and the one before it previous")
	}

	stored := h.endpoint(t, added.EndpointID).Sealed
	wrong := hookEnv{s: h.s, key: newSealingKey()}
	r = wrong.run(t, "webhook", "rotate-secret", "--endpoint", added.EndpointID)
	fails(t, r, exitFailure, "do not open with the webhook sealing key from WEBHOOK_SEALING_KEY")
	if h.endpoint(t, added.EndpointID).Sealed != stored {
		t.Error("a rotation with the wrong key changed the stored secrets")
	}
	fails(t, opctl(t, h.s.Table(), "webhook", "rotate-secret", "--endpoint", added.EndpointID), exitFailure, "the webhook sealing key is not set")
	fails(t, h.run(t, "webhook", "rotate-secret", "--endpoint", "we_0000000000000000"), exitFailure, "opctl: webhook endpoint we_0000000000000000 not found")
}
