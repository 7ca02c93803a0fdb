// Package catalog puts every endpoint of every feature behind one pipeline,
// for the tools that serve them all in one process: `make dev`'s local
// gateway, scripts/invoke, the integration tests and the benchmarks (and,
// later, the agent tool server). Deployed functions never import it: each
// main calls one builder of shared/wire/wiring.
package catalog

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"time"

	"github.com/moveleads/partnerapi/shared/domain/inventory"
	"github.com/moveleads/partnerapi/shared/edge/agenttools"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/moveleads/partnerapi/shared/adapter/dynamo"
	"github.com/moveleads/partnerapi/shared/app/pipeline"
	"github.com/moveleads/partnerapi/shared/edge/apigw"
	"github.com/moveleads/partnerapi/shared/edge/queueevent"
	"github.com/moveleads/partnerapi/shared/edge/s3event"
	"github.com/moveleads/partnerapi/shared/edge/schedule"
	"github.com/moveleads/partnerapi/shared/edge/streamevent"
	"github.com/moveleads/partnerapi/shared/spec/manifest"
	"github.com/moveleads/partnerapi/shared/wire/awsenv"
	"github.com/moveleads/partnerapi/shared/wire/clipwiring"
	"github.com/moveleads/partnerapi/shared/wire/dashwiring"
	"github.com/moveleads/partnerapi/shared/wire/hookwiring"
	"github.com/moveleads/partnerapi/shared/wire/mcpwiring"
	"github.com/moveleads/partnerapi/shared/wire/s3wiring"
	"github.com/moveleads/partnerapi/shared/wire/wiring"
)

// Deps is what the endpoints and their pipeline need.
type Deps struct {
	Store *dynamo.Store
	// Secret returns the loader of a secret by manifest name (see
	// awsenv.Env.Secret).
	Secret func(name string) func(context.Context) ([]byte, error)
	// AWS configures the other AWS clients (S3); settings such as the
	// clip bucket come from Getenv.
	AWS aws.Config
	// Getenv reads the functions' settings; nil: the process environment.
	Getenv func(string) string
	Log    *slog.Logger
	// Now, NewID, IdempotencyWait and SettingsTTL override the pipeline's
	// defaults (tests).
	Now             func() time.Time
	NewID           func() string
	IdempotencyWait time.Duration
	SettingsTTL     time.Duration
	// Detector is the clip processor's frame detector: make dev and tests
	// pass the local sidecar (shared/local/detectlocal); nil records every frame
	// as not analysed. (The deployed function calls Amazon Rekognition:
	// clipwiring.ClipProcessor.)
	Detector inventory.Detector
	// WebhookQueue is the webhook attempts queue the dispatcher and the
	// sender hand attempts to (make dev and tests: shared/local/queuelocal);
	// nil: the one settings.WebhookQueueURL names, if any.
	WebhookQueue hookwiring.WebhookQueue
}

// Builders maps the slug of every function with partner routes to the
// builder its main uses. A test checks it covers the manifest.
func Builders() map[string]wiring.Builder {
	return map[string]wiring.Builder{
		"v1-leads":               wiring.CreateLead,
		"v1-leads-list":          wiring.ListLeads,
		"v1-lead-get":            wiring.GetLead,
		"v1-events":              wiring.ListEvents,
		"v1-event-get":           wiring.GetEvent,
		"v1-lead-survey":         wiring.SurveyLink,
		"v1-capture":             s3wiring.Capture,
		"v1-survey-video-access": wiring.VideoAccess,
		"v1-video":               s3wiring.Video,
		"v1-lead-quote":          wiring.CreateQuote,
		"v1-accept":              s3wiring.Accept,
		"v1-deposits":            wiring.CreateDeposit,
		"v1-deposit-status":      wiring.GetDeposit,
		"v1-quote":               s3wiring.QuotePage,
		"stripe-webhook":         wiring.StripeWebhook,
		manifest.DashboardSlug:   dashwiring.Dashboard,
	}
}

// S3Processors maps the slug of every S3-triggered function to the
// processor builder its main hands to s3event.Start.
func S3Processors() map[string]func(*awsenv.Env) (s3event.Processor, error) {
	return map[string]func(*awsenv.Env) (s3event.Processor, error){
		"clip-processor": clipwiring.ClipProcessor,
	}
}

