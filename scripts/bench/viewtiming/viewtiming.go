// Package viewtiming measures the forwardable video links against the
// local stack (the real handlers behind the local API Gateway, on DynamoDB
// Local): how long a mint (createSurveyVideoAccess), an open of the viewer
// page and an unknown token's answer take. Opens of known and unknown
// tokens alternate, so both see the same machine load; each known open
// uses a link of its own (a link opens 20 times an hour).
package viewtiming

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/google/uuid"

	"github.com/moveleads/partnerapi/scripts/bench/report"
	"github.com/moveleads/partnerapi/shared/adapter/dynamo"
	"github.com/moveleads/partnerapi/shared/app/record"
	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/domain/estimate"
	"github.com/moveleads/partnerapi/shared/domain/lead"
	"github.com/moveleads/partnerapi/shared/domain/linktoken"
	"github.com/moveleads/partnerapi/shared/domain/partner"
	"github.com/moveleads/partnerapi/shared/domain/survey"
	"github.com/moveleads/partnerapi/shared/domain/videolink"
	"github.com/moveleads/partnerapi/shared/local/localgw"
	"github.com/moveleads/partnerapi/shared/spec/manifest"
	"github.com/moveleads/partnerapi/shared/spec/settings"
	"github.com/moveleads/partnerapi/shared/wire/catalog"
)

// Section is the report section of the rows.
const Section = "Video links"

// unknownNote says why an unknown token's time has no budget against a
// known one's (issue 23).
const unknownNote = "one GetItem, nothing written. Not held to the live link's time (that band was retired in issue 23): a token carries 256 bits, so whether one exists, from its answer or its timing, tells a guesser nothing usable, and making both take as long cost a Query and a transactional write per random guess."

// Options configure Run.
type Options struct {
	// Endpoint names a running DynamoDB Local.
	Endpoint string
	// Samples is the number of opens of each kind [200], and of mints
	// [Samples/4].
	Samples int
	// Log receives progress lines; nil for none.
	Log io.Writer
}

// Run seeds a partner and surveys with a playable clip on a fresh table
// and measures. It sets CLIP_BUCKET and PUBLIC_BASE_URL in this process
// (the stack reads its settings from the environment, as the functions
// do); presigning needs no server, so no S3 runs.
func Run(ctx context.Context, o Options) ([]report.Row, error) {
	if o.Samples == 0 {
		o.Samples = 200
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
	st, err := start(ctx, o.Endpoint)
	if err != nil {
		return nil, fmt.Errorf("viewtiming: %w", err)
	}
	defer st.close()
	mints, err := st.measureMints(ctx, max(o.Samples/4, 10))
	if err != nil {
		return nil, fmt.Errorf("viewtiming: %w", err)
	}
	known, unknown, err := st.measureOpens(ctx, o.Samples)
	if err != nil {
		return nil, fmt.Errorf("viewtiming: %w", err)
	}
	fmt.Fprintf(o.Log, "viewtiming: %d mints, %d known and %d unknown opens\n", len(mints), len(known), len(unknown))
	return rows(mints, known, unknown), nil
}

// rows reports the medians.
func rows(mints, known, unknown []time.Duration) []report.Row {
	return []report.Row{
		{Section: Section, Metric: "mint (createSurveyVideoAccess, local stack)", Value: report.Summarise(mints).String()},
		{Section: Section, Metric: "open of a live link (viewer page, 1 clip)", Value: report.Summarise(known).String()},
		{Section: Section, Metric: "open of an unknown token (404 page)", Value: report.Summarise(unknown).String(), Note: unknownNote},
	}
}

// stack is the local API on a table of its own.
type stack struct {
	base   string
	store  *dynamo.Store
	key    string
	tenant auth.Tenant
	client *http.Client
	stops  []func()
}

func start(ctx context.Context, endpoint string) (_ *stack, err error) {
	st := &stack{client: &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{Proxy: nil, MaxIdleConnsPerHost: 4}}}
	defer func() {
		if err != nil {
			st.close()
		}
	}()
	cfg := aws.Config{Region: "us-east-1", Credentials: credentials.NewStaticCredentialsProvider("viewtiming", "viewtiming", "")}
	db := dynamodb.NewFromConfig(cfg, func(o *dynamodb.Options) {
		o.BaseEndpoint = aws.String(endpoint)
		o.DisableValidateResponseChecksum = true // see scripts/bench/load
	})
	name := fmt.Sprintf("bench-viewtiming-%d", time.Now().UnixNano())
	if err := dynamo.CreateTables(ctx, db, name); err != nil {
		return nil, err
	}
	st.stops = append(st.stops, func() {
		_ = dynamo.DeleteTables(context.Background(), db, name)
	})
	st.store = dynamo.New(db, name)

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	st.base = "http://" + ln.Addr().String()
	for k, v := range map[string]string{settings.ClipBucket: "moveleads-clips-bench", settings.PublicBaseURL: st.base} {
		if err := os.Setenv(k, v); err != nil {
			return nil, err
		}
	}
	log := slog.New(slog.DiscardHandler)
	h := catalog.New(catalog.Deps{Store: st.store, AWS: cfg, Log: log})
	gw := localgw.New(func(op manifest.Operation) any { return h.Route(op) }, log)
	sctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = localgw.Serve(sctx, ln, gw); close(done) }()
	st.stops = append(st.stops, func() { cancel(); <-done })

	now := time.Now().UTC()
	p := partner.Partner{ID: "ptn_viewtiming", Name: "Timing Movers", RateCard: estimate.DefaultRateCard("usd"), CreatedAt: now}
	if err := st.store.CreatePartner(ctx, p); err != nil {
		return nil, err
	}
	st.tenant = auth.Tenant{PartnerID: p.ID, Mode: auth.Test}
	return st, nil
}

