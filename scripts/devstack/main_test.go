package main

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
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
	go func() { done <- run(ctx, io.Discard, env, state) }()

	devPath := filepath.Join(state, "dev.json")
	var dev DevFile
	deadline := time.Now().Add(2 * time.Minute)
	for {
		b, err := os.ReadFile(devPath)
		if err == nil && json.Unmarshal(b, &dev) == nil {
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
	for _, k := range []string{"AWS_ENDPOINT_URL_DYNAMODB", "TABLE_NAME", "AWS_REGION", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"} {
		if dev.Env[k] == "" {
			t.Errorf("dev.json env lacks %s", k)
		}
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
	if _, err := os.Stat(filepath.Join(state, "sam-env.json")); err != nil {
		t.Errorf("sam-env.json: %v", err)
	}

	err = run(context.Background(), io.Discard, env, state)
	if err == nil || !strings.Contains(err.Error(), "already running") || !strings.Contains(err.Error(), dev.BaseURL) {
		t.Errorf("second make dev: %v; want a plain 'already running' naming %s", err, dev.BaseURL)
	}

	cancel()
	select {
	case err := <-done:
		if err != nil && !errors.Is(err, context.Canceled) {
			t.Errorf("make dev stopped with %v", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("make dev did not stop")
	}
	if _, err := os.Stat(devPath); !os.IsNotExist(err) {
		t.Errorf("dev.json left behind after stop: %v", err)
	}
}
