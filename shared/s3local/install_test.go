package s3local

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/moveleads/partnerapi/shared/dynamolocal"
	"github.com/moveleads/partnerapi/shared/repo"
)

func TestEnv(t *testing.T) {
	got := Env(&Server{Endpoint: "http://127.0.0.1:1234", AccessKey: "key", SecretKey: "secret"})
	want := []string{
		"AWS_ENDPOINT_URL_S3=http://127.0.0.1:1234",
		"AWS_REGION=us-east-1",
		"AWS_ACCESS_KEY_ID=key",
		"AWS_SECRET_ACCESS_KEY=secret",
		"AWS_EC2_METADATA_DISABLED=true",
	}
	if !slices.Equal(got, want) {
		t.Errorf("Env() = %q; want %q", got, want)
	}
}

// TestSetEnvAfterDynamoDBLocal sets up a process for both local servers,
// as a test binary that uses both does: the DynamoDB endpoint stays, no
// endpoint for every service appears, and the credentials are MinIO's.
func TestSetEnvAfterDynamoDBLocal(t *testing.T) {
	for _, k := range []string{"AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL_DYNAMODB",
		"AWS_REGION", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_EC2_METADATA_DISABLED"} {
		t.Setenv(k, "") // restores the variable after the test
	}
	dynamolocal.SetEnv("http://127.0.0.1:8000")
	srv := &Server{Endpoint: "http://127.0.0.1:9000", AccessKey: rootUser, SecretKey: rootPassword}
	SetEnv(srv)
	want := map[string]string{
		"AWS_ENDPOINT_URL":          "",
		"AWS_ENDPOINT_URL_DYNAMODB": "http://127.0.0.1:8000",
		"AWS_ENDPOINT_URL_S3":       "http://127.0.0.1:9000",
		"AWS_REGION":                "us-east-1",
		"AWS_ACCESS_KEY_ID":         rootUser,
		"AWS_SECRET_ACCESS_KEY":     rootPassword,
		"AWS_EC2_METADATA_DISABLED": "true",
	}
	for k, v := range want {
		if got := os.Getenv(k); got != v {
			t.Errorf("%s = %q; want %q", k, got, v)
		}
	}
}

func TestServerEnv(t *testing.T) {
	environ := []string{"PATH=/bin", "MINIO_ROOT_USER=mine", "MINIO_VOLUMES=/data", "HOME=/root"}
	tests := []struct {
		name string
		opts []Option
		want []string
	}{
		{
			name: "defaults: no origin allowed, no webhook",
			want: []string{"MINIO_API_CORS_ALLOW_ORIGIN=" + noOrigin},
		},
		{
			name: "origins and webhooks",
			opts: []Option{
				WithCORSOrigins("http://127.0.0.1:3000", "https://*.example.com"),
				WithWebhooks(
					Webhook{ID: "clips", Endpoint: "http://127.0.0.1:9/e", AuthToken: "t0ken"},
					Webhook{ID: "Other_2", Endpoint: "http://127.0.0.1:9/o"},
				),
			},
			want: []string{
				"MINIO_API_CORS_ALLOW_ORIGIN=http://127.0.0.1:3000,https://*.example.com",
				"MINIO_NOTIFY_WEBHOOK_ENABLE_clips=on",
				"MINIO_NOTIFY_WEBHOOK_ENDPOINT_clips=http://127.0.0.1:9/e",
				"MINIO_NOTIFY_WEBHOOK_AUTH_TOKEN_clips=t0ken",
				"MINIO_NOTIFY_WEBHOOK_ENABLE_Other_2=on",
				"MINIO_NOTIFY_WEBHOOK_ENDPOINT_Other_2=http://127.0.0.1:9/o",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var o options
			for _, opt := range tt.opts {
				opt(&o)
			}
			got := serverEnv(environ, o)
			want := append([]string{"PATH=/bin", "HOME=/root",
				"MINIO_ROOT_USER=" + rootUser, "MINIO_ROOT_PASSWORD=" + rootPassword,
				"MINIO_BROWSER=off", "MINIO_UPDATE=off", "MINIO_SYNC_BOOT=on"}, tt.want...)
			if !slices.Equal(got, want) {
				t.Errorf("serverEnv() = %q; want %q", got, want)
			}
		})
	}
}

func TestWebhookARN(t *testing.T) {
	if got, want := (Webhook{ID: "clips"}).ARN(), "arn:minio:sqs::clips:webhook"; got != want {
		t.Errorf("ARN() = %q; want %q", got, want)
	}
}

