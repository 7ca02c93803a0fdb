package s3local

import (
	"os"
	"slices"
	"testing"

	"github.com/moveleads/partnerapi/shared/local/dynamolocal"
	"github.com/moveleads/partnerapi/shared/testkit/childproctest"
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
	childproctest.InstallDirIsCache(t, Dir, dirEnv, "minio", installScript)
}

// TestInstallScriptWarm checks the installer's contract once installed: it
// does nothing (no go needed) and its stdout is exactly the binary's path.
func TestInstallScriptWarm(t *testing.T) {
	if testing.Short() {
		t.Skip("installs MinIO (minutes on a cold cache)")
	}
	childproctest.GoInstallerWarm(t, forTestsTimeout, Install, installScript, dirEnv)
}

// TestInstallScriptNeedsGo runs the installer for an empty directory
// without go on PATH: it must fail at once, say why, and create nothing.
func TestInstallScriptNeedsGo(t *testing.T) {
	childproctest.GoInstallerNeedsGo(t, installScript, dirEnv, "minio")
}

// TestInstallChecksTheVersion points Install at directories that hold the
// installed binary under a marker of the pinned version or of another
// one, with no go on PATH: the first is used as it is, the second needs a
// new build, which fails here for want of go.
func TestInstallChecksTheVersion(t *testing.T) {
	if testing.Short() {
		t.Skip("installs MinIO (minutes on a cold cache)")
	}
	childproctest.GoInstallChecksTheVersion(t, forTestsTimeout, Install, dirEnv, binaryName, "github.com/minio/minio@v0.0.0-20200101000000-000000000000\n")
}
