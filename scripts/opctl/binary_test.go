package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/moveleads/partnerapi/scripts/devstack/devfile"
	"github.com/moveleads/partnerapi/shared/local/repo"
)

// runBinary runs the opctl binary bin in dir with env and returns the
// result, the line naming the table split from the rest of stderr.
func runBinary(t *testing.T, bin, dir string, env []string, args ...string) result {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Env = env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatalf("run opctl %q: %v", args, err)
	}
	return split(args, cmd.ProcessState.ExitCode(), stdout.String(), stderr.String())
}

// buildBinary builds opctl into a temporary directory.
func buildBinary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the binary; skipped in -short mode")
	}
	bin := filepath.Join(t.TempDir(), "opctl")
	build := exec.Command("go", "build", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// withEnv returns env with each KEY=value of set replacing the variable
// of the same name.
func withEnv(env []string, set ...string) []string {
	out := make([]string, 0, len(env)+len(set))
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		keep := true
		for _, s := range set {
			if sk, _, _ := strings.Cut(s, "="); sk == k {
				keep = false
			}
		}
		if keep {
			out = append(out, kv)
		}
	}
	return append(out, set...)
}

// TestBinary builds opctl and runs it as an operator would, to check exit
// statuses and the single stderr line end to end (main included). It runs
// outside the repository, so a developer's running make dev is not used.
func TestBinary(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t)
	s := newStore(t)
	outside := t.TempDir()
	// TestMain put the DynamoDB Local endpoint and credentials in this
	// process's environment; the binary inherits them.
	env := withEnv(os.Environ(), "TABLE_NAME="+s.Table())
	exe := func(t *testing.T, env []string, args ...string) result {
		t.Helper()
		return runBinary(t, bin, outside, env, args...)
	}

	t.Run("partner create", func(t *testing.T) {
		r := exe(t, env, "partner", "create", "--name", "Binary Movers")
		out := ok[partnerCreated](t, r)
		if !partnerIDPattern.MatchString(out.PartnerID) {
			t.Errorf("partner_id %q; want ptn_<16 hex>", out.PartnerID)
		}
		want := usingPrefix + s.Table() + " at " + os.Getenv("AWS_ENDPOINT_URL_DYNAMODB") + ", from the environment (not inside the repository)"
		if r.using != want {
			t.Errorf("stderr line %q; want %q", r.using, want)
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
	for _, arg := range []string{"help", "-h", "--help"} {
		t.Run(arg+" exits 0", func(t *testing.T) {
			r := exe(t, env, arg)
			if r.code != exitOK || r.stdout != usage() || r.stderr != "" {
				t.Errorf("opctl %s: exit %d, stdout %q, stderr %q; want exit 0 and the usage on stdout", arg, r.code, r.stdout, r.stderr)
			}
		})
	}
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
	t.Run("webhook add needs the sealing key", func(t *testing.T) {
		id := ok[partnerCreated](t, exe(t, env, "partner", "create", "--name", "Hook Movers")).PartnerID
		add := []string{"webhook", "add", "--partner", id, "--mode", "test", "--url", "https://hooks.example.com/"}
		unset := withEnv(env, "WEBHOOK_SEALING_KEY=", "WEBHOOK_SEALING_KEY_ARN=")
		fails(t, exe(t, unset, add...), exitFailure, "opctl: the webhook sealing key is not set")
		out := ok[webhookAdded](t, exe(t, withEnv(unset, "WEBHOOK_SEALING_KEY="+newSealingKey()), add...))
		if !strings.HasPrefix(out.Secret, "whsec_") {
			t.Errorf("webhook add printed no whsec_ secret")
		}
		// Only add and rotate-secret read the key.
		ok[webhookList](t, exe(t, unset, "webhook", "list", "--partner", id))
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

// TestBinaryDevFile runs opctl from a subdirectory of a repository whose
// .local/dev.json describes a running stack, with variables left over from
// an earlier make dev in the environment: a live dev.json must win over
// them, a stale one must not.
func TestBinaryDevFile(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t)
	s := newStore(t)
	endpoint := os.Getenv("AWS_ENDPOINT_URL_DYNAMODB")

	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "go.mod"), []byte("module "+repo.ModulePath+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(root, "scripts", "somewhere")
	for _, d := range []string{filepath.Join(root, ".local"), sub} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	devPath := filepath.Join(root, filepath.FromSlash(devfile.RelPath))
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	deadEndpoint := "http://" + l.Addr().String()
	l.Close()
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name      string
		dev       devfile.File
		env       []string
		wantUsing string
	}{
		{
			name: "live dev.json wins over stale environment",
			dev: devfile.File{PID: os.Getpid(), Env: map[string]string{
				"TABLE_NAME": s.Table(), "AWS_ENDPOINT_URL_DYNAMODB": endpoint,
				"AWS_REGION": "us-east-1", "AWS_ACCESS_KEY_ID": "local", "AWS_SECRET_ACCESS_KEY": "local",
			}},
			env:       []string{"TABLE_NAME=stale-table", "AWS_ENDPOINT_URL_DYNAMODB=" + deadEndpoint},
			wantUsing: usingPrefix + s.Table() + " at " + endpoint + ", from .local/dev.json of make dev (pid " + strconv.Itoa(os.Getpid()) + ")",
		},
		{
			name: "stale dev.json loses to the environment",
			dev: devfile.File{PID: gone.Process.Pid, Env: map[string]string{
				"TABLE_NAME": "stale-table", "AWS_ENDPOINT_URL_DYNAMODB": endpoint,
			}},
			env: []string{"TABLE_NAME=" + s.Table()},
			wantUsing: usingPrefix + s.Table() + " at " + endpoint + ", from the environment (ignored stale .local/dev.json: make dev's pid " +
				strconv.Itoa(gone.Process.Pid) + " is not running)",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := devfile.Write(devPath, tt.dev); err != nil {
				t.Fatal(err)
			}
			r := runBinary(t, bin, sub, withEnv(os.Environ(), tt.env...), "partner", "create", "--name", "Dev Movers")
			ok[partnerCreated](t, r)
			if r.using != tt.wantUsing {
				t.Errorf("stderr line %q; want %q", r.using, tt.wantUsing)
			}
		})
	}
}
