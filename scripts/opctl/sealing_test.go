package main

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/moveleads/partnerapi/scripts/devstack/devfile"
	"github.com/moveleads/partnerapi/shared/domain/webhook"
)

func TestSealingKey(t *testing.T) {
	fileKey, envKey, arnKey := newSealingKey(), newSealingKey(), newSealingKey()
	const arn = "arn:aws:secretsmanager:us-east-1:123456789012:secret:webhook-sealing-key-AbCdEf"
	fetch := func(_ context.Context, got string) (string, error) {
		if got != arn {
			return "", errors.New("no such secret")
		}
		return arnKey, nil
	}
	vars := func(kv ...string) func(string) string {
		m := map[string]string{}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return func(k string) string { return m[k] }
	}
	// fromFile is a running make dev's choice: the file's variables first.
	fromFile := func(file map[string]string, process func(string) string) devfile.Choice {
		return devfile.Choice{FromFile: true, File: devfile.File{PID: 1, Env: file}, Getenv: func(k string) string {
			if v, ok := file[k]; ok {
				return v
			}
			return process(k)
		}}
	}
	tests := []struct {
		name     string
		env      devfile.Choice
		wantKey  string
		wantFrom string
		wantErr  string
	}{
		{"environment", devfile.Choice{Getenv: vars("WEBHOOK_SEALING_KEY", envKey)}, envKey, "WEBHOOK_SEALING_KEY", ""},
		{"ARN", devfile.Choice{Getenv: vars("WEBHOOK_SEALING_KEY_ARN", arn)}, arnKey, "the secret " + arn + " (WEBHOOK_SEALING_KEY_ARN)", ""},
		{"ARN before the key, as the functions read it", devfile.Choice{Getenv: vars("WEBHOOK_SEALING_KEY_ARN", arn, "WEBHOOK_SEALING_KEY", envKey)},
			arnKey, "the secret " + arn + " (WEBHOOK_SEALING_KEY_ARN)", ""},
		{"dev.json before a stale ARN", fromFile(map[string]string{"WEBHOOK_SEALING_KEY": fileKey}, vars("WEBHOOK_SEALING_KEY_ARN", arn)),
			fileKey, "WEBHOOK_SEALING_KEY of .local/dev.json", ""},
		{"dev.json without a key", fromFile(map[string]string{"TABLE_NAME": "t"}, vars()), "", "",
			"the webhook sealing key is not set: set WEBHOOK_SEALING_KEY (64 hex characters) or WEBHOOK_SEALING_KEY_ARN (the ARN of its Secrets Manager secret, the stack's webhook-sealing-key); .local/dev.json names none (restart make dev)"},
		{"neither, make dev stale", devfile.Choice{Getenv: vars(), Skipped: "ignored stale .local/dev.json: make dev's pid 7 is not running"}, "", "",
			"(make dev: ignored stale .local/dev.json: make dev's pid 7 is not running)"},
		{"ARN unreadable", devfile.Choice{Getenv: vars("WEBHOOK_SEALING_KEY_ARN", arn+"x")}, "", "",
			"read the webhook sealing key from the secret " + arn + "x (WEBHOOK_SEALING_KEY_ARN): no such secret"},
		{"not hex", devfile.Choice{Getenv: vars("WEBHOOK_SEALING_KEY", "g"+envKey[1:])}, "", "",
			"the webhook sealing key in WEBHOOK_SEALING_KEY is not 64 hex characters (32 bytes)"},
		{"16 bytes", devfile.Choice{Getenv: vars("WEBHOOK_SEALING_KEY", envKey[:32])}, "", "",
			"the webhook sealing key in WEBHOOK_SEALING_KEY is not 64 hex characters (32 bytes)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			key, from, err := sealingKey(context.Background(), tt.env, fetch)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("sealingKey error %v; want one containing %q", err, tt.wantErr)
				}
				for _, k := range []string{fileKey, envKey, arnKey} {
					if strings.Contains(err.Error(), k[1:33]) {
						t.Error("the error quotes a key")
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if hex.EncodeToString(key) != tt.wantKey || from != tt.wantFrom {
				t.Errorf("sealingKey = a key from %q (right key: %v); want the key from %q", from, hex.EncodeToString(key) == tt.wantKey, tt.wantFrom)
			}
		})
	}
}

// TestSealingKeyFromSecretsManager runs webhook add with the key in a
// Secrets Manager secret, as in AWS, against a stand-in for Secrets
// Manager's GetSecretValue that the SDK's client calls over HTTP.
func TestSealingKeyFromSecretsManager(t *testing.T) {
	t.Parallel()
	h := newHookEnv(t)
	const arn = "arn:aws:secretsmanager:us-east-1:123456789012:secret:webhook-sealing-key-AbCdEf"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var in struct{ SecretId string }
		if r.Header.Get("X-Amz-Target") != "secretsmanager.GetSecretValue" || json.Unmarshal(body, &in) != nil || in.SecretId != arn {
			w.Header().Set("Content-Type", "application/x-amz-json-1.1")
			w.WriteHeader(http.StatusBadRequest)
			_, _ = io.WriteString(w, `{"__type":"ResourceNotFoundException","message":"Secrets Manager can't find the specified secret."}`)
			return
		}
		w.Header().Set("Content-Type", "application/x-amz-json-1.1")
		_ = json.NewEncoder(w).Encode(map[string]string{"ARN": arn, "Name": "webhook-sealing-key", "SecretString": h.key})
	}))
	t.Cleanup(srv.Close)
	id := createPartner(t, h.s)
	vars := map[string]string{"TABLE_NAME": h.s.Table(), "WEBHOOK_SEALING_KEY_ARN": arn, "AWS_ENDPOINT_URL_SECRETS_MANAGER": srv.URL}
	r := opctlEnv(t, vars, "webhook", "add", "--partner", id, "--mode", "test", "--url", "https://hooks.example.com/")
	out := ok[webhookAdded](t, r)
	secrets, err := h.endpoint(t, out.EndpointID).Open(h.sealer(t))
	if err != nil || secrets.Current != out.Secret {
		t.Errorf("the secret sealed with the key from Secrets Manager does not open with that key (%v)", err)
	}

	vars["WEBHOOK_SEALING_KEY_ARN"] = arn + "-other"
	r = opctlEnv(t, vars, "webhook", "add", "--partner", id, "--mode", "test", "--url", "https://hooks.example.com/")
	fails(t, r, exitFailure, "opctl: read the webhook sealing key from the secret "+arn+"-other (WEBHOOK_SEALING_KEY_ARN): ")
	if !strings.Contains(r.stderr, "ResourceNotFoundException") {
		t.Errorf("stderr %q; want Secrets Manager's error", r.stderr)
	}
}

// TestSealerLoader: the loader builds a Sealer that opens what one over
// the same key sealed.
func TestSealerLoader(t *testing.T) {
	key := newSealingKey()
	load := sealerLoader(devfile.Choice{Getenv: func(k string) string {
		if k == "WEBHOOK_SEALING_KEY" {
			return key
		}
		return ""
	}}, nil)
	sl, err := load(context.Background())
	if err != nil || sl.from != "WEBHOOK_SEALING_KEY" {
		t.Fatalf("load = from %q, %v", sl.from, err)
	}
	b, _ := hex.DecodeString(key)
	ref, _ := webhook.NewSealer(b)
	sealed, _ := ref.Seal("whsec_x", "we_1")
	if got, err := sl.Open(sealed, "we_1"); err != nil || got != "whsec_x" {
		t.Errorf("Open = %q, %v; want whsec_x", got, err)
	}
}
