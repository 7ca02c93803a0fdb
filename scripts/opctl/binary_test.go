package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestBinary builds opctl and runs it as an operator would, to check exit
// statuses and the single stderr line end to end (main included).
func TestBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary; skipped in -short mode")
	}
	t.Parallel()
	s := newStore(t)
	bin := filepath.Join(t.TempDir(), "opctl")
	build := exec.Command("go", "build", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	// TestMain put the DynamoDB Local endpoint and credentials in this
	// process's environment; the binary inherits them.
	env := append(os.Environ(), "TABLE_NAME="+s.Table())
	exe := func(t *testing.T, env []string, args ...string) result {
		t.Helper()
		cmd := exec.Command(bin, args...)
		cmd.Env = env
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		var exit *exec.ExitError
		if err != nil && !errors.As(err, &exit) {
			t.Fatalf("run opctl %q: %v", args, err)
		}
		return result{args: args, code: cmd.ProcessState.ExitCode(), stdout: stdout.String(), stderr: stderr.String()}
	}

	t.Run("partner create", func(t *testing.T) {
		out := ok[partnerCreated](t, exe(t, env, "partner", "create", "--name", "Binary Movers"))
		if !partnerIDPattern.MatchString(out.PartnerID) {
			t.Errorf("partner_id %q; want ptn_<16 hex>", out.PartnerID)
		}
	})
	t.Run("unknown key", func(t *testing.T) {
		r := exe(t, env, "key", "revoke", "key_0000000000000000")
		fails(t, r, exitFailure, "")
		if want := "opctl: key key_0000000000000000 not found\n"; r.stderr != want {
			t.Errorf("stderr %q; want %q", r.stderr, want)
		}
	})
	t.Run("usage error", func(t *testing.T) {
		fails(t, exe(t, env, "key", "create", "--partner", "ptn_x", "--mode", "prod"), exitUsage, "--mode")
	})
	t.Run("no TABLE_NAME", func(t *testing.T) {
		var without []string
		for _, kv := range env {
			if !strings.HasPrefix(kv, "TABLE_NAME=") {
				without = append(without, kv)
			}
		}
		r := exe(t, without, "key", "list", "--partner", "ptn_x")
		fails(t, r, exitFailure, "opctl: TABLE_NAME is not set")
	})
	t.Run("output is indented JSON", func(t *testing.T) {
		r := exe(t, env, "partner", "create", "--name", "Indent Movers")
		var v map[string]any
		if err := json.Unmarshal([]byte(r.stdout), &v); err != nil {
			t.Fatalf("stdout %q: %v", r.stdout, err)
		}
		if !strings.HasPrefix(r.stdout, "{\n  \"partner_id\": ") || !strings.HasSuffix(r.stdout, "}\n") {
			t.Errorf("stdout %q; want an indented object ending in a newline", r.stdout)
		}
	})
}
