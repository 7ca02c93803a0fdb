package schedule

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/moveleads/partnerapi/shared/spec/manifest"
	"github.com/moveleads/partnerapi/shared/wire/awsenv"
)

type jobFunc func(context.Context) ([]Metric, error)

func (f jobFunc) Run(ctx context.Context) ([]Metric, error) { return f(ctx) }

// TestEMF: the line is CloudWatch's embedded metric format: _aws with the
// namespace, the Function dimension and each metric's definition, and
// each value at the top level.
func TestEMF(t *testing.T) {
	at := time.UnixMilli(1_700_000_000_123)
	line, err := EMF("webhook-retrier", at, []Metric{{"Overdue", "Seconds", 12.5}, {"Due", "Count", 3}})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasSuffix(line, []byte("\n")) || bytes.Count(line, []byte("\n")) != 1 {
		t.Errorf("not one line: %q", line)
	}
	var doc struct {
		AWS struct {
			Timestamp         int64
			CloudWatchMetrics []struct {
				Namespace  string
				Dimensions [][]string
				Metrics    []struct{ Name, Unit string }
			}
		} `json:"_aws"`
		Function string
		Overdue  float64
		Due      float64
	}
	if err := json.Unmarshal(line, &doc); err != nil {
		t.Fatal(err)
	}
	cw := doc.AWS.CloudWatchMetrics
	if doc.AWS.Timestamp != at.UnixMilli() || len(cw) != 1 || cw[0].Namespace != manifest.MetricNamespace ||
		len(cw[0].Dimensions) != 1 || cw[0].Dimensions[0][0] != "Function" || len(cw[0].Metrics) != 2 ||
		cw[0].Metrics[0].Name != "Overdue" || cw[0].Metrics[0].Unit != "Seconds" ||
		doc.Function != "webhook-retrier" || doc.Overdue != 12.5 || doc.Due != 3 {
		t.Errorf("EMF = %s", line)
	}
	for _, bad := range []string{"", "_aws", "Function"} {
		if _, err := EMF("f", at, []Metric{{bad, "Count", 1}}); err == nil {
			t.Errorf("metric name %q accepted", bad)
		}
	}
}

// TestHandler: a run's metrics are written; a failed run returns its error
// (so Lambda records a failed invocation) and still reports its metrics.
func TestHandler(t *testing.T) {
	var out bytes.Buffer
	h := New("webhook-retrier", jobFunc(func(context.Context) ([]Metric, error) {
		return []Metric{{manifest.MetricWebhookDue, "Count", 2}}, nil
	}), nil, &out)
	if err := h(context.Background(), events.EventBridgeEvent{ID: "e1"}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), `"`+manifest.MetricWebhookDue+`":2`) {
		t.Errorf("metrics line: %s", out.String())
	}
	boom := errors.New("table unreachable")
	out.Reset()
	h = New("webhook-retrier", jobFunc(func(context.Context) ([]Metric, error) { return nil, boom }), nil, &out)
	if err := h(context.Background(), events.EventBridgeEvent{}); !errors.Is(err, boom) {
		t.Errorf("failed run returned %v; want its error", err)
	}
	if out.Len() != 0 {
		t.Errorf("a run without metrics wrote %q", out.String())
	}
}

// TestBuildRefusesOtherFunctions: Build takes only a schedule-triggered
// function of the manifest.
func TestBuildRefusesOtherFunctions(t *testing.T) {
	load := func() (*awsenv.Env, error) { t.Fatal("loaded the environment"); return nil, nil }
	for _, slug := range []string{"v1-leads", "webhook-dispatcher", "no-such-function"} {
		if _, err := Build(load, slug, func(*awsenv.Env) (Job, error) { return nil, nil }); err == nil {
			t.Errorf("Build(%s) succeeded", slug)
		}
	}
}
