package load

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/moveleads/partnerapi/scripts/bench/report"
	"github.com/moveleads/partnerapi/shared/domain/auth"
)

// Options configure Run. A zero field takes the default in brackets.
type Options struct {
	// Duration is the length of each concurrent run [20s].
	Duration time.Duration
	// Concurrency lists the client counts of the concurrent runs [16, 64].
	Concurrency []int
	// SingleKeyDuration is the length of the single-key run [20s]. To cross
	// a minute boundary it may start between the concurrent runs, and last
	// up to half as long again.
	SingleKeyDuration time.Duration
	// SingleKeyClients is the number of clients sharing the one key [16].
	SingleKeyClients int
	// Partners and KeysPerPartner size each concurrent run's fresh keys
	// [32 × 16 = 512 keys]. A run may fall in one minute window, so its keys
	// carry at most 120 × keys requests: 61,440, about 3,000 req/s for
	// 20 s, well above what the local stack serves.
	Partners, KeysPerPartner int
	// DynamoDBEndpoint names a running DynamoDB Local (its tables are left
	// alone: the run makes its own); "" starts one and stops it afterwards.
	DynamoDBEndpoint string
	// DynamoDBPID is the process of the DynamoDB Local at DynamoDBEndpoint,
	// whose CPU time the first concurrent run reads [none: no CPU row].
	DynamoDBPID int
	// Reference runs the first concurrent run again on a table in a fresh
	// DynamoDB Local, to compare throughput with (the rows of
	// referenceRows).
	Reference bool
	// Progress receives one line per phase; nil for none.
	Progress io.Writer
}

func (o Options) withDefaults() Options {
	if o.Duration == 0 {
		o.Duration = 20 * time.Second
	}
	if o.Concurrency == nil {
		o.Concurrency = []int{16, 64}
	}
	if o.SingleKeyDuration == 0 {
		o.SingleKeyDuration = 20 * time.Second
	}
	if o.SingleKeyClients == 0 {
		o.SingleKeyClients = 16
	}
	if o.Partners == 0 {
		o.Partners = 32
	}
	if o.KeysPerPartner == 0 {
		o.KeysPerPartner = 16
	}
	if o.Progress == nil {
		o.Progress = io.Discard
	}
	return o
}

func (o Options) validate() error {
	if o.Duration < 0 || o.SingleKeyDuration < 0 || o.Duration > 10*time.Minute || o.SingleKeyDuration > 10*time.Minute {
		return errors.New("load: durations must be between 0 and 10 minutes")
	}
	for _, c := range append([]int{o.SingleKeyClients}, o.Concurrency...) {
		if c < 1 || c > 1024 {
			return fmt.Errorf("load: %d clients; want 1 to 1024", c)
		}
	}
	if o.Partners < 1 || o.KeysPerPartner < 1 || o.Partners*o.KeysPerPartner > 10_000 {
		return errors.New("load: want 1 to 10,000 keys")
	}
	return nil
}

// bound is how long the runs, their seeding and their lead counts may take
// once the stack is up: seeding 512 keys took nearly 2 minutes on a loaded
// 2-core machine. The reference run starts a DynamoDB Local of its own.
func (o Options) bound() time.Duration {
	runs := len(o.Concurrency)
	if o.Reference {
		runs++
	}
	return time.Duration(runs)*(o.Duration+3*time.Minute) + o.SingleKeyDuration*3/2 + 30*time.Second
}

// run is one measured run.
type run struct {
	name    string // "16 clients", "single key, 16 clients"
	clients int
	keys    keySet
	elapsed time.Duration
	samples []sample
	leads   *leadCheck // nil for the single-key run
	// handlerErrors is the handlers' first error log lines during the run.
	handlerErrors string
	// cpu is the CPU time DynamoDB Local and this process used from the
	// end of the warm-up (a quarter of the run) to its end; err when it
	// could not be read.
	cpu cpuUse
}

// cpuUse is the CPU time DynamoDB Local and this process used over a
// span.
type cpuUse struct {
	db, self time.Duration
	err      error
}

// probeCPU samples the CPU time of DynamoDB Local (st.dbPID) and of this
// process at warm (the end of a run's warm-up) and returns a function
// that samples them again and returns the difference. Without a pid it
// returns a zero cpuUse whose err says so.
func (st *stack) probeCPU(ctx context.Context, warm time.Time) func() cpuUse {
	if st.dbPID == 0 {
		return func() cpuUse { return cpuUse{err: errors.New("no DynamoDB Local pid")} }
	}
	first := make(chan cpuUse, 1)
	go func() {
		select {
		case <-time.After(time.Until(warm)):
		case <-ctx.Done():
		}
		s, err := sampleCPU(st.dbPID)
		first <- cpuUse{db: s.db, self: s.self, err: err}
	}()
	return func() cpuUse {
		a := <-first
		b, err := sampleCPU(st.dbPID)
		if a.err != nil || err != nil {
			return cpuUse{err: errors.Join(a.err, err)}
		}
		return cpuUse{db: b.db - a.db, self: b.self - a.self}
	}
}

