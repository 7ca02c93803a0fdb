// Package devfile reads and writes .local/dev.json, the file `make dev`
// (scripts/devstack) writes so that local tools (opctl, invoke, scripts)
// reach the stack it runs, and decides whether the file still describes a
// running stack.
//
// Why the check: after `make dev` restarts, DynamoDB Local has a new port,
// and variables a developer exported from an earlier dev.json (the README's
// eval line) point at nothing. A tool therefore prefers dev.json whenever
// the stack in it is alive, and otherwise falls back to its environment,
// saying which one it used ([Choice.Origin]).
package devfile

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/moveleads/partnerapi/shared/local/repo"
)

// StateDirVar, when set, names the folder of make dev's state files (lock,
// dev.json, the SAM env files) instead of <repo root>/.local: the soak
// benchmark runs a second stack beside a developer's.
const StateDirVar = "DEVSTACK_STATE_DIR"

// RelPath is the file's path relative to the repository root.
const RelPath = ".local/dev.json"

// EndpointVar is the variable of the file's Env that names DynamoDB Local.
const EndpointVar = "AWS_ENDPOINT_URL_DYNAMODB"

// probeTimeout bounds the check that the file's DynamoDB endpoint answers.
const probeTimeout = time.Second

// File is the content of .local/dev.json.
type File struct {
	// BaseURL is the local API Gateway, http://127.0.0.1:PORT.
	BaseURL string `json:"base_url"`
	// APIKey is the demo partner's test-mode key (local only).
	APIKey string `json:"api_key"`
	// PartnerID is the demo partner.
	PartnerID string `json:"partner_id"`
	// Env holds the variables that reach the stack: TABLE_NAME,
	// CURSOR_SECRET, AWS_ENDPOINT_URL_DYNAMODB, AWS_ENDPOINT_URL_S3 (MinIO),
	// CLIP_BUCKET, PUBLIC_BASE_URL, region and MinIO's credentials (which
	// DynamoDB Local accepts too).
	Env map[string]string `json:"env"`
	// PID is the process id of the running `make dev`.
	PID int `json:"pid"`
	// S3Events is where MinIO posts the clip bucket's notifications; nil
	// in files of older make devs.
	S3Events *S3Events `json:"s3_events,omitempty"`
	// DetectorURL is the inventory's local detector (shared/local/detectlocal),
	// http://127.0.0.1:PORT; "" when it did not start. Tests reuse it
	// through DETECTOR_URL.
	DetectorURL string `json:"detector_url,omitempty"`
	// Demo is what the banner shows of the demo lead and the fixtures, so
	// that everything it prints can be read back here; nil in files of
	// older make devs.
	Demo *Demo `json:"demo,omitempty"`
}

// Demo is the demo lead make dev creates and the fixtures the sample
// events use (events/sample; local-only, not secret).
type Demo struct {
	LeadID     string `json:"lead_id"`
	SurveyID   string `json:"survey_id"`
	CaptureURL string `json:"capture_url"`
	// VideoURL is the forwardable video link of the fixture survey.
	VideoURL         string `json:"video_url"`
	FixturePartnerID string `json:"fixture_partner_id"`
	FixtureAPIKey    string `json:"fixture_api_key"`
	FixtureLeadID    string `json:"fixture_lead_id"`
	// DashboardSite is the partner dashboard's origin (the base URL at
	// localhost: a passkey's relying party is a domain name) and
	// DashboardInvite the demo partner's admin's one-time invitation.
	DashboardSite   string `json:"dashboard_site,omitempty"`
	DashboardInvite string `json:"dashboard_invite,omitempty"`
}

// S3Events is the endpoint that takes MinIO's notifications of the clip
// bucket and runs the clip processor on them (s3local.Receiver). MinIO
// sends each event once: to run the processor on an object again, POST
// its event there (the processor is idempotent), e.g.
//
//	curl -s "$(jq -r .s3_events.url .local/dev.json)" \
//	  -H "Authorization: $(jq -r .s3_events.authorization .local/dev.json)" --data @event.json
type S3Events struct {
	// URL is http://127.0.0.1:PORT/_local/s3-events.
	URL string `json:"url"`
	// Authorization is the header each request must carry (random per
	// make dev; local only).
	Authorization string `json:"authorization"`
}