// StreamProcessors maps the slug of every stream-triggered function to
// the processor builder its main hands to streamevent.Start.
func StreamProcessors() map[string]func(*awsenv.Env) (streamevent.Processor, error) {
	return map[string]func(*awsenv.Env) (streamevent.Processor, error){
		"webhook-dispatcher": hookwiring.Dispatcher,
	}
}

// QueueProcessors maps the slug of every queue-triggered function to the
// processor builder its main hands to queueevent.Start.
func QueueProcessors() map[string]func(*awsenv.Env) (queueevent.Processor, error) {
	return map[string]func(*awsenv.Env) (queueevent.Processor, error){
		"webhook-sender": hookwiring.Attempts,
	}
}

// Jobs maps the slug of every schedule-triggered function to the job
// builder its main hands to schedule.Start.
func Jobs() map[string]func(*awsenv.Env) (schedule.Job, error) {
	return map[string]func(*awsenv.Env) (schedule.Job, error){
		"webhook-retrier": hookwiring.Retrier,
	}
}

// Endpoints returns every endpoint, built over env.
func Endpoints(env *awsenv.Env) ([]pipeline.Endpoint, error) {
	var out []pipeline.Endpoint
	for _, f := range manifest.Functions {
		if b, ok := Builders()[f.Slug]; ok {
			eps, err := b(env)
			if err != nil {
				return nil, fmt.Errorf("function %s: %w", f.Slug, err)
			}
			out = append(out, eps...)
		}
	}
	return out, nil
}

// Stack serves every route of the manifest.
type Stack struct {
	Pipeline *pipeline.Pipeline
	handler  *apigw.Handler
	eps      map[manifest.Operation]pipeline.Endpoint
	clips    s3event.Handler
	streams  map[string]streamevent.Handler
	queues   map[string]queueevent.Handler
	jobs     map[string]schedule.Handler
	log      *slog.Logger
	// agentTools serves the agent tool server's HTTP transport over the
	// same pipeline and endpoints.
	agentTools apigw.LambdaFunc
}

// New returns the Stack over d. A function whose settings are missing
// from the environment (the clip bucket, the public base URL) still has
// its routes, answering 500 with the reason in the log line, so that tools
// that exercise only some functions need not configure all of them.
func New(d Deps) *Stack {
	p := pipeline.New(pipeline.Deps{
		Store: d.Store, Log: d.Log, Now: d.Now, NewID: d.NewID,
		IdempotencyWait: d.IdempotencyWait, SettingsTTL: d.SettingsTTL,
	})
	s := &Stack{Pipeline: p, handler: apigw.New(p, d.Log, d.Now), eps: map[manifest.Operation]pipeline.Endpoint{}, log: d.Log}
	getenv := d.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	env := awsenv.ForTools(d.Store, d.Log, d.Secret, d.AWS).WithGetenv(getenv)
	for _, f := range manifest.Functions {
		b, ok := Builders()[f.Slug]
		if !ok {
			continue
		}
		eps, err := b(env)
		if err != nil {
			eps = unconfigured(f, err)
		}
		for _, ep := range eps {
			s.eps[ep.Operation] = ep
		}
	}
	s.agentTools = s.agentToolsHandler(d.Log, getenv)
	proc, err := clipwiring.ClipProcessorWith(env, d.Detector)
	if err != nil {
		proc = failingProcessor{err}
	}
	s.clips = s3event.New(proc, d.Log)
	streams, queues := StreamProcessors(), QueueProcessors()
	if q := d.WebhookQueue; q != nil {
		streams["webhook-dispatcher"] = func(e *awsenv.Env) (streamevent.Processor, error) { return hookwiring.DispatcherWith(e, q) }
		queues["webhook-sender"] = func(e *awsenv.Env) (queueevent.Processor, error) { return hookwiring.AttemptsWith(e, q) }
	}
	s.queues = map[string]queueevent.Handler{}
	for slug, b := range queues {
		f, _ := manifest.BySlug(slug)
		p, err := b(env)
		if err != nil {
			p = failingMessages{fmt.Errorf("function %s is not configured: %w", slug, err)}
		}
		s.queues[slug] = queueevent.New(p, f.Queue.BatchSize, d.Log)
	}
	s.streams = map[string]streamevent.Handler{}
	for slug, b := range streams {
		p, err := b(env)
		if err != nil {
			p = failingRecords{fmt.Errorf("function %s is not configured: %w", slug, err)}
		}
		s.streams[slug] = streamevent.New(p, d.Log)
	}
	s.jobs = map[string]schedule.Handler{}
	for slug, b := range Jobs() {
		j, err := b(env)
		if err != nil {
			j = failingJob{fmt.Errorf("function %s is not configured: %w", slug, err)}
		}
		s.jobs[slug] = schedule.New(slug, j, d.Log, io.Discard)
	}
	return s
}

