package coldstart

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/moveleads/partnerapi/shared/local/childproc"
)

// Lambda's environment, as far as a Go function can tell it from the
// provided.al2023 runtime. The credentials are the fixture's (see
// fixture.Env): MinIO checks them, DynamoDB Local (-sharedDb) takes any.
const (
	region    = "us-east-1"
	memoryMB  = "256"
	accountID = "000000000000"
)

// defaultStatus is the status a cold start's request must answer with
// unless its target says otherwise: each one is a valid request, so
// anything else is a failed run.
const defaultStatus = 200

// target is one executable to cold-start and the request it gets.
type target struct {
	Name string // the function's slug, or helloWorld
	Bin  string // absolute path of its bootstrap
	Env  []string
	// Event returns the JSON event of one cold start's invocation. It is
	// called before the clock starts.
	Event func(context.Context) ([]byte, error)
	// Status is the status the request must answer with; 0 means 200.
	// (route-not-found answers every request with 404.)
	Status int
	// Check, when set, replaces the status check: it fails unless body is
	// the response the event must get (an S3-triggered function answers
	// null).
	Check func(body []byte) error
	// Verify, when set, runs after each successful cold start, off the
	// clock: it fails unless the invocation did its work (the clip it was
	// sent was decided).
	Verify func(context.Context) error
}

// wantStatus returns the status t's request must answer with.
func (t target) wantStatus() int {
	if t.Status == 0 {
		return defaultStatus
	}
	return t.Status
}

// sample is one cold start, both times measured from just before exec.
type sample struct {
	Init          time.Duration // until the first GET next arrived
	FirstResponse time.Duration // until POST response arrived
}

// lambdaEnv is the environment Lambda gives a function's process (beyond
// the function's own variables and the execution role's credentials, which
// the target's Env adds), for a function called name whose code is in
// dir, with the Runtime API at api.
func lambdaEnv(name, dir, api string) []string {
	return []string{
		"AWS_LAMBDA_RUNTIME_API=" + api,
		"AWS_LAMBDA_FUNCTION_NAME=" + name,
		"AWS_LAMBDA_FUNCTION_MEMORY_SIZE=" + memoryMB,
		"AWS_LAMBDA_FUNCTION_VERSION=$LATEST",
		"AWS_LAMBDA_INITIALIZATION_TYPE=on-demand",
		"AWS_LAMBDA_LOG_GROUP_NAME=/aws/lambda/" + name,
		"AWS_REGION=" + region,
		"AWS_DEFAULT_REGION=" + region,
		"_HANDLER=bootstrap",
		"LAMBDA_TASK_ROOT=" + dir,
		"TZ=:UTC",
		"LANG=en_US.UTF-8",
		"PATH=/usr/local/bin:/usr/bin/:/bin:/opt/bin",
	}
}

func functionARN(name string) string {
	return "arn:aws:lambda:" + region + ":" + accountID + ":function:" + name
}

// coldStart runs t's binary once as a fresh process with its own Runtime
// API, hands it one invocation and measures exec → first next (init) and
// exec → response. The process is then killed (SIGKILL) and reaped. It
// fails, with the process's last output, when the function reports an
// init or invocation error, exits, does not respond within timeout,
// responds other than t wants (t.Check, or t's status: 200 unless t says
// otherwise), or when t.Verify fails afterwards.
func coldStart(ctx context.Context, t target, timeout time.Duration) (sample, error) {
	event, err := t.Event(ctx)
	if err != nil {
		return sample{}, fmt.Errorf("build event: %w", err)
	}
	api, err := newRuntimeAPI(functionARN(t.Name))
	if err != nil {
		return sample{}, err
	}
	defer api.Close()
	api.Invoke(event)

	const keep = 8 << 10
	out := childproc.NewTail(keep)
	cmd := exec.Command(t.Bin)
	cmd.Dir = filepath.Dir(t.Bin)
	cmd.Env = append(lambdaEnv(t.Name, cmd.Dir, api.Addr), t.Env...)
	cmd.Stdout, cmd.Stderr = out, out
	cmd.WaitDelay = time.Second

	t0 := time.Now()
	if err := cmd.Start(); err != nil {
		return sample{}, fmt.Errorf("exec %s: %w", t.Bin, err)
	}
	exited := make(chan struct{})
	var waitErr error
	go func() {
		waitErr = cmd.Wait()
		close(exited)
	}()
	s, body, err := await(ctx, api.Calls, exited, func() error { return waitErr }, t0, timeout)
	_ = cmd.Process.Kill() // fails only when it has exited already
	<-exited
	switch {
	case err != nil:
	case t.Check != nil:
		err = t.Check(body)
	default:
		err = checkStatus(body, t.wantStatus())
	}
	if err == nil && t.Verify != nil {
		err = t.Verify(ctx)
	}
	if err != nil {
		return sample{}, fmt.Errorf("%w\n--- process output (last %d bytes) ---\n%s", err, keep, out.String())
	}
	return s, nil
}