// Write writes f to path (mode 0600: it holds a key), replacing any file
// there in one rename so that a reader never sees half of it.
func Write(path string, f File) error {
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return fmt.Errorf("encode %s: %w", path, err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".dev-*.json")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(append(b, '\n')); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// Read reads and decodes the file at path. A missing file is an error
// satisfying errors.Is(err, fs.ErrNotExist).
func Read(path string) (File, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return File{}, err
	}
	var f File
	if err := json.Unmarshal(b, &f); err != nil {
		return File{}, fmt.Errorf("decode %s: %w", path, err)
	}
	return f, nil
}

// Alive returns nil when the stack f describes still runs: process PID
// exists and the DynamoDB endpoint in Env answers HTTP within a second.
// Otherwise it returns why not (no pid, the process is gone, no endpoint,
// the endpoint does not answer).
func (f File) Alive(ctx context.Context) error {
	if f.PID <= 0 {
		return errors.New("it names no pid")
	}
	// Signal 0 checks that the process exists; EPERM means it exists but
	// belongs to another user.
	if err := syscall.Kill(f.PID, 0); err != nil && !errors.Is(err, syscall.EPERM) {
		return fmt.Errorf("make dev's pid %d is not running", f.PID)
	}
	endpoint := f.Env[EndpointVar]
	if endpoint == "" {
		return fmt.Errorf("it names no %s", EndpointVar)
	}
	if err := probe(ctx, endpoint); err != nil {
		return fmt.Errorf("DynamoDB Local at %s does not answer: %w", endpoint, err)
	}
	return nil
}

// probe sends endpoint an unsigned POST; DynamoDB answers any request, a
// bad one with a 400 JSON error, so any HTTP response counts.
func probe(ctx context.Context, endpoint string) error {
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimSuffix(endpoint, "/")+"/", strings.NewReader("{}"))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/x-amz-json-1.0")
	client := &http.Client{Transport: &http.Transport{Proxy: nil, DisableKeepAlives: true}}
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	return nil
}

// Choice is the environment a local tool should use.
type Choice struct {
	// Getenv looks up a variable: the file's Env first when FromFile,
	// then the process environment.
	Getenv func(string) string
	// FromFile reports that a running make dev's dev.json was chosen.
	FromFile bool
	// File is the dev.json that was chosen (zero unless FromFile).
	File File
	// Path is the dev.json that was looked at ("" outside a repository).
	Path string
	// Skipped says why dev.json was not used ("" when FromFile).
	Skipped string
}

// Choose returns the environment for a local tool run from anywhere inside
// the repository: that of <repo root>/.local/dev.json when the file exists
// and the stack in it is alive (its variables win over the same ones in
// getenv, which may be stale), else getenv alone. It never fails: whatever
// keeps dev.json from being used is recorded in Skipped.
func Choose(ctx context.Context, getenv func(string) string) Choice {
	env := Choice{Getenv: getenv}
	root, err := repo.Root()
	if err != nil {
		env.Skipped = "not inside the repository"
		return env
	}
	return ChooseAt(ctx, filepath.Join(root, filepath.FromSlash(RelPath)), getenv)
}

// ChooseAt is Choose with the dev.json at path.
func ChooseAt(ctx context.Context, path string, getenv func(string) string) Choice {
	env := Choice{Getenv: getenv, Path: path}
	f, err := Read(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		env.Skipped = "no " + RelPath
		return env
	case err != nil:
		env.Skipped = fmt.Sprintf("%s is unreadable: %v", RelPath, err)
		return env
	}
	if err := f.Alive(ctx); err != nil {
		env.Skipped = fmt.Sprintf("ignored stale %s: %v", RelPath, err)
		return env
	}
	env.FromFile, env.File = true, f
	env.Getenv = func(k string) string {
		if v, ok := f.Env[k]; ok {
			return v
		}
		return getenv(k)
	}
	return env
}

// Origin says, for a one-line message, where the environment came from:
// "from .local/dev.json of make dev (pid N)" or "from the environment
// (<why not dev.json>)".
func (c Choice) Origin() string {
	if c.FromFile {
		return fmt.Sprintf("from %s of make dev (pid %d)", RelPath, c.File.PID)
	}
	if c.Skipped == "" {
		return "from the environment"
	}
	return "from the environment (" + c.Skipped + ")"
}