// TestDir checks this package's directory and installer; the lookup
// itself is childproc.InstallDir's, tested there.
func TestDir(t *testing.T) {
	t.Setenv(dirEnv, "")
	got, err := Dir()
	if err != nil {
		t.Fatalf("Dir() error: %v", err)
	}
	if filepath.Base(got) != "minio" || filepath.Base(filepath.Dir(got)) != ".cache" {
		t.Errorf("Dir() = %q; want <root>/.cache/minio", got)
	}
	root := filepath.Dir(filepath.Dir(got))
	if _, err := os.Stat(filepath.Join(root, installScript)); err != nil {
		t.Errorf("Dir() = %q: root %q has no %s: %v", got, root, installScript, err)
	}
}

// installScriptPath returns the absolute path of the installer.
func installScriptPath(t *testing.T) string {
	t.Helper()
	root, err := repo.Root()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(root, installScript)
}

// TestInstallScriptWarm checks the installer's contract once installed: it
// does nothing (no go needed) and its stdout is exactly the binary's path.
func TestInstallScriptWarm(t *testing.T) {
	if testing.Short() {
		t.Skip("installs MinIO (minutes on a cold cache)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), forTestsTimeout)
	defer cancel()
	bin, err := Install(ctx)
	if err != nil {
		t.Fatalf("Install: %v", err)
	}
	cmd := exec.CommandContext(ctx, "bash", installScriptPath(t))
	// Without go on PATH: a warm run must not need it.
	cmd.Env = append(os.Environ(), dirEnv+"="+filepath.Dir(bin), "PATH=/usr/bin:/bin")
	start := time.Now()
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v", installScript, err)
	}
	if got := string(out); got != bin+"\n" {
		t.Errorf("%s printed %q; want %q", installScript, got, bin+"\n")
	}
	t.Logf("warm install took %v", time.Since(start))
}

// TestInstallScriptNeedsGo runs the installer for an empty directory
// without go on PATH: it must fail at once, say why, and create nothing.
func TestInstallScriptNeedsGo(t *testing.T) {
	if _, err := os.Stat("/bin/bash"); err != nil {
		t.Skip("no /bin/bash")
	}
	if _, err := os.Stat("/usr/bin/go"); err == nil {
		t.Skip("go is in /usr/bin, so it cannot be left off PATH")
	}
	dir := filepath.Join(t.TempDir(), "minio")
	cmd := exec.Command("/bin/bash", installScriptPath(t))
	cmd.Env = append(os.Environ(), dirEnv+"="+dir, "PATH=/usr/bin:/bin")
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("%s without go succeeded; want exit status 1", installScript)
	}
	if code := cmd.ProcessState.ExitCode(); code != 1 {
		t.Errorf("exit status %d; want 1", code)
	}
	if !strings.Contains(string(out), "go not found on PATH") {
		t.Errorf("output %q; want it to say that go is not found on PATH", out)
	}
	if _, err := os.Stat(dir); err == nil {
		t.Errorf("%s was created; want nothing", dir)
	}
}

// TestInstallChecksTheVersion points Install at directories that hold the
// installed binary under a marker of the pinned version or of another
// one, with no go on PATH: the first is used as it is, the second needs a
// new build, which fails here for want of go.
func TestInstallChecksTheVersion(t *testing.T) {
	if testing.Short() {
		t.Skip("installs MinIO (minutes on a cold cache)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), forTestsTimeout)
	defer cancel()
	bin, err := Install(ctx)
	if err != nil {
		t.Fatalf("Install: %v", err)
	}
	pinned, err := os.ReadFile(filepath.Join(filepath.Dir(bin), ".installed"))
	if err != nil {
		t.Fatalf("marker of the installed version: %v", err)
	}
	tests := []struct {
		name    string
		marker  string
		wantErr string // "" = Install returns the binary
	}{
		{"pinned version", string(pinned), ""},
		{"other version", "github.com/minio/minio@v0.0.0-20200101000000-000000000000\n", "go not found on PATH"},
		{"no marker", "", "go not found on PATH"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.Symlink(bin, filepath.Join(dir, binaryName)); err != nil {
				t.Fatal(err)
			}
			if tt.marker != "" {
				if err := os.WriteFile(filepath.Join(dir, ".installed"), []byte(tt.marker), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			t.Setenv(dirEnv, dir)
			t.Setenv("PATH", "/usr/bin:/bin")
			got, err := Install(ctx)
			switch {
			case tt.wantErr == "" && (err != nil || got != filepath.Join(dir, binaryName)):
				t.Errorf("Install() = %q, %v; want %q, nil", got, err, filepath.Join(dir, binaryName))
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Errorf("Install() = %q, %v; want an error saying %q", got, err, tt.wantErr)
			}
		})
	}
}
