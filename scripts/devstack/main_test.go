package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/moveleads/partnerapi/scripts/devstack/devfile"
)

// TestMakeDev runs the dev stack in-process: it must serve the API with the
// key it prints, write dev.json and sam-env.json, refuse a second instance
// with a plain message, and clean up when stopped.
func TestMakeDev(t *testing.T) {
	if testing.Short() {
		t.Skip("starts DynamoDB Local")
	}
	state := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	env := func(k string) string {
		if k == "PORT" {
			return "0"
		}
		return ""
	}
	var out syncBuffer
	go func() { done <- run(ctx, &out, env, state) }()

	devPath := filepath.Join(state, "dev.json")
	var dev devfile.File
	deadline := time.Now().Add(2 * time.Minute)
	for {
		var err error
		if dev, err = devfile.Read(devPath); err == nil {
			break
		}
		select {
		case err := <-done:
			t.Fatalf("make dev stopped early: %v", err)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatal("dev.json never appeared")
		}
		time.Sleep(100 * time.Millisecond)
	}
	if bad := wantEnv(dev.Env, map[string]string{
		"AWS_ENDPOINT_URL_DYNAMODB": "", "TABLE_NAME": "", "AWS_REGION": "", "AWS_ACCESS_KEY_ID": "", "AWS_SECRET_ACCESS_KEY": "",
		"AWS_ENDPOINT_URL_S3": "", "CLIP_BUCKET": clipBucket, "PUBLIC_BASE_URL": dev.BaseURL,
	}); len(bad) > 0 {
		t.Errorf("dev.json env: %s", strings.Join(bad, ", "))
	}
	if s3 := dev.Env["AWS_ENDPOINT_URL_S3"]; !strings.HasPrefix(s3, "http://127.0.0.1:") || s3 == dev.Env["AWS_ENDPOINT_URL_DYNAMODB"] {
		t.Errorf("AWS_ENDPOINT_URL_S3 = %q; want MinIO on loopback", s3)
	}
	if !strings.HasPrefix(dev.BaseURL, "http://127.0.0.1:") || !strings.HasPrefix(dev.APIKey, "mk_test_") || dev.PartnerID == "" {
		t.Errorf("dev.json = %+v", dev)
	}
	req, _ := http.NewRequest("POST", dev.BaseURL+"/v1/leads", strings.NewReader(`{"email":"ada@example.com"}`))
	req.Header.Set("Authorization", "Bearer "+dev.APIKey)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("createLead with the printed key: %d; want 200", resp.StatusCode)
	}
	for name, host := range map[string]string{"sam-env.json": "host.docker.internal", "sam-env.host-network.json": "127.0.0.1"} {
		var sam struct{ Parameters map[string]string }
		b, err := os.ReadFile(filepath.Join(state, name))
		if err != nil || json.Unmarshal(b, &sam) != nil {
			t.Errorf("%s: %v %q", name, err, b)
			continue
		}
		for _, k := range []string{"AWS_ENDPOINT_URL_DYNAMODB", "AWS_ENDPOINT_URL_S3", "STRIPE_API_URL"} {
			want := strings.Replace(dev.Env[k], "127.0.0.1", host, 1)
			if got := sam.Parameters[k]; got != want {
				t.Errorf("%s %s %q; want %q", name, k, got, want)
			}
		}
		// The browser on this machine opens capture links: not rewritten.
		for _, k := range []string{"TABLE_NAME", "CURSOR_SECRET", "WEBHOOK_SEALING_KEY", "STRIPE_API_KEYS", "STRIPE_WEBHOOK_SECRETS", "CLIP_BUCKET", "PUBLIC_BASE_URL"} {
			if got := sam.Parameters[k]; got == "" || got != dev.Env[k] {
				t.Errorf("%s %s %q; want dev.json's %q", name, k, got, dev.Env[k])
			}
		}
	}
	leadID, capture := demoFromBanner(t, &out)
	if !strings.HasPrefix(capture, dev.BaseURL+"/v1-capture/") {
		t.Errorf("the banner's capture link %s is not under %s/v1-capture/", redact(capture), dev.BaseURL)
	}
	checkCapturePage(t, capture)
	checkVideoLink(t, out.String())
	checkS3EventsEndpoint(t, dev)
	hooks := listen(t, dev)
	checkSurveyFlow(t, dev, leadID, capture)
	hooks.wait(t, leadID, "survey.completed", "estimate.ready")
	checkCheckout(t, dev, hooks)
	hooks.stop()
	if log := out.String(); !strings.Contains(log, `"msg":"s3 record","event":"s3:ObjectCreated:Put"`) || !strings.Contains(log, `"bucket":"`+clipBucket+`"`) {
		t.Errorf("the log shows no S3 event of %s reaching the clip processor:\n%s", clipBucket, log)
	}
	// The log is quiet by default: the survey's stream records (its
	// events, the webhooks') are not logged, its requests are, one line
	// each, and so are its state changes.
	if log := out.String(); strings.Contains(log, `"msg":"stream record"`) ||
		!strings.Contains(log, `"msg":"request"`) || !strings.Contains(log, `"method":"POST","path":"/v1/leads","status":200`) ||
		!strings.Contains(log, `"msg":"survey settled"`) || !strings.Contains(log, `"msg":"webhook attempt"`) {
		t.Errorf("the default log has stream records, or lacks the createLead request line, the survey settled or the webhook attempt:\n%s", log)
	}
	if err := dev.Alive(context.Background()); err != nil {
		t.Errorf("dev.json of a running stack is not alive: %v", err)
	}

	err = run(context.Background(), io.Discard, env, state)
	if err == nil || !strings.Contains(err.Error(), "already running") || !strings.Contains(err.Error(), dev.BaseURL) {
		t.Errorf("second make dev: %v; want a plain 'already running' naming %s", err, dev.BaseURL)
	}

	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("make dev stopped with %v; want nil", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("make dev did not stop")
	}
	for _, name := range []string{"dev.json", "sam-env.json", "sam-env.host-network.json"} {
		if _, err := os.Stat(filepath.Join(state, name)); !os.IsNotExist(err) {
			t.Errorf("%s left behind after stop: %v", name, err)
		}
	}
	for _, k := range []string{"AWS_ENDPOINT_URL_DYNAMODB", "AWS_ENDPOINT_URL_S3"} {
		client := &http.Client{Timeout: 2 * time.Second, Transport: &http.Transport{Proxy: nil}}
		if resp, err := client.Get(dev.Env[k]); err == nil {
			resp.Body.Close()
			t.Errorf("%s %s still answers after the stop", k, dev.Env[k])
		}
	}
}

func TestExitCode(t *testing.T) {
	live := context.Background()
	stopped, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name string
		ctx  context.Context
		err  error
		want int
	}{
		{"clean stop", stopped, nil, 0},
		{"start cancelled by the signal", stopped, fmt.Errorf("start dynamodb local: %w", context.Canceled), 0},
		{"real failure during shutdown", stopped, errors.New("shut down: boom"), 1},
		{"failure without a signal", live, errors.New("port 3000 is taken"), 1},
		{"cancellation without a signal", live, context.Canceled, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := exitCode(tt.ctx, tt.err); got != tt.want {
				t.Errorf("exitCode(%v) = %d; want %d", tt.err, got, tt.want)
			}
		})
	}
}