type failingRecords struct{ err error }

func (p failingRecords) Process(context.Context, streamevent.Record) error { return p.err }

type failingMessages struct{ err error }

func (p failingMessages) Process(context.Context, queueevent.Message) error { return p.err }

type failingJob struct{ err error }

func (j failingJob) Run(context.Context) ([]schedule.Metric, error) { return nil, j.err }

// Streams returns the handler of each stream-triggered function, by slug.
func (s *Stack) Streams() map[string]streamevent.Handler { return s.streams }

// Queues returns the handler of each queue-triggered function, by slug.
func (s *Stack) Queues() map[string]queueevent.Handler { return s.queues }

// Jobs returns the handler of each schedule-triggered function, by slug
// (metrics are not written: there is no CloudWatch locally; the log line
// carries them).
func (s *Stack) Jobs() map[string]schedule.Handler { return s.jobs }

// unconfigured returns endpoints for f's routes that fail with err.
func unconfigured(f manifest.Function, err error) []pipeline.Endpoint {
	err = fmt.Errorf("function %s is not configured: %w", f.Slug, err)
	var eps []pipeline.Endpoint
	for _, r := range f.HTTP {
		eps = append(eps, pipeline.Endpoint{
			Operation: r.Operation,
			Prepare:   func(context.Context, *pipeline.Call) (pipeline.Work, error) { return pipeline.Work{}, err },
			Verify: func(context.Context, *pipeline.Call) (pipeline.Grant, error) {
				return pipeline.Grant{}, err
			},
		})
	}
	return eps
}

type failingProcessor struct{ err error }

func (p failingProcessor) Process(context.Context, s3event.Object) error { return p.err }

// Clips returns the clip processor's S3 event handler.
func (s *Stack) Clips() s3event.Handler { return s.clips }

// agentToolsHandler is the agent tool server's HTTP transport over the
// stack's pipeline and endpoints (those of unconfigured functions fail as
// their routes do), allowing the browser origins of the process
// environment's settings.AgentToolsAllowedOrigins. When that is malformed,
// every request answers 500 with the reason in the log, as an
// unconfigured function's routes do (the deployed function fails at init).
func (s *Stack) agentToolsHandler(log *slog.Logger, getenv func(string) string) apigw.LambdaFunc {
	var eps []pipeline.Endpoint
	for _, op := range manifest.AgentToolOperations {
		eps = append(eps, s.eps[op])
	}
	rt := manifest.ByOperation(manifest.AgentTools)
	o, err := mcpwiring.HTTPOptions(getenv)
	if err != nil {
		return unconfiguredHTTP(rt, fmt.Errorf("function %s is not configured: %w", manifest.AgentToolsSlug, err), log)
	}
	b, err := agenttools.NewBackend(s.Pipeline, eps, log)
	if err != nil {
		return unconfiguredHTTP(rt, err, log)
	}
	return apigw.ServeHTTP(rt, b.HTTPHandler(o), log)
}

// unconfiguredHTTP answers every request with 500, err in a log line of
// its own (the request's line carries no error text).
func unconfiguredHTTP(rt manifest.Route, err error, log *slog.Logger) apigw.LambdaFunc {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return apigw.ServeHTTP(rt, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		log.ErrorContext(r.Context(), "not configured", "operation", string(rt.Operation), "error", err.Error())
		status, body := pipeline.Render(err)
		w.Header().Set("Content-Type", string(manifest.JSON))
		w.WriteHeader(status)
		_, _ = w.Write(body)
	}), log)
}

// Endpoint returns the endpoint of op, and false when op has none.
func (s *Stack) Endpoint(op manifest.Operation) (pipeline.Endpoint, bool) {
	ep, ok := s.eps[op]
	return ep, ok
}

// Route returns the Lambda handler of op's route ($default included). It
// panics when op has no endpoint, a wiring error the catalog's test
// catches.
func (s *Stack) Route(op manifest.Operation) apigw.LambdaFunc {
	if op == manifest.RouteNotFound {
		return apigw.NotFound(s.log)
	}
	if op == manifest.AgentTools {
		return s.agentTools
	}
	ep, ok := s.eps[op]
	if !ok {
		panic(fmt.Sprintf("catalog: no endpoint for %s", op))
	}
	return s.handler.Serve(ep)
}
