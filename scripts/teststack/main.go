// Command teststack is the go test run of `make test`: it starts one
// DynamoDB Local, one MinIO and one stripe-mock on loopback, points every
// test binary at them through the standard variables
// (AWS_ENDPOINT_URL_DYNAMODB, AWS_ENDPOINT_URL_S3 with MinIO's
// credentials, STRIPE_API_URL), runs `go test` with its own arguments, and
// stops the servers when go test ends or on SIGINT/SIGTERM. Its exit status
// is go test's.
//
// Each test binary's harness (dynamolocal.ForTests, s3local.ForTests,
// stripelocal.ForTests, apitest) then uses these servers instead of
// starting its own: about 20 JVMs, 7 MinIOs and 7 stripe-mocks fewer per
// run. Tests make a table (and bucket) of their own, so they share a
// server safely. A variable already set is kept and its server is not
// started (a developer's running stack). Tests that need a server of their
// own (MinIO with notification targets, a server they stop) still start it.
//
// It also lists the packages longest first, by the durations of the last
// run (order.go), so that no long test binary starts last.
//
//	teststack -race -count=1 ./...
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
	"time"

	"github.com/moveleads/partnerapi/shared/adapter/stripepay"
	"github.com/moveleads/partnerapi/shared/local/dynamolocal"
	"github.com/moveleads/partnerapi/shared/local/s3local"
	"github.com/moveleads/partnerapi/shared/local/stripelocal"
)

// startTimeout bounds starting the three servers, installs included.
const startTimeout = 15 * time.Minute

func main() {
	os.Exit(run(os.Args[1:], os.Getenv, os.Stdout, os.Stderr))
}

// run starts the servers, runs go test with args and returns its exit
// status, or 1 when a server does not start.
func run(args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)

	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	env, stop, err := startServers(ctx, getenv)
	cancel()
	defer stop()
	if err != nil {
		fmt.Fprintln(stderr, "teststack:", err)
		return 1
	}
	goCmd, record := goCommand(getenv), durationsFile(getenv)
	cmd := exec.Command(goCmd, append([]string{"test"}, orderedArgs(goCmd, args, record)...)...)
	cmd.Env = append(os.Environ(), env...)
	var durations durationRecorder
	out, errOut := recordTo(stdout, &durations), stderr
	if stderr == stdout {
		errOut = out // one writer, as exec.Cmd then copies both through one pipe
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, out, errOut
	code := runChild(cmd, sigs, stderr)
	if err := writeDurations(record, durations.durations()); err != nil {
		fmt.Fprintln(stderr, "teststack: recording the packages' durations:", err)
	}
	return code
}

// goCommand is $GO (as the Makefile names it) or "go".
func goCommand(getenv func(string) string) string {
	if g := getenv("GO"); g != "" {
		return g
	}
	return "go"
}

// runChild runs cmd, passes each signal of sigs on to it, and returns its
// exit status: 128+signal when a signal ended it, 1 when it did not start.
func runChild(cmd *exec.Cmd, sigs <-chan os.Signal, stderr io.Writer) int {
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(stderr, "teststack:", err)
		return 1
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	for {
		select {
		case sig := <-sigs:
			// A Ctrl-C reaches go test from the terminal too; a SIGTERM to
			// this process alone must not leave go test running.
			_ = cmd.Process.Signal(sig)
		case err := <-done:
			var exit *exec.ExitError
			switch {
			case err == nil:
				return 0
			case errors.As(err, &exit):
				if ws, ok := exit.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
					return 128 + int(ws.Signal())
				}
				return exit.ExitCode()
			default:
				fmt.Fprintln(stderr, "teststack:", err)
				return 1
			}
		}
	}
}

// startAttempts is how many times a server is started before teststack
// gives up: on a loaded machine a start can miss its own deadline once.
const startAttempts = 3

// retry calls start until it succeeds, startAttempts times or until ctx
// ends, and returns its last error.
func retry(ctx context.Context, start func() error) error {
	var err error
	for range startAttempts {
		if err = start(); err == nil || ctx.Err() != nil {
			return err
		}
	}
	return err
}

// startServers starts, at the same time, each server whose variable
// getenv does not already give, and returns the variables that point
// clients at them and a stop that ends those it started. On error it has
// stopped them already (stop then does nothing more).
func startServers(ctx context.Context, getenv func(string) string) (env []string, stop func(), err error) {
	var (
		db     *dynamolocal.Server
		s3srv  *s3local.Server
		stripe *stripelocal.Server
	)
	errs := make(chan error, 3)
	started := 0
	if getenv("AWS_ENDPOINT_URL_DYNAMODB") == "" {
		started++
		go func() {
			errs <- retry(ctx, func() (err error) { db, err = dynamolocal.Start(ctx, dynamolocal.ShortLived()); return err })
		}()
	}
	if getenv("AWS_ENDPOINT_URL_S3") == "" {
		started++
		go func() {
			errs <- retry(ctx, func() (err error) { s3srv, err = s3local.Start(ctx); return err })
		}()
	}
	if getenv(stripepay.EnvAPIURL) == "" {
		started++
		go func() {
			errs <- retry(ctx, func() (err error) { stripe, err = stripelocal.Start(ctx); return err })
		}()
	}
	var all []error
	for range started {
		all = append(all, <-errs)
	}
	stop = func() {
		if db != nil {
			_ = db.Stop()
		}
		if s3srv != nil {
			_ = s3srv.Stop()
		}
		if stripe != nil {
			_ = stripe.Stop()
		}
	}
	if err := errors.Join(all...); err != nil {
		stop()
		return nil, func() {}, err
	}
	// dynamolocal's dummy credentials first: MinIO's replace them, and
	// DynamoDB Local accepts any. A running MinIO's own credentials are
	// kept.
	if db != nil {
		dbEnv := dynamolocal.Env(db.Endpoint)
		if getenv("AWS_ENDPOINT_URL_S3") != "" {
			dbEnv = dbEnv[:1] // AWS_ENDPOINT_URL_DYNAMODB alone
		}
		env = append(env, dbEnv...)
	}
	if s3srv != nil {
		env = append(env, s3local.Env(s3srv)...)
		// For s3local.ForTests after a dynamolocal.SetEnv.
		env = append(env, s3local.EnvAccessKey+"="+s3srv.AccessKey, s3local.EnvSecretKey+"="+s3srv.SecretKey)
	}
	if stripe != nil {
		env = append(env, stripelocal.Env(stripe)...)
	}
	return env, stop, nil
}
