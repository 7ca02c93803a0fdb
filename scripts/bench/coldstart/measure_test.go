package coldstart

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambda"
	"github.com/aws/aws-lambda-go/lambdacontext"
)

// fakeFunctionEnv makes the test binary, started as a cold-start target,
// behave as a function instead of running tests (see TestMain): the
// harness is then exercised by aws-lambda-go's real runtime client,
// without building anything.
const fakeFunctionEnv = "COLDSTART_FAKE_FUNCTION"

// parentOnlyEnv is set in the test process; a fake function that sees it
// was given the parent's environment.
const parentOnlyEnv = "COLDSTART_PARENT_ONLY"

func TestMain(m *testing.M) {
	if mode := os.Getenv(fakeFunctionEnv); mode != "" {
		fakeFunction(mode)
		os.Exit(2) // fakeFunction does not return
	}
	os.Exit(m.Run())
}

// fakeFunction runs as a Lambda function of the given mode.
func fakeFunction(mode string) {
	switch mode {
	case "ok":
		lambda.Start(checkedHello)
	case "handler-error":
		lambda.Start(func(context.Context, json.RawMessage) (any, error) { return nil, errors.New("boom") })
	case "status-500":
		lambda.Start(func(context.Context, json.RawMessage) (events.APIGatewayV2HTTPResponse, error) {
			return events.APIGatewayV2HTTPResponse{StatusCode: 500, Body: `{"error":"x"}`}, nil
		})
	case "init-error":
		// What a runtime does when its init fails (aws-lambda-go exits instead).
		req, _ := http.NewRequest("POST", "http://"+os.Getenv("AWS_LAMBDA_RUNTIME_API")+"/2018-06-01/runtime/init/error",
			strings.NewReader(`{"errorMessage":"TABLE_NAME is not set","errorType":"InitError"}`))
		req.Header.Set("Lambda-Runtime-Function-Error-Type", "Runtime.InitError")
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
		}
		os.Exit(1)
	case "exit":
		fmt.Fprintln(os.Stderr, "init: TABLE_NAME is not set")
		os.Exit(3)
	case "hang":
		time.Sleep(time.Hour)
	}
	fmt.Fprintln(os.Stderr, "unknown fake function mode", mode)
	os.Exit(2)
}

// checkedHello answers 200 when the process got Lambda's environment and
// the invocation's metadata, and 500 naming what is wrong otherwise.
func checkedHello(ctx context.Context, ev events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error) {
	var problems []string
	lc, _ := lambdacontext.FromContext(ctx)
	if lc == nil || lc.InvokedFunctionArn != functionARN(lambdacontext.FunctionName) || lc.AwsRequestID == "" {
		problems = append(problems, fmt.Sprintf("lambda context %+v", lc))
	}
	if lambdacontext.FunctionName != "fake" || lambdacontext.MemoryLimitInMB != 256 || lambdacontext.FunctionVersion != "$LATEST" {
		problems = append(problems, fmt.Sprintf("function %q, %d MB, version %q", lambdacontext.FunctionName, lambdacontext.MemoryLimitInMB, lambdacontext.FunctionVersion))
	}
	if d, ok := ctx.Deadline(); !ok || time.Until(d) < 25*time.Second {
		problems = append(problems, fmt.Sprintf("deadline %v", d))
	}
	for _, kv := range []string{"AWS_REGION=us-east-1", "_HANDLER=bootstrap", "TZ=:UTC", "FAKE_APP_VAR=set"} {
		k, v, _ := strings.Cut(kv, "=")
		if os.Getenv(k) != v {
			problems = append(problems, fmt.Sprintf("%s=%q", k, os.Getenv(k)))
		}
	}
	if _, ok := os.LookupEnv(parentOnlyEnv); ok {
		problems = append(problems, "got the parent's environment")
	}
	if ev.RawPath != "/hello" {
		problems = append(problems, "event path "+ev.RawPath)
	}
	if len(problems) > 0 {
		return events.APIGatewayV2HTTPResponse{StatusCode: 500, Body: strings.Join(problems, "; ")}, nil
	}
	return events.APIGatewayV2HTTPResponse{StatusCode: 200, Body: `{"hello":"world"}`}, nil
}

