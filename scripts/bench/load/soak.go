package load

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/google/uuid"

	"github.com/moveleads/partnerapi/scripts/bench/report"
	"github.com/moveleads/partnerapi/scripts/devstack/devfile"
	"github.com/moveleads/partnerapi/shared/adapter/dynamo"
	"github.com/moveleads/partnerapi/shared/local/childproc"
	"github.com/moveleads/partnerapi/shared/local/repo"
	"github.com/moveleads/partnerapi/shared/spec/settings"
)

// SoakOptions configure Soak. A zero field takes the default in brackets.
type SoakOptions struct {
	// Requests is how many requests the soak sends [50,000].
	Requests int
	// Clients is how many send at once [16].
	Clients int
	// Deadline bounds the whole soak, the stack's start included [20 min]:
	// when it passes, the soak stops and its rows fail.
	Deadline time.Duration
	// Progress receives one line per phase; nil for none.
	Progress io.Writer
}

// Budgets of the soak rows.
const (
	// soakMinRatio is the least throughput of the last minute over the
	// first's: a stack that slows as it writes (DynamoDB Local's stream
	// records piling up, docs/BENCHMARKS.md) falls far below it.
	soakMinRatio = 0.8
	// soakWindow is the length of the first and last windows compared
	// (shorter when the soak is: a third of it).
	soakWindow = time.Minute
)

// Soak starts make dev's stack (scripts/devstack, as `make dev` does: its
// own DynamoDB Local, MinIO, stripe-mock and detector on loopback, the
// events table's stream feeding the dispatcher) with its state files in a
// temporary folder, seeds 512 keys, sends opts.Requests mixed requests
// (createLead with and without an Idempotency-Key and replays, getLead,
// listLeads following next_cursor, getSurveyLink, invalid bodies and
// unknown ids) from opts.Clients clients, and stops the stack. It returns
// the rows of the "Soak" section: the throughput of the last minute over
// the first's, and the requests that failed (a 5xx or no response).
func Soak(ctx context.Context, opts SoakOptions) ([]report.Row, error) {
	if opts.Requests == 0 {
		opts.Requests = 50_000
	}
	if opts.Clients == 0 {
		opts.Clients = 16
	}
	if opts.Deadline == 0 {
		opts.Deadline = 20 * time.Minute
	}
	if opts.Progress == nil {
		opts.Progress = io.Discard
	}
	if opts.Requests < 1 || opts.Requests > 1_000_000 || opts.Clients < 1 || opts.Clients > 256 {
		return nil, errors.New("soak: want 1 to 1,000,000 requests from 1 to 256 clients")
	}
	ctx, cancel := context.WithTimeout(ctx, opts.Deadline)
	defer cancel()

	fmt.Fprintln(opts.Progress, "soak: building and starting make dev's stack")
	dev, stop, err := startDevStack(ctx)
	if err != nil {
		return nil, err
	}
	defer stop()
	db, err := dynamoClient(ctx, dev.Env["AWS_ENDPOINT_URL_DYNAMODB"])
	if err != nil {
		return nil, err
	}
	st := &stack{base: dev.BaseURL, store: dynamo.New(db, dev.Env[settings.Table]), errs: &logBuffer{limit: 1}}
	ks, err := st.seed(ctx, 32, 16)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(opts.Progress, "soak: %d requests from %d clients over %d keys\n", opts.Requests, opts.Clients, len(ks.keys))
	res := st.soak(ctx, opts, ks)
	// Past the deadline the soak stops where it is: its rows say so.
	return append(res.rows(), report.Row{
		Section: "Soak", Metric: "soak requests sent before the deadline",
		Value:  fmt.Sprintf("%d of %d in %s", res.sent, opts.Requests, res.elapsed.Round(time.Second)),
		Budget: "all", OK: report.Check(res.sent >= int64(opts.Requests)),
	}), nil
}

// soakResult is what the soak's clients saw.
type soakResult struct {
	sent    int64
	elapsed time.Duration
	// done holds each request's completion, as time since the start.
	done []time.Duration
	// failed counts 5xx answers and requests without one; firstFail
	// describes the first.
	failed    int64
	firstFail string
	// unexpected counts answers of another status than the request's
	// kind calls for (429s aside), which the failed row names too.
	unexpected      int64
	firstUnexpected string
}

