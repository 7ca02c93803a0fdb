package stack

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/moveleads/partnerapi/shared/spec/manifest"
	"github.com/moveleads/partnerapi/shared/spec/settings"
)

// streamMapping returns the one event source mapping that invokes the
// function slug.
func (s *synthed) streamMapping(t *testing.T, slug string) map[string]any {
	t.Helper()
	fid := s.functionIDs(t)[slug]
	var out []map[string]any
	for _, res := range s.resources("AWS::Lambda::EventSourceMapping") {
		if ref(props(res)["FunctionName"]) == fid {
			out = append(out, res)
		}
	}
	if len(out) != 1 {
		t.Fatalf("%s: %d event source mappings; want 1", slug, len(out))
	}
	return out[0]
}

// scheduleRule returns the one EventBridge rule whose target is the
// function slug.
func (s *synthed) scheduleRule(t *testing.T, slug string) map[string]any {
	t.Helper()
	fid := s.functionIDs(t)[slug]
	var out []map[string]any
	for _, res := range s.resources("AWS::Events::Rule") {
		for _, tg := range list(props(res)["Targets"]) {
			if getAtt(tg.(map[string]any)["Arn"], "Arn") == fid {
				out = append(out, res)
			}
		}
	}
	if len(out) != 1 {
		t.Fatalf("%s: %d rules target it; want 1", slug, len(out))
	}
	return out[0]
}

// checkDeadLetterQueue checks that id is an encrypted queue that keeps
// messages 14 days and refuses requests without TLS, and that an alarm
// fires on its first message; it returns the queue's policy statements.
func (s *synthed) checkDeadLetterQueue(t *testing.T, id string) []statement {
	t.Helper()
	q, ok := s.resources("AWS::SQS::Queue")[id]
	if !ok {
		t.Fatalf("dead-letter queue %q is not a queue of the stack", id)
	}
	p := props(q)
	if p["SqsManagedSseEnabled"] != true || p["MessageRetentionPeriod"] != float64(14*24*3600) {
		t.Errorf("queue %s: SqsManagedSseEnabled %v MessageRetentionPeriod %v; want true and 14 days", id, p["SqsManagedSseEnabled"], p["MessageRetentionPeriod"])
	}
	var sts []statement
	for _, pol := range s.resources("AWS::SQS::QueuePolicy") {
		for _, qr := range list(props(pol)["Queues"]) {
			if ref(qr) == id {
				sts = append(sts, parseStatements(props(pol)["PolicyDocument"])...)
			}
		}
	}
	tls := false
	for _, st := range sts {
		want := map[string]any{"Bool": map[string]any{"aws:SecureTransport": "false"}}
		tls = tls || (st.effect == "Deny" && slices.Contains(st.actions, "sqs:*") && reflect.DeepEqual(st.condition, want))
	}
	if !tls {
		t.Errorf("queue %s: no policy denies requests with aws:SecureTransport=false", id)
	}
	alarms := 0
	for aid, res := range s.resources("AWS::CloudWatch::Alarm") {
		a := props(res)
		dims := list(a["Dimensions"])
		if len(dims) != 1 || getAtt(dims[0].(map[string]any)["Value"], "QueueName") != id {
			continue
		}
		alarms++
		if a["Namespace"] != "AWS/SQS" || a["MetricName"] != "ApproximateNumberOfMessagesVisible" ||
			a["ComparisonOperator"] != "GreaterThanThreshold" || a["Threshold"] != float64(0) || a["TreatMissingData"] != "notBreaching" {
			t.Errorf("alarm %s on queue %s: %v; want ApproximateNumberOfMessagesVisible > 0, missing data not breaching", aid, id, a)
		}
	}
	if alarms != 1 {
		t.Errorf("queue %s: %d alarms; want 1", id, alarms)
	}
	return sts
}