// Run starts the local stack and measures it: one concurrent run per
// entry of opts.Concurrency, each on fresh partners and keys, and one run
// of opts.SingleKeyClients clients on a single key. It returns the rows of
// the "Load" section; a budget missed is a row whose OK is false. It fails
// only when the stack cannot be started or ctx ends. It takes about the sum
// of the durations plus DynamoDB Local's start-up and a few seconds per run.
func Run(ctx context.Context, opts Options) ([]report.Row, error) {
	opts = opts.withDefaults()
	if err := opts.validate(); err != nil {
		return nil, err
	}
	fmt.Fprintln(opts.Progress, "load: starting DynamoDB Local and the local API Gateway")
	st, err := startStack(ctx, opts.DynamoDBEndpoint)
	if err != nil {
		return nil, err
	}
	defer st.close()
	if opts.DynamoDBEndpoint != "" {
		st.dbPID = opts.DynamoDBPID
	}
	ctx, cancel := context.WithTimeout(ctx, opts.bound())
	defer cancel()

	var concurrent []*run
	var single *run
	for _, c := range opts.Concurrency {
		if single == nil {
			if d, ok := singleSlot(time.Now(), opts.SingleKeyDuration); ok {
				if single, err = st.singleKey(ctx, opts, d); err != nil {
					return nil, err
				}
			}
		}
		r, err := st.concurrent(ctx, opts, c)
		if err != nil {
			return nil, err
		}
		concurrent = append(concurrent, r)
	}
	if single == nil {
		d, _ := singleSlot(time.Now(), opts.SingleKeyDuration)
		if single, err = st.singleKey(ctx, opts, d); err != nil {
			return nil, err
		}
	}
	var rows []report.Row
	for _, r := range concurrent {
		rows = append(rows, concurrentRows(r)...)
	}
	rows = append(rows, singleKeyRows(single)...)
	if st.dbPID != 0 && len(concurrent) > 0 {
		rows = append(rows, cpuRow(concurrent[0]))
	}
	if opts.Reference && len(concurrent) > 0 {
		ref, err := st.reference(ctx, opts)
		if err != nil {
			return nil, err
		}
		rows = append(rows, referenceRow(concurrent[0], ref))
	}
	return rows, nil
}

// reference runs the first concurrent run again against a fresh DynamoDB
// Local of its own, on a table without a stream, and stops it.
func (st *stack) reference(ctx context.Context, opts Options) (*run, error) {
	fmt.Fprintln(opts.Progress, "load: reference run on a fresh DynamoDB Local")
	ref, err := startStack(ctx, "")
	if err != nil {
		return nil, err
	}
	defer ref.close()
	return ref.concurrent(ctx, opts, opts.Concurrency[0])
}

// singleSlot decides whether a single-key run of length d starting at now
// would see a minute boundary with margin on both sides, and how long it
// should then last: d, or up to half as long again to reach just past the
// boundary. Otherwise it returns d and false: start it later.
func singleSlot(now time.Time, d time.Duration) (time.Duration, bool) {
	margin := min(2*time.Second, d/4)
	b := time.Unix(auth.WindowReset(auth.Window(now)), 0).Sub(now)
	switch {
	case b >= margin && b <= d-margin:
		return d, true
	case b > d-margin && b+margin <= d+d/2:
		return b + margin, true
	}
	return d, false
}

// concurrent measures c clients spread over fresh keys for opts.Duration,
// then counts the leads they created.
func (st *stack) concurrent(ctx context.Context, opts Options, c int) (*run, error) {
	seedStart := time.Now()
	ks, err := st.seed(ctx, opts.Partners, opts.KeysPerPartner)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(opts.Progress, "load: %d clients over %d keys (made in %s) for %s\n",
		c, len(ks.keys), time.Since(seedStart).Round(time.Millisecond), opts.Duration)
	r, hc := st.drive(ctx, fmt.Sprintf("%d clients", c), c, ks, opts.Duration)
	defer hc.CloseIdleConnections()
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("load: %s: %w", r.name, err)
	}
	lc := checkLeads(ctx, hc, st.base, ks, r.samples)
	r.leads = &lc
	r.handlerErrors += st.errs.take()
	return r, nil
}

// singleKey measures opts.SingleKeyClients clients on one fresh key for d.
func (st *stack) singleKey(ctx context.Context, opts Options, d time.Duration) (*run, error) {
	ks, err := st.seed(ctx, 1, 1)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(opts.Progress, "load: %d clients on a single key for %s\n", opts.SingleKeyClients, d.Round(time.Millisecond))
	r, hc := st.drive(ctx, fmt.Sprintf("single key, %d clients", opts.SingleKeyClients), opts.SingleKeyClients, ks, d)
	hc.CloseIdleConnections()
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("load: %s: %w", r.name, err)
	}
	return r, nil
}

// drive runs c clients on ks for d and collects their samples. It returns
// the HTTP client too, whose connections the lead count reuses.
func (st *stack) drive(ctx context.Context, name string, c int, ks keySet, d time.Duration) (*run, *http.Client) {
	hc := &http.Client{
		Transport: &http.Transport{
			Proxy:        nil, // loopback only, whatever HTTP_PROXY says
			MaxIdleConns: 2 * c, MaxIdleConnsPerHost: 2 * c, IdleConnTimeout: 30 * time.Second,
			DisableCompression: true,
		},
		Timeout: requestTimeout,
	}
	_ = st.errs.take()
	clients := make([]*client, c)
	for i := range clients {
		clients[i] = newClient(hc, st.base, ks, i, c)
	}
	start := time.Now()
	deadline := start.Add(d)
	var wg sync.WaitGroup
	for _, cl := range clients {
		wg.Go(func() { cl.run(ctx, deadline) })
	}
	cpu := st.probeCPU(ctx, start.Add(d/4))
	wg.Wait()
	r := &run{name: name, clients: c, keys: ks, elapsed: time.Since(start), handlerErrors: st.errs.take()}
	r.cpu = cpu()
	for _, cl := range clients {
		r.samples = append(r.samples, cl.samples...)
	}
	return r, hc
}