func (r soakResult) rows() []report.Row {
	w := min(soakWindow, r.elapsed/3)
	first, last := 0, 0
	for _, d := range r.done {
		if d < w {
			first++
		}
		if d >= r.elapsed-w {
			last++
		}
	}
	ratio := 0.0
	if first > 0 {
		ratio = float64(last) / float64(first)
	}
	perSec := func(n int) float64 { return float64(n) / w.Seconds() }
	failNote := fmt.Sprintf("%d requests in %s; %d answers of an unexpected status", r.sent, r.elapsed.Round(time.Second), r.unexpected)
	if r.firstUnexpected != "" {
		failNote += " (first: " + r.firstUnexpected + ")"
	}
	if r.firstFail != "" {
		failNote += "; first failure: " + r.firstFail
	}
	return []report.Row{
		{
			Section: "Soak", Metric: fmt.Sprintf("throughput of the last %s ÷ the first's (make dev's stack)", w.Round(time.Second)),
			Value:  fmt.Sprintf("%.2f (%.0f ÷ %.0f req/s)", ratio, perSec(last), perSec(first)),
			Budget: fmt.Sprintf("≥ %.1f", soakMinRatio), OK: report.Check(ratio >= soakMinRatio),
		},
		{
			Section: "Soak", Metric: "soak requests that failed (5xx or no response)",
			Value: fmt.Sprint(r.failed), Budget: "0", OK: report.Check(r.failed == 0), Note: failNote,
		},
	}
}