// TestStreamFunctionsReadTheTableStream: every stream function of the
// manifest is invoked by one event source mapping from the events
// table's stream, from the oldest record, with its batch size, partial batch
// failures, bisection, bounded retries and record age, and a dead-letter
// queue; its filter lets only INSERTs of its InsertsOf type through, and
// its role may send to that queue.
func TestStreamFunctionsReadTheTableStream(t *testing.T) {
	for name, s := range map[string]*synthed{"dev": devStack(t), "prod": prodStack(t)} {
		t.Run(name, func(t *testing.T) {
			tableID := s.eventsTableID(t)
			n := 0
			for _, f := range manifest.Functions {
				if f.Stream == nil {
					continue
				}
				n++
				p := props(s.streamMapping(t, f.Slug))
				want := map[string]any{
					"EventSourceArn":             map[string]any{"Fn::GetAtt": []any{tableID, "StreamArn"}},
					"StartingPosition":           "TRIM_HORIZON",
					"BatchSize":                  float64(f.Stream.BatchSize),
					"FunctionResponseTypes":      []any{"ReportBatchItemFailures"},
					"BisectBatchOnFunctionError": true,
					"MaximumRetryAttempts":       float64(streamRetryAttempts),
					"MaximumRecordAgeInSeconds":  streamMaxRecordAge.Seconds(),
				}
				for k, v := range want {
					if !reflect.DeepEqual(p[k], v) {
						t.Errorf("%s mapping: %s = %v; want %v", f.Slug, k, p[k], v)
					}
				}
				if r := streamRetryAttempts; r < 1 || r > 100 {
					t.Errorf("retry attempts %d; want a few, bounded (-1 would retry until the record expires)", r)
				}
				if a := streamMaxRecordAge; a < time.Hour || a >= 24*time.Hour {
					t.Errorf("max record age %v; want under the stream's 24 h retention", a)
				}
				checkFilter(t, f, p["FilterCriteria"])

				dest, _ := p["DestinationConfig"].(map[string]any)["OnFailure"].(map[string]any)
				q := getAtt(dest["Destination"], "Arn")
				s.checkDeadLetterQueue(t, q)
				sends := false
				for _, st := range s.functionStatements(t, f.Slug) {
					if st.effect == "Allow" && slices.Contains(st.actions, "sqs:SendMessage") {
						sends = len(st.resources) == 1 && getAtt(st.resources[0], "Arn") == q
					}
				}
				if !sends {
					t.Errorf("%s may not send to its dead-letter queue %s", f.Slug, q)
				}
			}
			got := 0
			for _, m := range s.resources("AWS::Lambda::EventSourceMapping") {
				if arn, _ := props(m)["EventSourceArn"].(map[string]any)["Fn::GetAtt"].([]any); len(arn) == 2 && arn[1] == "StreamArn" {
					got++
				}
			}
			if got != n || n == 0 {
				t.Errorf("%d event source mappings from the stream; want one per stream function (%d)", got, n)
			}
		})
	}
}

