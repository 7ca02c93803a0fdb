package awsenv

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/moveleads/partnerapi/shared/local/dynamolocal"
)

func TestMain(m *testing.M) { dynamolocal.RunTests(m) }

// The keys the container credentials endpoint hands out.
const (
	containerKeyID  = "ASIACONTAINEREXAMPLE"
	containerSecret = "containerSecretKeyEXAMPLE"
	containerToken2 = "container-session-token"
)

// credentialsEndpoint serves container credentials in the endpoint's JSON
// shape (AccessKeyId, SecretAccessKey, Token, Expiration) to requests
// whose Authorization header is token, and 401 otherwise; it counts the
// requests it answered with keys.
func credentialsEndpoint(t *testing.T, token string, served *atomic.Int32) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.Header.Get("Authorization") != token {
			w.WriteHeader(http.StatusUnauthorized)
			_ = json.NewEncoder(w).Encode(map[string]string{"code": "AccessDenied", "message": "bad token"})
			return
		}
		served.Add(1)
		_ = json.NewEncoder(w).Encode(map[string]string{
			"AccessKeyId": containerKeyID, "SecretAccessKey": containerSecret, "Token": containerToken2,
			"Expiration": time.Now().Add(time.Hour).UTC().Format(time.RFC3339),
		})
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/v2/credentials/abc"
}

// containerVars are a container's variables: a region and the credentials
// endpoint, no keys.
func containerVars(extra map[string]string) map[string]string {
	m := map[string]string{"TABLE_NAME": "t", "AWS_REGION": "us-east-1"}
	for k, v := range extra {
		m[k] = v
	}
	return m
}

func TestContainerCredentials(t *testing.T) {
	ctx := context.Background()
	t.Run("full URI and token", func(t *testing.T) {
		var served atomic.Int32
		e, err := load(envOf(containerVars(map[string]string{
			containerFullURI: credentialsEndpoint(t, "Bearer tok-1", &served), containerToken: "Bearer tok-1",
		})))
		if err != nil {
			t.Fatal(err)
		}
		for range 3 {
			c, err := e.Config.Credentials.Retrieve(ctx)
			if err != nil || c.AccessKeyID != containerKeyID || c.SecretAccessKey != containerSecret || c.SessionToken != containerToken2 || !c.CanExpire {
				t.Fatalf("Retrieve = %+v, %v; want the endpoint's keys, expiring", c, err)
			}
		}
		if n := served.Load(); n != 1 {
			t.Errorf("3 retrievals asked the endpoint %d times; want 1 (cached until they expire)", n)
		}
	})
	t.Run("token file", func(t *testing.T) {
		var served atomic.Int32
		file := filepath.Join(t.TempDir(), "token")
		if err := os.WriteFile(file, []byte("file-token"), 0o600); err != nil {
			t.Fatal(err)
		}
		e, err := load(envOf(containerVars(map[string]string{
			containerFullURI: credentialsEndpoint(t, "file-token", &served), containerTokenFile: file, containerToken: "ignored",
		})))
		if err != nil {
			t.Fatal(err)
		}
		if c, err := e.Config.Credentials.Retrieve(ctx); err != nil || c.AccessKeyID != containerKeyID {
			t.Errorf("Retrieve = %+v, %v; want the keys for the file's token", c, err)
		}
	})
	t.Run("wrong token", func(t *testing.T) {
		var served atomic.Int32
		e, err := load(envOf(containerVars(map[string]string{
			containerFullURI: credentialsEndpoint(t, "right", &served), containerToken: "wrong",
		})))
		if err != nil {
			t.Fatal(err)
		}
		if c, err := e.Config.Credentials.Retrieve(ctx); err == nil {
			t.Errorf("Retrieve = %+v; want the endpoint's refusal", c)
		}
	})
	t.Run("Lambda's keys win", func(t *testing.T) {
		e, err := load(envOf(withVars(map[string]string{containerFullURI: "http://127.0.0.1:1/never"})))
		if err != nil {
			t.Fatal(err)
		}
		if c, err := e.Config.Credentials.Retrieve(ctx); err != nil || c.AccessKeyID != "id" {
			t.Errorf("Retrieve = %+v, %v; want the static keys", c, err)
		}
	})
	for name, uri := range map[string]string{
		"http off the machine": "http://203.0.113.7/creds",
		"a host name":          "http://creds.example/creds",
		"not http":             "ftp://127.0.0.1/creds",
		"no host":              "http:///creds",
	} {
		t.Run("refused: "+name, func(t *testing.T) {
			if _, err := load(envOf(containerVars(map[string]string{containerFullURI: uri}))); err == nil || !strings.Contains(err.Error(), containerFullURI) {
				t.Errorf("load with %s %q: %v; want an error naming it", containerFullURI, uri, err)
			}
		})
	}
	for name, uri := range map[string]string{"https anywhere": "https://creds.example/c", "EKS": "http://169.254.170.23/v1/credentials", "ECS": "http://169.254.170.2/c", "localhost": "http://localhost:8080/c"} {
		t.Run("accepted: "+name, func(t *testing.T) {
			if _, err := load(envOf(containerVars(map[string]string{containerFullURI: uri}))); err != nil {
				t.Errorf("load with %s %q: %v", containerFullURI, uri, err)
			}
		})
	}
}

// TestContainerCredentialsSignDynamoDB: a DynamoDB call through the
// configuration, to DynamoDB Local, is signed with the endpoint's keys.
func TestContainerCredentialsSignDynamoDB(t *testing.T) {
	var served atomic.Int32
	e, err := load(envOf(containerVars(map[string]string{
		containerFullURI: credentialsEndpoint(t, "tok", &served), containerToken: "tok",
	})))
	if err != nil {
		t.Fatal(err)
	}
	rec := &recordingClient{}
	db := dynamodb.NewFromConfig(e.Config, func(o *dynamodb.Options) {
		o.BaseEndpoint = Endpoint(os.Getenv, "DYNAMODB") // the test binary's DynamoDB Local
		o.HTTPClient = rec
	})
	if _, err := db.ListTables(context.Background(), &dynamodb.ListTablesInput{}); err != nil {
		t.Fatalf("ListTables: %v", err)
	}
	auth, token := rec.last()
	if !strings.Contains(auth, "Credential="+containerKeyID+"/") || token != containerToken2 {
		t.Errorf("Authorization %q, X-Amz-Security-Token %q; want the container's key and session token", auth, token)
	}
}

// recordingClient sends requests with http.DefaultClient and keeps the
// last one's signing headers.
type recordingClient struct {
	mu          sync.Mutex
	auth, token string
}

func (c *recordingClient) Do(r *http.Request) (*http.Response, error) {
	c.mu.Lock()
	c.auth, c.token = r.Header.Get("Authorization"), r.Header.Get("X-Amz-Security-Token")
	c.mu.Unlock()
	return http.DefaultClient.Do(r)
}

func (c *recordingClient) last() (string, string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.auth, c.token
}