// soak sends opts.Requests requests from opts.Clients soak clients.
func (st *stack) soak(ctx context.Context, opts SoakOptions, ks keySet) soakResult {
	hc := &http.Client{
		Transport: &http.Transport{Proxy: nil, MaxIdleConns: 2 * opts.Clients, MaxIdleConnsPerHost: 2 * opts.Clients, DisableCompression: true},
		Timeout:   requestTimeout,
	}
	defer hc.CloseIdleConnections()
	var (
		next atomic.Int64
		mu   sync.Mutex
		res  soakResult
		wg   sync.WaitGroup
	)
	start := time.Now()
	for i := range opts.Clients {
		c := &soakClient{client: newClient(hc, st.base, ks, i, opts.Clients)}
		wg.Go(func() {
			for ctx.Err() == nil && next.Add(1) <= int64(opts.Requests) {
				outcome := c.once(ctx)
				mu.Lock()
				res.sent++
				res.done = append(res.done, time.Since(start))
				if res.sent%5000 == 0 {
					fmt.Fprintf(opts.Progress, "soak: %d requests in %s\n", res.sent, time.Since(start).Round(time.Second))
				}
				switch {
				case outcome.failed:
					res.failed++
					if res.firstFail == "" {
						res.firstFail = outcome.what
					}
				case outcome.unexpected:
					res.unexpected++
					if res.firstUnexpected == "" {
						res.firstUnexpected = outcome.what
					}
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	res.elapsed = time.Since(start)
	return res
}

// soakClient is a load client that sends one request of the soak's mix
// at a time.
type soakClient struct {
	*client
	// cursor is the next_cursor of this client's last listLeads page, and
	// cursorKey the key it was read with.
	cursor    string
	cursorKey int
}

// outcome is how one soak request went.
type outcome struct {
	failed, unexpected bool
	what               string
}

// once sends one request of the mix: 40% createLead (the load's mix of
// Idempotency-Keys and replays), 20% getLead, 20% listLeads (the next
// page when the last one had more), 10% getSurveyLink, 10% invalid (a
// createLead body that is not a lead, a getLead of an unknown id).
func (c *soakClient) once(ctx context.Context) outcome {
	c.step++
	var s sample
	want := []int{http.StatusOK}
	switch r := c.rng.IntN(100); {
	case r < 40:
		if len(c.idem) > 0 && c.rng.IntN(100) < replayPercent {
			c.replay(ctx)
		} else {
			c.create(ctx)
		}
		s = c.samples[len(c.samples)-1]
		c.samples = c.samples[:0]
	case r < 60:
		c.get(ctx)
		s = c.samples[len(c.samples)-1]
		c.samples = c.samples[:0]
		if s.expect404 {
			want = []int{http.StatusNotFound}
		}
	case r < 80:
		s = c.listPage(ctx)
	case r < 90:
		if len(c.created) == 0 {
			c.create(ctx)
			s = c.samples[len(c.samples)-1]
			c.samples = c.samples[:0]
			break
		}
		l := c.created[c.rng.IntN(len(c.created))]
		s, _ = c.send(ctx, opCreate, http.MethodPost, "/v1/leads/"+url.PathEscape(l.id)+"/video-survey",
			c.partnerKey(l.partner), nil, "soak-"+uuid.NewString())
		// A lead whose survey is open already answers 409.
		want = []int{http.StatusOK, http.StatusConflict}
	default:
		if c.rng.IntN(2) == 0 {
			s, _ = c.send(ctx, opCreate, http.MethodPost, "/v1/leads", c.nextKey(), []byte(`{"customer_name": 7}`), "")
			want = []int{http.StatusUnprocessableEntity} // validation_failed
		} else {
			s, _ = c.send(ctx, opGet, http.MethodGet, "/v1/leads/"+uuid.NewString(), c.nextKey(), nil, "")
			want = []int{http.StatusNotFound}
		}
	}
	switch {
	case s.status == 0 || s.status >= 500:
		return outcome{failed: true, what: fmt.Sprintf("%s answered %d", opNames[s.op], s.status)}
	case s.status == http.StatusTooManyRequests:
		return outcome{}
	}
	for _, w := range want {
		if s.status == w {
			return outcome{}
		}
	}
	return outcome{unexpected: true, what: fmt.Sprintf("%s answered %d", opNames[s.op], s.status)}
}

// listPage reads the first page of listLeads, or the next one of the
// last page this client read while it had more.
func (c *soakClient) listPage(ctx context.Context) sample {
	path, k := "/v1/leads?limit=10", c.nextKey()
	if c.cursor != "" {
		path, k = "/v1/leads?limit=10&cursor="+url.QueryEscape(c.cursor), c.cursorKey
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.base+path, nil)
	if err != nil {
		return sample{op: opList}
	}
	req.Header.Set("Authorization", "Bearer "+c.keys.keys[k])
	resp, err := c.http.Do(req)
	if err != nil {
		return sample{op: opList}
	}
	defer resp.Body.Close()
	var page struct {
		NextCursor *string `json:"next_cursor"`
		HasMore    bool    `json:"has_more"`
	}
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return sample{op: opList}
	}
	c.cursor = ""
	if resp.StatusCode == http.StatusOK && json.NewDecoder(bytes.NewReader(b)).Decode(&page) == nil && page.HasMore && page.NextCursor != nil {
		c.cursor, c.cursorKey = *page.NextCursor, k
	}
	return sample{op: opList, status: resp.StatusCode}
}

// startDevStack builds scripts/devstack and runs it as `make dev` does, on
// a free loopback port, with its state files in a temporary folder, and
// waits until its dev.json says it serves. stop ends it with SIGTERM (its
// normal stop, which stops what it started), killing its process group if
// it has not exited within a minute, and removes the folder.
func startDevStack(ctx context.Context) (devfile.File, func(), error) {
	root, err := repo.Root()
	if err != nil {
		return devfile.File{}, nil, err
	}
	dir, err := os.MkdirTemp("", "soak-devstack-")
	if err != nil {
		return devfile.File{}, nil, err
	}
	bin := filepath.Join(dir, "devstack")
	build := exec.CommandContext(ctx, "go", "build", "-o", bin, "./scripts/devstack")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		os.RemoveAll(dir)
		return devfile.File{}, nil, fmt.Errorf("build devstack: %v\n%s", err, out)
	}
	state := filepath.Join(dir, "state")
	var buf bytes.Buffer
	out := &lockedWriter{w: &buf}
	cmd := exec.Command(bin)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "PORT=0", devfile.StateDirVar+"="+state)
	cmd.Stdout, cmd.Stderr = out, out
	childproc.SetGroup(cmd)
	childproc.SetParentDeathSignal(cmd)
	if err := cmd.Start(); err != nil {
		os.RemoveAll(dir)
		return devfile.File{}, nil, err
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	stop := func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(time.Minute):
			_ = childproc.KillGroup(cmd.Process)
			<-exited
		}
		os.RemoveAll(dir)
	}
	for {
		if f, err := devfile.Read(filepath.Join(state, "dev.json")); err == nil {
			return f, stop, nil
		}
		select {
		case <-exited:
			stop()
			return devfile.File{}, nil, fmt.Errorf("make dev's stack exited before serving:\n%s", buf.String())
		case <-ctx.Done():
			stop()
			return devfile.File{}, nil, fmt.Errorf("make dev's stack did not serve: %w", ctx.Err())
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// lockedWriter serialises writes of a child's stdout and stderr.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