// fake returns a target that runs this test binary as a fake function.
func fake(t *testing.T, mode string) target {
	t.Helper()
	bin, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return target{Name: "fake", Bin: bin, Env: []string{fakeFunctionEnv + "=" + mode, "FAKE_APP_VAR=set"}, Event: helloEvent}
}

func TestColdStart(t *testing.T) {
	t.Setenv(parentOnlyEnv, "1")
	s, err := coldStart(context.Background(), fake(t, "ok"), 20*time.Second)
	if err != nil {
		t.Fatalf("coldStart: %v", err)
	}
	if s.Init <= 0 || s.FirstResponse < s.Init {
		t.Errorf("init %s, first response %s; want 0 < init ≤ first response", s.Init, s.FirstResponse)
	}
}

func TestColdStartFailures(t *testing.T) {
	tests := []struct {
		mode    string
		timeout time.Duration
		want    []string // in the error
	}{
		{"init-error", 20 * time.Second, []string{"init failed", "Runtime.InitError", "TABLE_NAME is not set"}},
		{"handler-error", 20 * time.Second, []string{"invocation failed", "boom"}},
		{"status-500", 20 * time.Second, []string{"response status 500; want 200"}},
		{"exit", 20 * time.Second, []string{"process exited before its first next", "exit status 3", "init: TABLE_NAME is not set"}},
		{"hang", 300 * time.Millisecond, []string{"timed out", "no GET next"}},
	}
	for _, tt := range tests {
		t.Run(tt.mode, func(t *testing.T) {
			_, err := coldStart(context.Background(), fake(t, tt.mode), tt.timeout)
			if err == nil {
				t.Fatal("coldStart succeeded; want an error")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q; want it to contain %q", err, w)
				}
			}
		})
	}
}

// A function that reports an init error fails the whole measurement, as it
// fails Run: no numbers come out of a failed run.
func TestMeasureAllFailsOnInitError(t *testing.T) {
	targets := []target{fake(t, "ok"), fake(t, "init-error")}
	samples, err := measureAll(context.Background(), targets, 3, 1, 20*time.Second, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "init failed") || !strings.Contains(err.Error(), "cold start 1 of 4") {
		t.Fatalf("measureAll = %v, %v; want the init error of the first cold start", samples, err)
	}
}

func TestMeasureAllDiscardsWarmup(t *testing.T) {
	var log bytes.Buffer
	targets := []target{fake(t, "ok"), fake(t, "ok")}
	samples, err := measureAll(context.Background(), targets, 2, 1, 20*time.Second, &log)
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range samples {
		if len(s) != 2 {
			t.Errorf("target %d: %d samples; want 2 (3 rounds less 1 warm-up)", i, len(s))
		}
	}
	if !strings.Contains(log.String(), "warm-up") {
		t.Errorf("log %q; want the warm-up reported", log.String())
	}
}

func TestCheckStatus(t *testing.T) {
	tests := []struct {
		name string
		body string
		want int
		ok   bool
	}{
		{"200 wanted", `{"statusCode":200,"body":"{}"}`, 200, true},
		{"201 for 200", `{"statusCode":201}`, 200, false},
		{"429 for 200", `{"statusCode":429}`, 200, false},
		{"404 wanted", `{"statusCode":404}`, 404, true},
		{"200 for 404", `{"statusCode":200}`, 404, false},
		{"not json", `not json`, 200, false},
		{"no status", `{}`, 200, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := checkStatus([]byte(tt.body), tt.want); (err == nil) != tt.ok {
				t.Errorf("checkStatus(%s, %d) = %v; want ok %v", tt.body, tt.want, err, tt.ok)
			}
		})
	}
	if got := (target{}).wantStatus(); got != 200 {
		t.Errorf("target{}.wantStatus() = %d; want 200", got)
	}
}

// The baseline is cold-started before every BaselineEvery-th other target
// of a round, so its block medians rest on more samples than one a round.
func TestMeasureAllSamplesTheBaselineOftener(t *testing.T) {
	var targets []target
	for range BaselineEvery + 2 {
		targets = append(targets, fake(t, "ok"))
	}
	samples, err := measureAll(context.Background(), targets, 2, 0, 20*time.Second, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	base := len(targets) - 1
	for i, s := range samples {
		want := 2
		if i == base {
			want = 2 * 2 // before target 0 and before target BaselineEvery, each round
		}
		if len(s) != want {
			t.Errorf("target %d: %d samples; want %d", i, len(s), want)
		}
	}
}