// checkFilter checks a mapping's FilterCriteria: for InsertsOf, one
// pattern that matches INSERTs whose new image's type is that string;
// none otherwise.
func checkFilter(t *testing.T, f manifest.Function, fc any) {
	t.Helper()
	if f.Stream.InsertsOf == "" {
		if fc != nil {
			t.Errorf("%s: FilterCriteria %v; want none (no InsertsOf)", f.Slug, fc)
		}
		return
	}
	filters := list(fc.(map[string]any)["Filters"])
	if len(filters) != 1 {
		t.Fatalf("%s: filters %v; want one", f.Slug, filters)
	}
	var got any
	if err := json.Unmarshal([]byte(filters[0].(map[string]any)["Pattern"].(string)), &got); err != nil {
		t.Fatalf("%s: pattern: %v", f.Slug, err)
	}
	want := map[string]any{
		"eventName": []any{"INSERT"},
		"dynamodb":  map[string]any{"NewImage": map[string]any{"type": map[string]any{"S": []any{f.Stream.InsertsOf}}}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s: filter pattern %v; want %v", f.Slug, got, want)
	}
}

// TestDispatcherSeesOnlyInsertedEvents pins the dispatcher's trigger: the
// table's event items (type "event", dynamo.EventItemType), as inserted,
// ten at a time.
func TestDispatcherSeesOnlyInsertedEvents(t *testing.T) {
	f, ok := manifest.BySlug("webhook-dispatcher")
	if !ok || f.Stream == nil {
		t.Fatal("no stream function webhook-dispatcher in the manifest")
	}
	if f.Stream.InsertsOf != "event" || f.Stream.BatchSize != 10 {
		t.Errorf("webhook-dispatcher: InsertsOf %q BatchSize %d; want event and 10", f.Stream.InsertsOf, f.Stream.BatchSize)
	}
	checkFilter(t, f, props(devStack(t).streamMapping(t, f.Slug))["FilterCriteria"])
}

func TestStreamFilter(t *testing.T) {
	if got := streamFilter(manifest.StreamTrigger{BatchSize: 10}); got != nil {
		t.Errorf("streamFilter without InsertsOf = %v; want nil", got)
	}
	if got := streamFilters(manifest.StreamTrigger{BatchSize: 10}); got != nil {
		t.Errorf("streamFilters without InsertsOf = %v; want nil", got)
	}
	got := streamFilter(manifest.StreamTrigger{InsertsOf: "event"})
	b, _ := json.Marshal(got)
	if want := `{"dynamodb":{"NewImage":{"type":{"S":["event"]}}},"eventName":["INSERT"]}`; string(b) != want {
		t.Errorf("streamFilter = %s; want %s", b, want)
	}
}

// TestMappingWaitsForItsGrants: CloudFormation refuses an event source
// mapping whose function's role cannot read the stream yet, so the
// mapping must depend (through its function) on the policy that grants
// it. (A queue's mapping: see TestQueues.)
func TestMappingWaitsForItsGrants(t *testing.T) {
	s := devStack(t)
	deps := dependencies(s.json)
	for id, res := range s.resources("AWS::Lambda::EventSourceMapping") {
		if arn, _ := props(res)["EventSourceArn"].(map[string]any)["Fn::GetAtt"].([]any); len(arn) != 2 || arn[1] != "StreamArn" {
			continue
		}
		fn := props(s.resources("AWS::Lambda::Function")[ref(props(res)["FunctionName"])])
		role := getAtt(fn["Role"], "Arn")
		var policy string
		for pid, pol := range s.resources("AWS::IAM::Policy") {
			if !slices.ContainsFunc(list(props(pol)["Roles"]), func(r any) bool { return ref(r) == role }) {
				continue
			}
			for _, st := range parseStatements(props(pol)["PolicyDocument"]) {
				if slices.Contains(st.actions, "dynamodb:GetRecords") && len(st.resources) == 1 && s.isStreamArn(st.resources[0]) {
					policy = pid
				}
			}
		}
		if policy == "" {
			t.Errorf("mapping %s: no policy of its function's role %s grants dynamodb:GetRecords on the stream", id, role)
			continue
		}
		if !reaches(deps, id, policy) {
			t.Errorf("mapping %s does not depend on %s, which grants its stream reads", id, policy)
		}
	}
}

// reaches reports whether from depends on to, directly or not.
func reaches(deps map[string][]string, from, to string) bool {
	seen := map[string]bool{}
	var walk func(n string) bool
	walk = func(n string) bool {
		if n == to {
			return true
		}
		if seen[n] {
			return false
		}
		seen[n] = true
		return slices.ContainsFunc(deps[n], walk)
	}
	return walk(from)
}

// TestScheduledFunctionsHaveARule: every schedule function of the
// manifest is the one target of one enabled EventBridge rule with its
// expression, with a retry policy and a dead-letter queue that only that
// rule may send to; the rule, and no other, may invoke the function.
func TestScheduledFunctionsHaveARule(t *testing.T) {
	s := devStack(t)
	rules := s.resources("AWS::Events::Rule")
	n := 0
	for _, f := range manifest.Functions {
		if f.Schedule == nil {
			continue
		}
		n++
		fid := s.functionIDs(t)[f.Slug]
		rule := s.scheduleRule(t, f.Slug)
		ruleID := ""
		for id, r := range rules {
			if reflect.DeepEqual(r, rule) {
				ruleID = id
			}
		}
		p := props(rule)
		if p["ScheduleExpression"] != f.Schedule.Expression || p["State"] != "ENABLED" || p["EventPattern"] != nil {
			t.Errorf("%s rule: ScheduleExpression %v State %v EventPattern %v; want %q, ENABLED, none",
				f.Slug, p["ScheduleExpression"], p["State"], p["EventPattern"], f.Schedule.Expression)
		}
		targets := list(p["Targets"])
		if len(targets) != 1 {
			t.Fatalf("%s rule: %d targets; want 1", f.Slug, len(targets))
		}
		tg := targets[0].(map[string]any)
		retry, _ := tg["RetryPolicy"].(map[string]any)
		if retry["MaximumRetryAttempts"] != float64(scheduleRetryAttempts) || retry["MaximumEventAgeInSeconds"] != scheduleMaxEventAge(*f.Schedule).Seconds() {
			t.Errorf("%s rule: RetryPolicy %v; want %d attempts within %v", f.Slug, retry, scheduleRetryAttempts, scheduleMaxEventAge(*f.Schedule))
		}
		q := getAtt(tg["DeadLetterConfig"].(map[string]any)["Arn"], "Arn")
		var eventsMay int
		for _, st := range s.checkDeadLetterQueue(t, q) {
			if st.effect == "Allow" && slices.Contains(st.actions, "sqs:SendMessage") {
				eventsMay++
				want := map[string]any{"ArnEquals": map[string]any{"aws:SourceArn": map[string]any{"Fn::GetAtt": []any{ruleID, "Arn"}}}}
				if !reflect.DeepEqual(st.condition, want) {
					t.Errorf("%s: queue policy lets %v send; want only rule %s", f.Slug, st.condition, ruleID)
				}
			}
		}
		if eventsMay != 1 {
			t.Errorf("%s: %d statements let EventBridge send to the dead-letter queue; want 1", f.Slug, eventsMay)
		}
		var perms []string
		for id, res := range s.resources("AWS::Lambda::Permission") {
			pp := props(res)
			if getAtt(pp["FunctionName"], "Arn") != fid {
				continue
			}
			perms = append(perms, id)
			if pp["Principal"] != "events.amazonaws.com" || getAtt(pp["SourceArn"], "Arn") != ruleID || pp["Action"] != "lambda:InvokeFunction" {
				t.Errorf("%s: permission %s = %v; want only its rule to invoke it", f.Slug, id, pp)
			}
		}
		if len(perms) != 1 {
			t.Errorf("%s: permissions %v; want one, for its rule", f.Slug, perms)
		}
	}
	if len(rules) != n || n == 0 {
		t.Errorf("%d rules; want one per schedule function (%d)", len(rules), n)
	}
}

func TestScheduleMaxEventAge(t *testing.T) {
	for expr, want := range map[string]time.Duration{
		"rate(1 minute)": time.Minute, "rate(5 minutes)": 5 * time.Minute, "rate(1 day)": time.Hour, "cron(0 3 * * ? *)": time.Hour,
	} {
		if got := scheduleMaxEventAge(manifest.ScheduleTrigger{Expression: expr}); got != want {
			t.Errorf("scheduleMaxEventAge(%s) = %v; want %v", expr, got, want)
		}
	}
}

// TestOverdueDeliveriesAlarm: the retrier's report of its most overdue
// delivery alarms above 5 minutes for 3 minutes running, and when it
// stops reporting.
func TestOverdueDeliveriesAlarm(t *testing.T) {
	s := devStack(t)
	want := map[string]any{
		"Namespace":          manifest.MetricNamespace,
		"MetricName":         manifest.MetricWebhookMostOverdue,
		"Dimensions":         []any{map[string]any{"Name": "Function", "Value": "webhook-retrier"}},
		"Statistic":          "Maximum",
		"Period":             float64(60),
		"Threshold":          float64(300),
		"EvaluationPeriods":  float64(3),
		"DatapointsToAlarm":  float64(3),
		"ComparisonOperator": "GreaterThanThreshold",
		"TreatMissingData":   "breaching",
	}
	var found []string
	for id, res := range s.resources("AWS::CloudWatch::Alarm") {
		p := props(res)
		if p["Namespace"] != manifest.MetricNamespace {
			continue
		}
		found = append(found, id)
		for k, v := range want {
			if !reflect.DeepEqual(p[k], v) {
				t.Errorf("alarm %s: %s = %v; want %v", id, k, p[k], v)
			}
		}
		if tag(p, functionTag) != "webhook-retrier" {
			t.Errorf("alarm %s is not tagged as webhook-retrier's", id)
		}
	}
	if len(found) != 1 {
		t.Errorf("alarms on %s metrics %v; want one", manifest.MetricNamespace, found)
	}
}

// TestJobAlarmsNameScheduledFunctions: each job alarm names a schedule
// function of the manifest and a metric the manifest declares, so that
// renaming either cannot drop an alarm silently.
func TestJobAlarmsNameScheduledFunctions(t *testing.T) {
	metrics := []string{manifest.MetricWebhookMostOverdue, manifest.MetricWebhookDue}
	for _, j := range jobAlarms {
		if f, ok := manifest.BySlug(j.slug); !ok || f.Schedule == nil {
			t.Errorf("job alarm %s: %q is not a schedule function of the manifest", j.id, j.slug)
		}
		if !slices.Contains(metrics, j.name) {
			t.Errorf("job alarm %s: metric %q is not a manifest.Metric* name", j.id, j.name)
		}
	}
	if len(jobAlarms) == 0 {
		t.Error("no job alarms: the retrier's overdue alarm is missing")
	}
}

// TestNoFunctionAllowsLoopback: WEBHOOK_ALLOW_LOOPBACK, which lets
// webhook deliveries reach the machine's own addresses, is for make dev
// only: no function of either environment's stack has it, and it appears
// nowhere in the template.
func TestNoFunctionAllowsLoopback(t *testing.T) {
	for name, s := range map[string]*synthed{"dev": devStack(t), "prod": prodStack(t)} {
		t.Run(name, func(t *testing.T) {
			for id, res := range s.resources("AWS::Lambda::Function") {
				env, _ := props(res)["Environment"].(map[string]any)
				vars, _ := env["Variables"].(map[string]any)
				if _, ok := vars[settings.WebhookAllowLoopback]; ok {
					t.Errorf("function %s sets %s", id, settings.WebhookAllowLoopback)
				}
			}
			b, err := json.Marshal(s.json)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(string(b), settings.WebhookAllowLoopback) {
				t.Errorf("the template mentions %s", settings.WebhookAllowLoopback)
			}
		})
	}
}
