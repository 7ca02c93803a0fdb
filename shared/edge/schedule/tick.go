// Package tick is the schedule edge of the service: a function that a
// schedule starts (manifest.ScheduleTrigger; an EventBridge rule in AWS, a
// ticker in make dev) runs one Job per invocation and reports the job's
// metrics in CloudWatch's embedded metric format (EMF): one JSON line on
// stdout that CloudWatch Logs turns into metrics, with no PutMetricData
// call and no client in the binary. Like shared/edge/s3event and
// shared/edge/streamevent, it only decodes, logs and reports; the work lives in
// the feature package.
package schedule

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/moveleads/partnerapi/shared/spec/manifest"
	"github.com/moveleads/partnerapi/shared/wire/awsenv"
)

// Metric is one value a job reports.
type Metric struct {
	// Name is the metric's name in manifest.MetricNamespace (the stack's
	// alarms name it too: declare it in the manifest).
	Name string
	// Unit is a CloudWatch unit: "Seconds", "Count", ...
	Unit  string
	Value float64
}

// Job is the work of one scheduled invocation. An error fails the
// invocation (Lambda retries an asynchronous invocation twice); a job
// that runs again at the next tick need not retry itself.
type Job interface {
	Run(ctx context.Context) ([]Metric, error)
}

// Handler is the signature aws-lambda-go starts for scheduled events.
type Handler func(context.Context, events.EventBridgeEvent) error

// New returns the handler that runs j for each scheduled event, logs one
// line (duration, metrics, error) to log (nil discards) and writes the
// metrics to metrics (nil: stdout, where Lambda's log capture finds EMF
// lines) with the dimension Function=slug.
func New(slug string, j Job, log *slog.Logger, metrics io.Writer) Handler {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if metrics == nil {
		metrics = os.Stdout
	}
	return func(ctx context.Context, ev events.EventBridgeEvent) error {
		start := time.Now()
		ms, err := j.Run(ctx)
		attrs := []slog.Attr{slog.String("schedule_event", ev.ID), slog.Float64("duration_ms", float64(time.Since(start).Microseconds())/1000)}
		for _, m := range ms {
			attrs = append(attrs, slog.Float64(m.Name, m.Value))
		}
		if len(ms) > 0 {
			if line, merr := EMF(slug, start, ms); merr == nil {
				_, _ = metrics.Write(line)
			}
		}
		if err != nil {
			attrs = append(attrs, slog.String("error", err.Error()))
			log.LogAttrs(ctx, slog.LevelError, "scheduled run failed", attrs...)
			return err
		}
		log.LogAttrs(ctx, slog.LevelInfo, "scheduled run", attrs...)
		return nil
	}
}

// EMF returns the embedded-metric-format line (newline included) that
// reports ms at t in manifest.MetricNamespace, with the dimension
// Function=slug.
func EMF(slug string, t time.Time, ms []Metric) ([]byte, error) {
	type def struct {
		Name string `json:"Name"`
		Unit string `json:"Unit"`
	}
	defs := make([]def, len(ms))
	doc := map[string]any{"Function": slug}
	for i, m := range ms {
		if m.Name == "" || m.Name == "_aws" || m.Name == "Function" {
			return nil, fmt.Errorf("tick: metric name %q", m.Name)
		}
		defs[i] = def{m.Name, m.Unit}
		doc[m.Name] = m.Value
	}
	doc["_aws"] = map[string]any{
		"Timestamp": t.UnixMilli(),
		"CloudWatchMetrics": []any{map[string]any{
			"Namespace":  manifest.MetricNamespace,
			"Dimensions": [][]string{{"Function"}},
			"Metrics":    defs,
		}},
	}
	b, err := json.Marshal(doc)
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// Start is every schedule-triggered function's main: it builds the job
// from the environment (awsenv.Load), checks the secrets it read against
// the manifest entry of slug, and hands the handler to lambda.Start. It
// exits 1 with one line on stderr when the wiring fails.
func Start(slug string, build func(*awsenv.Env) (Job, error)) {
	awsenv.Run(Build(awsenv.Load, slug, build))
}

// Build is Start without the runtime (scripts/invoke, make dev, tests).
func Build(load func() (*awsenv.Env, error), slug string, build func(*awsenv.Env) (Job, error)) (Handler, error) {
	return awsenv.BuildEdge(load, slug, manifest.TriggerSchedule, "schedule-triggered", build,
		func(f manifest.Function, j Job, env *awsenv.Env) Handler { return New(f.Slug, j, env.Log, nil) })
}