// await follows one process's calls to its Runtime API until it posts a
// response, and returns the sample and the response body.
func await(ctx context.Context, calls <-chan call, exited <-chan struct{}, exitErr func() error, t0 time.Time, timeout time.Duration) (sample, []byte, error) {
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	var s sample
	// handle returns true when c ends the measurement.
	handle := func(c call) (bool, []byte, error) {
		switch c.Kind {
		case callNext:
			if s.Init == 0 {
				s.Init = c.At.Sub(t0)
			}
			return false, nil, nil
		case callResponse:
			s.FirstResponse = c.At.Sub(t0)
			return true, c.Body, nil
		case callError:
			return true, nil, fmt.Errorf("invocation failed (POST .../error, %s): %s", orNone(c.ErrorType), c.Body)
		case callInitError:
			return true, nil, fmt.Errorf("init failed (POST /runtime/init/error, %s): %s", orNone(c.ErrorType), c.Body)
		}
		return true, nil, fmt.Errorf("unexpected runtime API call %s", c.Kind)
	}
	for {
		select {
		case c := <-calls:
			if done, body, err := handle(c); done {
				return s, body, err
			}
		case <-exited:
			// Calls that arrived before the exit still count.
			for drained := false; !drained; {
				select {
				case c := <-calls:
					if done, body, err := handle(c); done {
						return s, body, err
					}
				default:
					drained = true
				}
			}
			stage := "before its first next"
			if s.Init > 0 {
				stage = "after next, before responding"
			}
			return s, nil, fmt.Errorf("process exited %s: %v", stage, exitErr())
		case <-timer.C:
			stage := "no GET next"
			if s.Init > 0 {
				stage = fmt.Sprintf("next after %s, then no response", s.Init)
			}
			return s, nil, fmt.Errorf("timed out after %s (%s)", timeout, stage)
		case <-ctx.Done():
			return s, nil, ctx.Err()
		}
	}
}

// checkStatus fails unless body is an API Gateway (payload 2.0) response
// with status want.
func checkStatus(body []byte, want int) error {
	var resp struct {
		StatusCode int `json:"statusCode"`
	}
	if err := json.Unmarshal(body, &resp); err != nil {
		return fmt.Errorf("response is not an API Gateway response: %w: %s", err, clip(body))
	}
	if resp.StatusCode != want {
		return fmt.Errorf("response status %d; want %d: %s", resp.StatusCode, want, clip(body))
	}
	return nil
}

// checkNull fails unless body is null: what aws-lambda-go posts for a
// handler that returns only an error, and returned nil.
func checkNull(body []byte) error {
	if strings.TrimSpace(string(body)) != "null" {
		return fmt.Errorf("response %s; want null (the handler succeeded)", clip(body))
	}
	return nil
}

// BaselineEvery is how often the baseline (the last target) is
// cold-started within a round: before every BaselineEvery-th other
// target. Every ratio divides by the baseline's median of its block of
// rounds, so the baseline gets several samples per round: with one, the
// noise of 20 hello-world samples moved every function's ratio of a block
// together (up to 0.5× between blocks of one run).
const BaselineEvery = 4

// measureAll cold-starts every target warmup+runs times, round-robin (one
// of each per round, in order, with the baseline, the last target, also
// before every BaselineEvery-th other one) so that drift of the machine
// touches all alike, and returns each target's samples, in order, without
// the warm-up rounds. The first failure ends it.
func measureAll(ctx context.Context, targets []target, runs, warmup int, timeout time.Duration, log io.Writer) ([][]sample, error) {
	samples := make([][]sample, len(targets))
	base := len(targets) - 1
	var order []int
	for i := range base {
		if i%BaselineEvery == 0 {
			order = append(order, base)
		}
		order = append(order, i)
	}
	if base == 0 || (base-1)%BaselineEvery != 0 {
		order = append(order, base) // at least once, and last when it fits
	}
	rounds := warmup + runs
	for round := range rounds {
		for _, i := range order {
			t := targets[i]
			s, err := coldStart(ctx, t, timeout)
			if err != nil {
				return nil, fmt.Errorf("%s, cold start %d of %d: %w", t.Name, round+1, rounds, err)
			}
			if round >= warmup {
				samples[i] = append(samples[i], s)
			}
		}
		if round+1 == warmup {
			fmt.Fprintf(log, "coldstart: %d warm-up round(s) done (discarded)\n", warmup)
		} else if round >= warmup && ((round-warmup+1)%5 == 0 || round+1 == rounds) {
			fmt.Fprintf(log, "coldstart: %d/%d rounds measured\n", round-warmup+1, runs)
		}
	}
	return samples, nil
}

func clip(b []byte) string {
	const n = 512
	if len(b) > n {
		return string(b[:n]) + "…"
	}
	return string(b)
}

func orNone(s string) string {
	if s == "" {
		return "no error type"
	}
	return s
}