// keyFor returns an API key of the partner for the i-th mint: a fresh key
// every 100 mints keeps them under a key's 120 requests a minute.
func (st *stack) keyFor(ctx context.Context, i int) (string, error) {
	if i%100 != 0 && st.key != "" {
		return st.key, nil
	}
	key, keyID, err := auth.NewKey(auth.Test)
	if err != nil {
		return "", err
	}
	err = st.store.CreateKey(ctx, auth.Key{KeyID: keyID, Digest: auth.Digest(key), PartnerID: st.tenant.PartnerID,
		Mode: auth.Test, Scopes: auth.AllScopes, CreatedAt: time.Now()})
	if err != nil {
		return "", err
	}
	st.key = key
	return key, nil
}

func (st *stack) close() {
	for i := len(st.stops) - 1; i >= 0; i-- {
		st.stops[i]()
	}
	st.stops = nil
}

// playableSurvey starts a survey with one clip decided playable.
func (st *stack) playableSurvey(ctx context.Context) (string, error) {
	now := time.Now().UTC()
	l := lead.Build(uuid.NewString(), lead.CreateInput{CustomerName: "Ada", Email: "ada@example.com", Source: "viewtiming"}, estimate.DefaultRateCard("usd"), now)
	if err := st.store.PutLead(ctx, st.tenant, l, false); err != nil {
		return "", err
	}
	sv, _, err := survey.New(uuid.NewString(), l.ID, survey.DefaultTokenLifetime, now)
	if err != nil {
		return "", err
	}
	if err := st.store.StartSurvey(ctx, st.tenant, sv); err != nil {
		return "", err
	}
	c, err := survey.NewClip(uuid.NewString(), "Kitchen", 5<<20, "video/webm", 0, now)
	if err != nil {
		return "", err
	}
	if err := st.store.PutClip(ctx, st.tenant, sv.ID, c); err != nil {
		return "", err
	}
	for _, step := range [][2]survey.ClipStatus{{survey.ClipAnnounced, survey.ClipProcessing}, {survey.ClipProcessing, survey.ClipPlayable}} {
		if err := st.store.AdvanceClip(ctx, st.tenant, record.ClipTransition{
			SurveyID: sv.ID, ClipID: c.ID, From: step[0], To: step[1], At: now,
			Size: 5 << 20, Duration: 42 * time.Second, Codec: "vp8", Width: 1280, Height: 720,
		}); err != nil {
			return "", err
		}
	}
	return sv.ID, nil
}

// do sends a request and returns its status and how long it took.
func (st *stack) do(ctx context.Context, method, path, key string) (int, string, time.Duration, error) {
	req, err := http.NewRequestWithContext(ctx, method, st.base+path, nil)
	if err != nil {
		return 0, "", 0, err
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	req.Header.Set("User-Agent", "viewtiming/1")
	start := time.Now()
	resp, err := st.client.Do(req)
	if err != nil {
		return 0, "", 0, err
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	took := time.Since(start)
	return resp.StatusCode, string(body), took, err
}

// mint mints a link on surveyID with key and returns its path and the
// time taken.
func (st *stack) mint(ctx context.Context, surveyID, key string) (string, time.Duration, error) {
	status, body, took, err := st.do(ctx, http.MethodPost, "/v1-survey-video-access/"+surveyID, key)
	if err != nil {
		return "", 0, err
	}
	if status != 200 {
		return "", 0, fmt.Errorf("mint: %d %s", status, body)
	}
	i := strings.Index(body, "/v1-video/")
	if i < 0 {
		return "", 0, fmt.Errorf("mint: no view_url in %s", body)
	}
	return body[i : i+len("/v1-video/")+linktoken.Len], took, nil
}

// links mints n links, videolink.MaxLive-10 per survey, and returns their
// paths and the mints' times.
func (st *stack) links(ctx context.Context, n int) ([]string, []time.Duration, error) {
	var paths []string
	var times []time.Duration
	var surveyID string
	for i := range n {
		if i%(videolink.MaxLive-10) == 0 {
			var err error
			if surveyID, err = st.playableSurvey(ctx); err != nil {
				return nil, nil, err
			}
		}
		key, err := st.keyFor(ctx, i)
		if err != nil {
			return nil, nil, err
		}
		p, took, err := st.mint(ctx, surveyID, key)
		if err != nil {
			return nil, nil, err
		}
		paths, times = append(paths, p), append(times, took)
	}
	return paths, times, nil
}

func (st *stack) measureMints(ctx context.Context, n int) ([]time.Duration, error) {
	_, times, err := st.links(ctx, n)
	return times, err
}

// measureOpens opens n live links and n unknown tokens, alternating, after
// a warm-up of each (the partner's settings cached, connections open).
func (st *stack) measureOpens(ctx context.Context, n int) (known, unknown []time.Duration, err error) {
	const warm = 10
	paths, _, err := st.links(ctx, n+warm)
	if err != nil {
		return nil, nil, err
	}
	for i := range n + warm {
		kStatus, _, k, err := st.do(ctx, http.MethodGet, paths[i], "")
		if err != nil {
			return nil, nil, err
		}
		token, err := linktoken.New()
		if err != nil {
			return nil, nil, err
		}
		uStatus, _, u, err := st.do(ctx, http.MethodGet, "/v1-video/"+token, "")
		if err != nil {
			return nil, nil, err
		}
		if kStatus != 200 || uStatus != 404 {
			return nil, nil, fmt.Errorf("open: known token answered %d, unknown %d; want 200 and 404", kStatus, uStatus)
		}
		if i >= warm {
			known, unknown = append(known, k), append(unknown, u)
		}
	}
	return known, unknown, nil
}
