package samcheck

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/awslabs/goformation/v7/cloudformation"
	"github.com/awslabs/goformation/v7/cloudformation/global"
	"github.com/awslabs/goformation/v7/cloudformation/serverless"
	"github.com/awslabs/goformation/v7/intrinsics"

	"github.com/moveleads/partnerapi/scripts/build/lambdafn"
	"github.com/moveleads/partnerapi/shared/app/pipeline/idempotency"
	"github.com/moveleads/partnerapi/shared/spec/manifest"
	"github.com/moveleads/partnerapi/shared/spec/settings"
	"github.com/moveleads/partnerapi/shared/spec/table"
	"github.com/moveleads/partnerapi/shared/wire/awsenv"
)

const (
	repoRoot     = "../../.."
	templatePath = repoRoot + "/template.yaml"
)

// What every function must be, as deployed (infra/stack).
const (
	wantRuntime = "provided.al2023"
	wantArch    = "arm64"
	wantHandler = "bootstrap"
)

// localSecretEnv is the variable through which a local function receives
// each secret as a value (settings.SecretVar; the deployment passes an ARN
// in <variable>_ARN instead). A function listing a secret missing there
// fails the test.
func localSecretEnv(name string) string { return settings.SecretVar(name) }

// function is one function of the template as SAM sees it: its own
// properties with the template's Globals.Function merged in.
type function struct {
	id          string
	codeURI     string
	buildMethod any
	runtime     string
	handler     string
	arch        []string
	memory      int
	timeout     int
	env         map[string]string
	events      map[string]serverless.Function_EventSource
	// rawEvents are the function's events as the template spells them
	// (intrinsics resolved): goformation's types drop what they do not
	// model (a DynamoDB event's FunctionResponseTypes and FilterCriteria).
	rawEvents    map[string]map[string]any
	resourceType string
	description  string
}

// processorOptions resolve intrinsics as SAM would locally: Refs to
// parameters as their defaults, to resources as their logical ids.
func processorOptions() *intrinsics.ProcessorOptions {
	return &intrinsics.ProcessorOptions{
		IntrinsicHandlerOverrides: map[string]intrinsics.IntrinsicHandler{"Ref": refOrResource},
	}
}

func openTemplate(t *testing.T) *cloudformation.Template {
	t.Helper()
	// What goformation.OpenWithOptions does after processing the YAML, on
	// a fresh Template each call: callers mutate what they get.
	tpl := &cloudformation.Template{}
	if err := json.Unmarshal(rawTemplate(t), tpl); err != nil {
		t.Fatalf("parse %s: %v", templatePath, err)
	}
	return tpl
}

// rawTemplate returns the template as JSON with its intrinsics resolved
// (processorOptions) but nothing dropped: what goformation's types do not
// model is still there. The file is processed once per test binary (the
// slow part); each caller gets its own copy.
func rawTemplate(t *testing.T) []byte {
	t.Helper()
	processed := processTemplate()
	if processed.err != nil {
		t.Fatalf("process %s: %v", templatePath, processed.err)
	}
	return bytes.Clone(processed.json)
}

// processTemplate reads and processes the template once.
var processTemplate = sync.OnceValue(func() (out struct {
	json []byte
	err  error
}) {
	data, err := os.ReadFile(templatePath)
	if err != nil {
		out.err = err
		return out
	}
	out.json, out.err = intrinsics.ProcessYAML(data, processorOptions())
	return out
})

// rawEvents returns the Events of every resource of the template, by
// logical id and event name, as the template spells them.
func rawEvents(t *testing.T) map[string]map[string]map[string]any {
	t.Helper()
	var tpl struct {
		Resources map[string]struct {
			Properties struct {
				Events map[string]map[string]any
			}
		}
	}
	if err := json.Unmarshal(rawTemplate(t), &tpl); err != nil {
		t.Fatalf("decode %s: %v", templatePath, err)
	}
	out := map[string]map[string]map[string]any{}
	for id, r := range tpl.Resources {
		out[id] = r.Properties.Events
	}
	return out
}

// refOrResource resolves a Ref as goformation does (a parameter's default,
// a pseudo parameter's example), and a Ref to a resource of the template,
// which goformation drops, to the resource's logical id, so that an S3
// event's Bucket: !Ref ClipBucket reads "ClipBucket".
func refOrResource(name string, input, template any) any {
	if v := intrinsics.Ref(name, input, template); v != nil {
		return v
	}
	id, _ := input.(string)
	tpl, _ := template.(map[string]any)
	if res, _ := tpl["Resources"].(map[string]any); res != nil && res[id] != nil {
		return id
	}
	return nil
}

// functions returns the template's serverless functions by logical id, with
// Globals.Function applied the way SAM applies it: a function's own scalar
// properties win, Environment.Variables maps are merged.
func functions(t *testing.T, tpl *cloudformation.Template) map[string]function {
	t.Helper()
	g := &global.Function{}
	if gf, err := tpl.GetServerlessGlobalFunction(); err == nil {
		g = gf
	}
	out := map[string]function{}
	raw := rawEvents(t)
	for id, f := range tpl.GetAllServerlessFunctionResources() {
		fn := function{id: id, env: map[string]string{}, events: f.Events, rawEvents: raw[id], resourceType: f.AWSCloudFormationType()}
		if f.CodeUri != nil && f.CodeUri.String != nil {
			fn.codeURI = *f.CodeUri.String
		}
		fn.buildMethod = f.AWSCloudFormationMetadata["BuildMethod"]
		fn.runtime = pick(f.Runtime, g.Runtime)
		fn.handler = pick(f.Handler, g.Handler)
		fn.memory = pick(f.MemorySize, g.MemorySize)
		fn.timeout = pick(f.Timeout, g.Timeout)
		if f.Description != nil {
			fn.description = *f.Description
		}
		fn.arch = f.Architectures
		if fn.arch == nil && g.Architectures != nil {
			fn.arch = *g.Architectures
		}
		if g.Environment != nil {
			for k, v := range g.Environment.Variables {
				fn.env[k] = v
			}
		}
		if f.Environment != nil {
			for k, v := range f.Environment.Variables {
				fn.env[k] = v
			}
		}
		out[id] = fn
	}
	return out
}

// freshFunctions is functions(t, tpl) with each function's events decoded
// anew from their JSON (the template's own decoding of them, which it
// checks), so that a mutation of fns never reaches tpl; decoding the whole
// template again per case was most of TestChecksCatchMistakes' time.
func freshFunctions(t *testing.T, tpl *cloudformation.Template) map[string]function {
	t.Helper()
	fns := functions(t, tpl)
	for id, fn := range fns {
		fresh := make(map[string]serverless.Function_EventSource, len(fn.rawEvents))
		for name, raw := range fn.rawEvents {
			data, err := json.Marshal(raw)
			if err != nil {
				t.Fatal(err)
			}
			var ev serverless.Function_EventSource
			if err := json.Unmarshal(data, &ev); err != nil {
				t.Fatalf("%s event %s: %v", id, name, err)
			}
			fresh[name] = ev
		}
		if len(fresh) == 0 && len(fn.events) == 0 {
			continue // nothing to share
		}
		if !reflect.DeepEqual(fresh, fn.events) {
			t.Fatalf("%s: events decoded alone %+v; want the template's %+v", id, fresh, fn.events)
		}
		fn.events = fresh
		fns[id] = fn
	}
	return fns
}

// pick returns *own, else *global, else the zero value.
func pick[T any](own, global *T) T {
	switch {
	case own != nil:
		return *own
	case global != nil:
		return *global
	}
	var zero T
	return zero
}

func TestTemplateIsSAM(t *testing.T) {
	tpl := openTemplate(t)
	if tpl.Transform == nil || tpl.Transform.String == nil || *tpl.Transform.String != "AWS::Serverless-2016-10-31" {
		t.Errorf("Transform is not AWS::Serverless-2016-10-31")
	}
}

// TestTemplateHasOneFunctionPerManifestEntry compares the template's
// functions with manifest.Functions through the shared logical-id rule.
func TestTemplateHasOneFunctionPerManifestEntry(t *testing.T) {
	report(t, checkPresence(functions(t, openTemplate(t)), manifest.Functions))
}

// checkPresence reports each manifest function the template lacks and each
// template function no manifest entry names.
func checkPresence(fns map[string]function, entries []manifest.Function) []string {
	var problems []string
	want := map[string]bool{}
	for _, f := range entries {
		id := lambdafn.LogicalID(f.Slug)
		want[id] = true
		if _, ok := fns[id]; !ok {
			problems = append(problems, fmt.Sprintf(
				"template.yaml has no %s for manifest function %s (functions/%s): add it as an AWS::Serverless::Function like the others",
				id, f.Slug, f.Slug))
		}
	}
	for _, id := range slices.Sorted(mapKeys(fns)) {
		if !want[id] {
			problems = append(problems, fmt.Sprintf("template.yaml declares %s, which no manifest function names (logical id = lambdafn.LogicalID(slug))", id))
		}
	}
	return problems
}

func TestTemplateFunctions(t *testing.T) {
	tpl := openTemplate(t)
	fns := functions(t, tpl)
	for _, f := range manifest.Functions {
		id := lambdafn.LogicalID(f.Slug)
		t.Run(id, func(t *testing.T) {
			fn, ok := fns[id]
			if !ok {
				t.Fatalf("template has no function %s for %s", id, f.Slug)
			}
			report(t, checkFunction(tpl, fn, f))
		})
	}
}

// checkFunction reports every way fn, the template's function for f,
// differs from what f needs to run as deployed.
func checkFunction(tpl *cloudformation.Template, fn function, f manifest.Function) []string {
	var problems []string
	problems = append(problems, checkBuild(fn, f)...)
	problems = append(problems, checkEvents(tpl, fn, f)...)
	problems = append(problems, checkEnvironment(fn, f)...)
	if fn.memory <= 0 {
		problems = append(problems, fmt.Sprintf("MemorySize %d; want it set (Globals or the function)", fn.memory))
	}
	// The CDK stack takes the description from the manifest; the local
	// template must say the same, or sam local describes a stale function.
	if want := f.Description(); fn.description != want {
		problems = append(problems, fmt.Sprintf("Description %q; want the manifest's %q", fn.description, want))
	}
	// A duplicate request waits up to idempotency.DefaultWait for the
	// first one; the function must outlive that wait.
	if idempotent(f) && time.Duration(fn.timeout)*time.Second <= idempotency.DefaultWait {
		problems = append(problems, fmt.Sprintf("Timeout %ds; an idempotent route needs more than idempotency.DefaultWait (%v)", fn.timeout, idempotency.DefaultWait))
	}
	if fn.timeout <= 0 {
		problems = append(problems, fmt.Sprintf("Timeout %d; want it set", fn.timeout))
	}
	// A stream or schedule function works far longer than a request (a
	// batch of deliveries, a tick's passes): it sets its own timeout, as
	// infra/stack's timeout() gives it, not the HTTP functions' 10 s.
	if kind := f.Trigger(); (kind == manifest.TriggerStream || kind == manifest.TriggerSchedule || f.Detect) && fn.timeout < minJobTimeout {
		problems = append(problems, fmt.Sprintf("Timeout %ds; a %s function's is at least %d s (infra/stack timeout())", fn.timeout, kind, minJobTimeout))
	}
	return problems
}

// minJobTimeout is the shortest timeout, in seconds, of a stream- or
// schedule-triggered function (infra/stack: scheduleTimeout, and a
// stream's 30 s per record of a batch) and of one that runs the frames'
// detector (manifest.DetectTimeout, then the settle: s3Timeout).
const minJobTimeout = 60

// report fails t with each problem, naming the template.
func report(t *testing.T, problems []string) {
	t.Helper()
	for _, p := range problems {
		t.Errorf("%s: %s", templatePath, p)
	}
}

func mapKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// idempotent reports whether a request to f may wait for a concurrent
// duplicate: one of its routes is idempotent, or it serves the agent tool
// server (manifest.AgentTools), whose tools pass their idempotency_key to
// the idempotent operations of manifest.AgentToolOperations they run
// (infra/stack's waitsForDuplicates, the same rule).
func idempotent(f manifest.Function) bool {
	return slices.ContainsFunc(f.HTTP, func(r manifest.Route) bool {
		return r.Idempotent || (r.Operation == manifest.AgentTools &&
			slices.ContainsFunc(manifest.AgentToolOperations, func(op manifest.Operation) bool {
				return manifest.ByOperation(op).Idempotent
			}))
	})
}

func checkBuild(fn function, f manifest.Function) []string {
	var problems []string
	if fn.codeURI != "." && fn.codeURI != "functions/"+f.Slug {
		problems = append(problems, fmt.Sprintf("CodeUri %q; want . (the Makefile's folder)", fn.codeURI))
	}
	if fn.buildMethod != "makefile" {
		problems = append(problems, fmt.Sprintf("Metadata.BuildMethod %v; want makefile", fn.buildMethod))
	}
	if fn.runtime != wantRuntime {
		problems = append(problems, fmt.Sprintf("Runtime %q; want %q", fn.runtime, wantRuntime))
	}
	if fn.handler != wantHandler {
		problems = append(problems, fmt.Sprintf("Handler %q; want %q", fn.handler, wantHandler))
	}
	if !slices.Equal(fn.arch, []string{wantArch}) {
		problems = append(problems, fmt.Sprintf("Architectures %q; want [%s]", fn.arch, wantArch))
	}
	return problems
}

// s3Events is the only S3 event type the deployment subscribes to
// (infra/stack: awss3.EventType_OBJECT_CREATED).
const s3Events = "s3:ObjectCreated:*"

// wantEvents returns f's events, each as one line: "HttpApi METHOD PATH"
// for a partner route's method on its pilot and logical paths, "HttpApi
// ANY $default" for the $default route (SAM's spelling of API Gateway's
// $default route), "S3 <bucket> s3:ObjectCreated:* prefix=P[ suffix=S]"
// for an S3 trigger, whose bucket is the template's AWS::S3::Bucket
// (logical id clipBucketID), "DynamoDB ..." for a stream trigger (see
// streamEvent) and "Schedule <expression>" for a schedule. A trigger kind
// this check does not know yet is a problem.
func wantEvents(f manifest.Function) ([]string, []string) {
	switch kind := f.Trigger(); kind {
	case manifest.TriggerHTTP:
		var want []string
		for _, r := range f.HTTP {
			if r.IsDefault() {
				want = append(want, "HttpApi "+manifest.AnyMethod+" "+manifest.DefaultPath)
				continue
			}
			for _, p := range r.Paths() {
				for _, m := range r.Methods() {
					want = append(want, "HttpApi "+m+" "+p)
				}
			}
		}
		return want, nil
	case manifest.TriggerS3:
		return []string{s3Event(clipBucketID, s3Events, f.S3.Prefix, f.S3.Suffix)}, nil
	case manifest.TriggerStream:
		return []string{streamEvent(wantStreamArn, "TRIM_HORIZON", f.Stream.BatchSize, reportFailures, wantStreamFilter(*f.Stream))}, nil
	case manifest.TriggerSchedule:
		return []string{"Schedule " + f.Schedule.Expression}, nil
	case manifest.TriggerQueue:
		return []string{queueEvent(wantQueueArn(f.Queue.Name), f.Queue.BatchSize, reportFailures, f.Queue.MaxConcurrency)}, nil
	default:
		return nil, []string{fmt.Sprintf("trigger %q: template.yaml and this check declare only HttpApi, S3, DynamoDB, Schedule and SQS events yet; add the %s event to both", kind, kind)}
	}
}

// wantStreamArn is what a DynamoDB event's Stream resolves to: the
// placeholder ARN of make dev's events table's stream (the parameter EventsTableName's
// default, the pseudo parameters' examples), which sam local never reads.
var wantStreamArn = "arn:aws:dynamodb:us-east-1:123456789012:table/" + table.EventsName(table.DefaultName) + "/stream/local"

// reportFailures is the FunctionResponseTypes of a DynamoDB event: the
// functions report partial batch failures (shared/edge/streamevent).
const reportFailures = "ReportBatchItemFailures"

// wantStreamFilter is the filter pattern of a StreamTrigger (the
// manifest's FilterPattern, which infra/stack deploys); nil without
// InsertsOf.
func wantStreamFilter(st manifest.StreamTrigger) any {
	if p := st.FilterPattern(); p != nil {
		return p
	}
	return nil
}

// streamEvent is the line of a DynamoDB event: its stream, starting
// position, batch size, response types and filter pattern (canonical
// JSON, "none" without).
func streamEvent(stream, start string, batch int, responses string, pattern any) string {
	filter := "none"
	if pattern != nil {
		b, _ := json.Marshal(pattern) // maps marshal with sorted keys
		filter = string(b)
	}
	return fmt.Sprintf("DynamoDB stream=%s start=%s batch=%d responses=%s filter=%s", stream, start, batch, responses, filter)
}

// wantQueueArn is what an SQS event's Queue resolves to: a placeholder
// ARN of the queue called name, which sam local never reads.
func wantQueueArn(name string) string { return "arn:aws:sqs:us-east-1:123456789012:" + name }

// queueEvent is the line of an SQS event: its queue, batch size, response
// types and maximum concurrency.
func queueEvent(queue string, batch int, responses string, concurrency int) string {
	return fmt.Sprintf("SQS queue=%s batch=%d responses=%s concurrency=%d", queue, batch, responses, concurrency)
}

// clipBucketID is the logical id of the template's clip bucket, the one
// bucket S3 events may name.
const clipBucketID = "ClipBucket"

func s3Event(bucket, events, prefix, suffix string) string {
	line := "S3 " + bucket + " " + events + " prefix=" + prefix
	if suffix != "" {
		line += " suffix=" + suffix
	}
	return line
}

// checkEvents requires exactly f's events (wantEvents): HttpApi events on
// the template's one (implicit) HTTP API with payload format 2.0, S3
// events on the template's clip bucket, DynamoDB events on the local
// table's stream, and Schedule events.
func checkEvents(tpl *cloudformation.Template, fn function, f manifest.Function) []string {
	var problems, got []string
	for _, name := range slices.Sorted(mapKeys(fn.events)) {
		ev := fn.events[name]
		switch {
		case ev.Type == "DynamoDB" || ev.Type == "Schedule" || ev.Type == "SQS":
			line, ps := rawEvent(name, fn.rawEvents[name])
			problems = append(problems, ps...)
			got = append(got, line)
		case ev.Type == "HttpApi" && ev.Properties != nil && ev.Properties.HttpApiEvent != nil:
			h := ev.Properties.HttpApiEvent
			if h.Method == nil || h.Path == nil {
				problems = append(problems, fmt.Sprintf("event %s: Method or Path missing (an implicit catch-all route)", name))
				continue
			}
			if h.ApiId != nil {
				problems = append(problems, fmt.Sprintf("event %s: ApiId %q; every route belongs on the one implicit HTTP API", name, *h.ApiId))
			}
			if h.PayloadFormatVersion != nil && *h.PayloadFormatVersion != "2.0" {
				problems = append(problems, fmt.Sprintf("event %s: PayloadFormatVersion %q; the handlers read payload 2.0", name, *h.PayloadFormatVersion))
			}
			got = append(got, "HttpApi "+*h.Method+" "+*h.Path)
		case ev.Type == "S3" && ev.Properties != nil && ev.Properties.S3Event != nil:
			e := ev.Properties.S3Event
			if b, ok := tpl.Resources[e.Bucket]; !ok || b.AWSCloudFormationType() != "AWS::S3::Bucket" {
				problems = append(problems, fmt.Sprintf("event %s: Bucket %q; want !Ref %s, the template's AWS::S3::Bucket", name, e.Bucket, clipBucketID))
			}
			var events []string
			if e.Events != nil && e.Events.String != nil {
				events = []string{*e.Events.String}
			} else if e.Events != nil && e.Events.StringArray != nil {
				events = slices.Sorted(slices.Values(*e.Events.StringArray))
			}
			rules := map[string]string{}
			if e.Filter != nil && e.Filter.S3Key != nil {
				for _, r := range e.Filter.S3Key.Rules {
					rules[strings.ToLower(r.Name)] = r.Value
				}
			}
			got = append(got, s3Event(e.Bucket, strings.Join(events, ","), rules["prefix"], rules["suffix"]))
		default:
			problems = append(problems, fmt.Sprintf("event %s: type %q; want HttpApi with Method and Path, S3 with Bucket, Events and Filter, DynamoDB, Schedule or SQS", name, ev.Type))
		}
	}
	want, unknown := wantEvents(f)
	problems = append(problems, unknown...)
	sort.Strings(got)
	sort.Strings(want)
	if unknown == nil && !slices.Equal(got, want) {
		problems = append(problems, fmt.Sprintf("events %q; want exactly %q", got, want))
	}
	return problems
}

// rawEvent returns the line of a DynamoDB or Schedule event (see
// wantEvents) from its raw form, and its problems: a property this check
// does not know (it would go unchecked), a filter that is not JSON.
func rawEvent(name string, ev map[string]any) (string, []string) {
	var problems []string
	p, _ := ev["Properties"].(map[string]any)
	known := map[string][]string{
		"DynamoDB": {"Stream", "StartingPosition", "BatchSize", "FunctionResponseTypes", "FilterCriteria"},
		"Schedule": {"Schedule"},
		"SQS":      {"Queue", "BatchSize", "FunctionResponseTypes", "ScalingConfig"},
	}[fmt.Sprint(ev["Type"])]
	for _, k := range slices.Sorted(mapKeys(p)) {
		if !slices.Contains(known, k) {
			problems = append(problems, fmt.Sprintf("event %s: property %s, which this check does not know (want only %q)", name, k, known))
		}
	}
	if ev["Type"] == "Schedule" {
		return fmt.Sprintf("Schedule %v", p["Schedule"]), problems
	}
	var responses []string
	for _, r := range list(p["FunctionResponseTypes"]) {
		responses = append(responses, fmt.Sprint(r))
	}
	if ev["Type"] == "SQS" {
		batch, _ := p["BatchSize"].(float64)
		sc, _ := p["ScalingConfig"].(map[string]any)
		conc, _ := sc["MaximumConcurrency"].(float64)
		return queueEvent(fmt.Sprint(p["Queue"]), int(batch), strings.Join(responses, ","), int(conc)), problems
	}
	var pattern any
	fc, _ := p["FilterCriteria"].(map[string]any)
	filters := list(fc["Filters"])
	switch {
	case len(filters) > 1:
		problems = append(problems, fmt.Sprintf("event %s: %d filters; want at most one", name, len(filters)))
	case len(filters) == 1:
		f, _ := filters[0].(map[string]any)
		src, _ := f["Pattern"].(string)
		if err := json.Unmarshal([]byte(src), &pattern); err != nil {
			problems = append(problems, fmt.Sprintf("event %s: filter pattern %q is not JSON: %v", name, src, err))
		}
	}
	batch, _ := p["BatchSize"].(float64)
	return streamEvent(fmt.Sprint(p["Stream"]), fmt.Sprint(p["StartingPosition"]), int(batch), strings.Join(responses, ","), pattern), problems
}

// list returns v as a list (a lone value becomes a list of one).
func list(v any) []any {
	switch x := v.(type) {
	case nil:
		return nil
	case []any:
		return x
	default:
		return []any{x}
	}
}

// usesBucket reports whether f reads or writes the clip bucket, or is
// started by it: it gets CLIP_BUCKET and AWS_ENDPOINT_URL_S3.
func usesBucket(f manifest.Function) bool {
	return len(f.Bucket.Read) > 0 || len(f.Bucket.Write) > 0 || f.S3 != nil
}

// needsBaseURL reports whether f gets PUBLIC_BASE_URL: it mints capture,
// video or quote page links (writes capture-token, view-token or
// quote-page-token records) or serves a token-in-path page or the
// dashboard (its passkeys' relying party and Origin). The same rule
// as infra/stack's needsBaseURL (the manifest has no field for a
// function's settings yet); TestSettingsPinned and its twin in
// infra/stack pin both to the same functions.
func needsBaseURL(f manifest.Function) bool {
	for _, k := range []string{table.CaptureTokenKeys, table.ViewTokenKeys, table.QuoteTokenKeys} {
		if slices.Contains(f.Table.Write, k) {
			return true
		}
	}
	return slices.ContainsFunc(f.HTTP, func(r manifest.Route) bool {
		return r.Auth.TokenInPath() || r.Auth == manifest.AuthDashboardSession
	})
}

// callsStripe reports whether f gets STRIPE_API_URL: it calls Stripe's
// API, which it can only do with the platform's keys (it lists
// manifest.SecretStripeKeys). The webhook receiver verifies signatures
// and calls nothing. The deployment never sets the variable (Stripe
// itself); locally it points at stripe-mock.
func callsStripe(f manifest.Function) bool {
	return slices.Contains(f.Secrets, manifest.SecretStripeKeys)
}

// The local defaults of the bucket settings' parameters.
const (
	wantClipBucket = "moveleads-clips-local" // scripts/devstack: clipBucket
	wantBaseURL    = "http://127.0.0.1:3001" // samconfig.toml: sam local start-api's port
)

// checkEnvironment requires the table settings on every function, each
// secret's local variable exactly on the functions that list it, the
// bucket's name and S3 endpoint exactly on the functions that use the
// bucket, the public base URL exactly on those that need it, the
// Stripe API's URL exactly on those that call Stripe, and the allowed
// browser origins (empty by default) exactly on the function that takes
// the agent key (manifest.Function.TakesAgentKey); and it
// refuses settings.WebhookAllowLoopback anywhere: it is make dev's alone
// (its own stack), and a variable the template declares would take
// make dev's value from the env-vars file.
func checkEnvironment(fn function, f manifest.Function) []string {
	var problems []string
	if _, ok := fn.env[settings.WebhookAllowLoopback]; ok {
		problems = append(problems, fmt.Sprintf("%s declared; it is for make dev alone, never a function of the template (the deployment never sets it either)", settings.WebhookAllowLoopback))
	}
	if v, ok := fn.env[settings.Table]; !ok || v != table.DefaultName {
		problems = append(problems, fmt.Sprintf("%s = %q (set: %v); want the parameter defaulting to make dev's table %q", settings.Table, v, ok, table.DefaultName))
	}
	if v, ok := fn.env["AWS_ENDPOINT_URL_DYNAMODB"]; !ok || v != "" {
		problems = append(problems, fmt.Sprintf("AWS_ENDPOINT_URL_DYNAMODB = %q (set: %v); want it declared, empty by default (real DynamoDB)", v, ok))
	}
	for _, s := range f.Secrets {
		if localSecretEnv(s) == "" {
			problems = append(problems, fmt.Sprintf("function lists secret %q, which has no local variable in settings.SecretVar", s))
		}
	}
	for _, secret := range manifest.Secrets {
		name := localSecretEnv(secret)
		if _, ok := fn.env[name+"_ARN"]; ok {
			problems = append(problems, fmt.Sprintf("%s_ARN is set; locally the secret is passed by value (%s)", name, name))
		}
		_, has := fn.env[name]
		if wants := slices.Contains(f.Secrets, secret); has != wants {
			problems = append(problems, fmt.Sprintf("%s declared: %v; want %v (Secrets %q)", name, has, wants, f.Secrets))
		}
	}
	for _, v := range []struct {
		name, def string
		want      bool
		why       string
	}{
		{settings.EventsTable, table.EventsName(table.DefaultName), f.UsesEvents(), "functions that read or write webhook events"},
		{settings.ClipBucket, wantClipBucket, usesBucket(f), "functions with bucket grants or an S3 trigger"},
		{"AWS_ENDPOINT_URL_S3", "", usesBucket(f), "functions with bucket grants or an S3 trigger (empty: real S3)"},
		{settings.PublicBaseURL, wantBaseURL, needsBaseURL(f), "functions that mint capture, video or quote page links or serve a token page"},
		{settings.StripeAPIURL, "", callsStripe(f), "functions that call Stripe's API (empty: Stripe itself)"},
		{settings.AgentToolsAllowedOrigins, "", f.TakesAgentKey(), "the function that takes the agent key, the agent tool server (empty: no browser origin)"},
	} {
		got, has := fn.env[v.name]
		switch {
		case has != v.want:
			problems = append(problems, fmt.Sprintf("%s declared: %v; want %v (only on %s)", v.name, has, v.want, v.why))
		case has && got != v.def:
			problems = append(problems, fmt.Sprintf("%s = %q; want the parameter defaulting to %q", v.name, got, v.def))
		}
	}
	return problems
}

// TestSettingsPinned: the functions that get the bucket and the base URL,
// as infra/stack's TestFunctionEnvironment pins them for the deployment.
func TestSettingsPinned(t *testing.T) {
	fns := functions(t, openTemplate(t))
	for name, want := range map[string][]string{
		// V1McpFunction, the agent tool server, runs the operations of
		// manifest.AgentToolOperations: it needs what their functions do.
		settings.ClipBucket:   {"ClipProcessorFunction", "DashboardFunction", "V1AcceptFunction", "V1CaptureFunction", "V1McpFunction", "V1QuoteFunction", "V1VideoFunction"},
		"AWS_ENDPOINT_URL_S3": {"ClipProcessorFunction", "DashboardFunction", "V1AcceptFunction", "V1CaptureFunction", "V1McpFunction", "V1QuoteFunction", "V1VideoFunction"},
		settings.PublicBaseURL: {"DashboardFunction", "V1CaptureFunction", "V1DepositsFunction", "V1LeadQuoteFunction", "V1LeadSurveyFunction", "V1McpFunction", "V1QuoteFunction",
			"V1SurveyVideoAccessFunction", "V1VideoFunction"},
		settings.WebhookSealingKey:    {"DashboardFunction", "WebhookDispatcherFunction", "WebhookRetrierFunction", "WebhookSenderFunction"},
		settings.CursorSecret:         {"DashboardFunction", "V1EventsFunction", "V1LeadsListFunction", "V1McpFunction"},
		settings.CaptureLinkKey:       {"V1LeadSurveyFunction", "V1McpFunction"},
		settings.StripeAPIKeys:        {"V1DepositStatusFunction", "V1DepositsFunction", "V1McpFunction", "V1QuoteFunction"},
		settings.StripeAPIURL:         {"V1DepositStatusFunction", "V1DepositsFunction", "V1McpFunction", "V1QuoteFunction"},
		settings.StripeWebhookSecrets: {"StripeWebhookFunction"},
		// As infra/stack's TestAgentToolsAllowedOrigins pins it.
		settings.AgentToolsAllowedOrigins: {"V1McpFunction"},
	} {
		var got []string
		for id, fn := range fns {
			if _, ok := fn.env[name]; ok {
				got = append(got, id)
			}
		}
		sort.Strings(got)
		if !slices.Equal(got, want) {
			t.Errorf("functions declaring %s: %v; want %v", name, got, want)
		}
	}
}

// TestChecksCatchMistakes runs the checks on the template with one mistake
// each and requires a problem that names it: the checks above can fail,
// and say why.
func TestChecksCatchMistakes(t *testing.T) {
	tpl := openTemplate(t)
	entry := func(slug string) manifest.Function {
		f, ok := manifest.BySlug(slug)
		if !ok {
			t.Fatalf("no manifest function %s", slug)
		}
		return f
	}
	for _, tc := range []struct {
		name   string
		slug   string
		mutate func(fns map[string]function) // on a fresh copy of the template's functions
		want   string
	}{
		{"description stale", "v1-leads",
			func(fns map[string]function) {
				fn := fns["V1LeadsFunction"]
				fn.description = "createLead: an old summary"
				fns["V1LeadsFunction"] = fn
			},
			`Description "createLead: an old summary"; want the manifest's`},
		{"function missing", "clip-processor",
			func(fns map[string]function) { delete(fns, "ClipProcessorFunction") },
			"template.yaml has no ClipProcessorFunction for manifest function clip-processor"},
		{"function unknown", "v1-leads",
			func(fns map[string]function) { fns["V1WidgetsFunction"] = fns["V1LeadsFunction"] },
			"template.yaml declares V1WidgetsFunction, which no manifest function names"},
		{"s3 event missing", "clip-processor",
			func(fns map[string]function) {
				fns["ClipProcessorFunction"].events["ClipCreated"] = serverless.Function_EventSource{}
			},
			`want exactly ["S3 ClipBucket s3:ObjectCreated:* prefix=clips/"]`},
		{"s3 event on another prefix", "clip-processor",
			func(fns map[string]function) {
				fns["ClipProcessorFunction"].events["ClipCreated"].Properties.S3Event.Filter.S3Key.Rules[0].Value = "uploads/"
			},
			`events ["S3 ClipBucket s3:ObjectCreated:* prefix=uploads/"]`},
		{"s3 event on a parameter, not a bucket", "clip-processor",
			func(fns map[string]function) {
				fns["ClipProcessorFunction"].events["ClipCreated"].Properties.S3Event.Bucket = wantClipBucket
			},
			`Bucket "moveleads-clips-local"; want !Ref ClipBucket`},
		{"bucket variable missing", "v1-capture",
			func(fns map[string]function) { delete(fns["V1CaptureFunction"].env, settings.ClipBucket) },
			"CLIP_BUCKET declared: false; want true"},
		{"S3 endpoint missing", "clip-processor",
			func(fns map[string]function) { delete(fns["ClipProcessorFunction"].env, "AWS_ENDPOINT_URL_S3") },
			"AWS_ENDPOINT_URL_S3 declared: false; want true"},
		{"base URL missing", "v1-lead-survey",
			func(fns map[string]function) { delete(fns["V1LeadSurveyFunction"].env, settings.PublicBaseURL) },
			"PUBLIC_BASE_URL declared: false; want true"},
		{"base URL missing where video links are minted", "v1-survey-video-access",
			func(fns map[string]function) { delete(fns["V1SurveyVideoAccessFunction"].env, settings.PublicBaseURL) },
			"PUBLIC_BASE_URL declared: false; want true"},
		{"base URL where not needed", "v1-leads",
			func(fns map[string]function) { fns["V1LeadsFunction"].env[settings.PublicBaseURL] = wantBaseURL },
			"PUBLIC_BASE_URL declared: true; want false"},
		{"route missing", "v1-capture",
			func(fns map[string]function) { delete(fns["V1CaptureFunction"].events, "CaptureFinish") },
			"HttpApi POST /v1-capture/{token}/finish"},
		{"stream event missing", "webhook-dispatcher",
			func(fns map[string]function) { delete(fns["WebhookDispatcherFunction"].events, "TableStream") },
			`events []; want exactly ["DynamoDB stream=`},
		{"stream filter missing", "webhook-dispatcher",
			func(fns map[string]function) {
				delete(fns["WebhookDispatcherFunction"].rawEvents["TableStream"]["Properties"].(map[string]any), "FilterCriteria")
			},
			"filter=none"},
		{"stream filter on another type", "webhook-dispatcher",
			func(fns map[string]function) {
				fc := fns["WebhookDispatcherFunction"].rawEvents["TableStream"]["Properties"].(map[string]any)["FilterCriteria"].(map[string]any)
				fc["Filters"] = []any{map[string]any{"Pattern": `{"eventName":["INSERT","MODIFY"],"dynamodb":{"NewImage":{"type":{"S":["event"]}}}}`}}
			},
			`\"eventName\":[\"INSERT\",\"MODIFY\"]`},
		{"stream without partial batch failures", "webhook-dispatcher",
			func(fns map[string]function) {
				delete(fns["WebhookDispatcherFunction"].rawEvents["TableStream"]["Properties"].(map[string]any), "FunctionResponseTypes")
			},
			"responses= "},
		{"stream batch size", "webhook-dispatcher",
			func(fns map[string]function) {
				fns["WebhookDispatcherFunction"].rawEvents["TableStream"]["Properties"].(map[string]any)["BatchSize"] = float64(100)
			},
			"batch=100"},
		{"stream from the latest record", "webhook-dispatcher",
			func(fns map[string]function) {
				fns["WebhookDispatcherFunction"].rawEvents["TableStream"]["Properties"].(map[string]any)["StartingPosition"] = "LATEST"
			},
			"start=LATEST"},
		{"stream property unchecked", "webhook-dispatcher",
			func(fns map[string]function) {
				fns["WebhookDispatcherFunction"].rawEvents["TableStream"]["Properties"].(map[string]any)["ParallelizationFactor"] = float64(2)
			},
			"property ParallelizationFactor, which this check does not know"},
		{"schedule expression", "webhook-retrier",
			func(fns map[string]function) {
				fns["WebhookRetrierFunction"].rawEvents["EveryMinute"]["Properties"].(map[string]any)["Schedule"] = "rate(5 minutes)"
			},
			`events ["Schedule rate(5 minutes)"]`},
		{"sealing key missing", "webhook-retrier",
			func(fns map[string]function) { delete(fns["WebhookRetrierFunction"].env, settings.WebhookSealingKey) },
			"WEBHOOK_SEALING_KEY declared: false; want true"},
		{"sealing key where not listed", "v1-leads",
			func(fns map[string]function) { fns["V1LeadsFunction"].env[settings.WebhookSealingKey] = "" },
			"WEBHOOK_SEALING_KEY declared: true; want false"},
		{"loopback allowed", "webhook-dispatcher",
			func(fns map[string]function) {
				fns["WebhookDispatcherFunction"].env[settings.WebhookAllowLoopback] = "1"
			},
			"WEBHOOK_ALLOW_LOOPBACK declared; it is for make dev alone"},
		{"base URL missing where quote page links are minted", "v1-lead-quote",
			func(fns map[string]function) { delete(fns["V1LeadQuoteFunction"].env, settings.PublicBaseURL) },
			"PUBLIC_BASE_URL declared: false; want true"},
		{"bucket variable missing where signatures are put", "v1-accept",
			func(fns map[string]function) { delete(fns["V1AcceptFunction"].env, settings.ClipBucket) },
			"CLIP_BUCKET declared: false; want true"},
		{"Stripe keys missing", "v1-deposits",
			func(fns map[string]function) { delete(fns["V1DepositsFunction"].env, settings.StripeAPIKeys) },
			"STRIPE_API_KEYS declared: false; want true"},
		{"Stripe keys on the webhook receiver", "stripe-webhook",
			func(fns map[string]function) { fns["StripeWebhookFunction"].env[settings.StripeAPIKeys] = "" },
			"STRIPE_API_KEYS declared: true; want false"},
		{"webhook secrets missing", "stripe-webhook",
			func(fns map[string]function) { delete(fns["StripeWebhookFunction"].env, settings.StripeWebhookSecrets) },
			"STRIPE_WEBHOOK_SECRETS declared: false; want true"},
		{"Stripe API URL missing", "v1-deposit-status",
			func(fns map[string]function) { delete(fns["V1DepositStatusFunction"].env, settings.StripeAPIURL) },
			"STRIPE_API_URL declared: false; want true"},
		{"Stripe API URL where Stripe is not called", "stripe-webhook",
			func(fns map[string]function) { fns["StripeWebhookFunction"].env[settings.StripeAPIURL] = "" },
			"STRIPE_API_URL declared: true; want false"},
		{"Stripe API URL with a default", "v1-quote",
			func(fns map[string]function) {
				fns["V1QuoteFunction"].env[settings.StripeAPIURL] = "https://api.stripe.com"
			},
			`STRIPE_API_URL = "https://api.stripe.com"; want the parameter defaulting to ""`},
		{"quote page route missing", "v1-quote",
			func(fns map[string]function) { delete(fns["V1QuoteFunction"].events, "QuoteDeposit") },
			"HttpApi POST /v1-quote/{token}/deposit"},
		{"agent tool server without the duplicate wait", manifest.AgentToolsSlug,
			func(fns map[string]function) {
				f := fns["V1McpFunction"]
				f.timeout = 10
				fns["V1McpFunction"] = f
			},
			"Timeout 10s; an idempotent route needs more than idempotency.DefaultWait"},
		{"agent tool server without the cursor secret", manifest.AgentToolsSlug,
			func(fns map[string]function) { delete(fns["V1McpFunction"].env, settings.CursorSecret) },
			"CURSOR_SECRET declared: false; want true"},
		{"agent tool server without its allowed origins", manifest.AgentToolsSlug,
			func(fns map[string]function) { delete(fns["V1McpFunction"].env, settings.AgentToolsAllowedOrigins) },
			"AGENT_TOOLS_ALLOWED_ORIGINS declared: false; want true"},
		{"agent tool server allowing an origin by default", manifest.AgentToolsSlug,
			func(fns map[string]function) {
				fns["V1McpFunction"].env[settings.AgentToolsAllowedOrigins] = "http://127.0.0.1:3001"
			},
			`AGENT_TOOLS_ALLOWED_ORIGINS = "http://127.0.0.1:3001"; want the parameter defaulting to ""`},
		{"allowed origins on another function", "v1-leads",
			func(fns map[string]function) { fns["V1LeadsFunction"].env[settings.AgentToolsAllowedOrigins] = "" },
			"AGENT_TOOLS_ALLOWED_ORIGINS declared: true; want false"},
		{"agent tool server route missing", manifest.AgentToolsSlug,
			func(fns map[string]function) { delete(fns["V1McpFunction"].events, "LogicalPath") },
			"HttpApi POST /v1/mcp"},
		{"job with a request's timeout", "webhook-retrier",
			func(fns map[string]function) {
				f := fns["WebhookRetrierFunction"]
				f.timeout = 10
				fns["WebhookRetrierFunction"] = f
			},
			"Timeout 10s; a Schedule function's is at least 60 s"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fns := freshFunctions(t, tpl) // mutations must not leak
			tc.mutate(fns)
			problems := checkPresence(fns, manifest.Functions)
			if fn, ok := fns[lambdafn.LogicalID(tc.slug)]; ok {
				problems = append(problems, checkFunction(tpl, fn, entry(tc.slug))...)
			}
			if !slices.ContainsFunc(problems, func(p string) bool { return strings.Contains(p, tc.want) }) {
				t.Errorf("problems %q; want one containing %q", problems, tc.want)
			}
		})
	}
}

// TestSecretParametersAreNoEcho keeps secrets out of SAM's and
// CloudFormation's output: each manifest secret's local variable is
// passed from a parameter named after it (CURSOR_SECRET: CursorSecret,
// WEBHOOK_SEALING_KEY: WebhookSealingKey, STRIPE_API_KEYS: StripeApiKeys,
// STRIPE_WEBHOOK_SECRETS: StripeWebhookSecrets) that is NoEcho and empty by
// default (make dev's env-vars file gives it), and so is any other
// parameter whose name says secret or key.
func TestSecretParametersAreNoEcho(t *testing.T) {
	tpl := openTemplate(t)
	want := map[string]bool{}
	for _, sec := range manifest.Secrets {
		name := pascalCase(settings.SecretVar(sec))
		want[name] = true
		p, ok := tpl.Parameters[name]
		if !ok {
			t.Errorf("no parameter %s for secret %s (%s)", name, sec, settings.SecretVar(sec))
			continue
		}
		if p.Default != nil && p.Default != "" {
			t.Errorf("parameter %s has a default %v; want none (make dev's env-vars file gives it)", name, p.Default)
		}
	}
	for name, p := range tpl.Parameters {
		lower := strings.ToLower(name)
		if want[name] || strings.Contains(lower, "secret") || strings.HasSuffix(lower, "key") {
			if p.NoEcho == nil || !*p.NoEcho {
				t.Errorf("parameter %s is not NoEcho", name)
			}
		}
	}
}

// TestAgentToolsOriginsParameter: the allowed browser origins come from
// a String parameter named after the variable, empty by default (no
// browser origin, as deployed without the CDK context key), whose
// Description tells an operator the format.
func TestAgentToolsOriginsParameter(t *testing.T) {
	name := pascalCase(settings.AgentToolsAllowedOrigins)
	p, ok := openTemplate(t).Parameters[name]
	if !ok {
		t.Fatalf("no parameter %s for %s", name, settings.AgentToolsAllowedOrigins)
	}
	if p.Type != "String" || p.Default != "" {
		t.Errorf("parameter %s: Type %q, Default %#v; want String defaulting to \"\"", name, p.Type, p.Default)
	}
	if p.Description == nil || !strings.Contains(*p.Description, "scheme://host[:port]") || !strings.Contains(*p.Description, "Comma-separated") {
		t.Errorf("parameter %s: Description %v; want one saying comma-separated scheme://host[:port]", name, p.Description)
	}
}

// pascalCase turns an environment variable's name into a parameter's:
// CURSOR_SECRET → CursorSecret.
func pascalCase(env string) string {
	var b strings.Builder
	for word := range strings.SplitSeq(strings.ToLower(env), "_") {
		if word != "" {
			b.WriteString(strings.ToUpper(word[:1]) + word[1:])
		}
	}
	return b.String()
}

// TestTemplateNeverAllowsLoopback: WEBHOOK_ALLOW_LOOPBACK, which lets
// test-mode webhook deliveries reach this machine's own addresses, is set
// only by make dev for its own stack. The template declares it nowhere
// (not in Globals, not on a function, not as a parameter), so sam local,
// which applies an env-vars file's values only to declared variables,
// never passes it into a container.
func TestTemplateNeverAllowsLoopback(t *testing.T) {
	if raw := rawTemplate(t); strings.Contains(string(raw), settings.WebhookAllowLoopback) {
		t.Errorf("%s mentions %s outside comments", templatePath, settings.WebhookAllowLoopback)
	}
	for id, fn := range functions(t, openTemplate(t)) {
		if _, ok := fn.env[settings.WebhookAllowLoopback]; ok {
			t.Errorf("%s declares %s", id, settings.WebhookAllowLoopback)
		}
	}
}

// TestMakefileBuildsEveryFunctionForSAM runs make in dry-run mode the way
// SAM's makefile builder calls it, for every function, and checks that the
// target builds that function with the build script.
func TestMakefileBuildsEveryFunctionForSAM(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("make is not installed")
	}
	for _, id := range lambdafn.LogicalIDs(manifest.Functions) {
		cmd := exec.Command("make", "-n", "-C", repoRoot, "build-"+id)
		cmd.Env = append(cmd.Environ(), "ARTIFACTS_DIR=/artifacts/"+id)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Errorf("make build-%s: %v\n%s", id, err, out)
			continue
		}
		want := "run ./scripts/build -sam-logical-id " + id + ` -out "/artifacts/` + id + `"`
		if !strings.Contains(string(out), want) {
			t.Errorf("make -n build-%s printed %q; want a line containing %q", id, out, want)
		}
	}
}

// TestFunctionsStartWithTheTemplateEnvironment builds each function's
// wiring the way its main does (awsenv.Load), with only the variables the
// template declares for it, each given a local value as
// .local/sam-env.json does, and reads every secret its manifest entry
// lists. A function that needs a variable the template does not give it
// would fail in `sam local`.
func TestFunctionsStartWithTheTemplateEnvironment(t *testing.T) {
	fns := functions(t, openTemplate(t))
	local := map[string]string{
		settings.Table:              table.DefaultName,
		settings.EventsTable:        table.EventsName(table.DefaultName),
		"AWS_ENDPOINT_URL_DYNAMODB": "http://127.0.0.1:1",
		settings.ClipBucket:         wantClipBucket,
		"AWS_ENDPOINT_URL_S3":       "http://127.0.0.1:2",
		settings.PublicBaseURL:      wantBaseURL,
		settings.StripeAPIURL:       "http://127.0.0.1:3",
		// What an operator's --parameter-overrides would give.
		settings.AgentToolsAllowedOrigins: "https://console.example.com,http://127.0.0.1:5173",
	}
	for _, sec := range manifest.Secrets {
		local[settings.SecretVar(sec)] = strings.Repeat("ab", 32)
		if settings.SecretIsText(sec) {
			local[settings.SecretVar(sec)] = `{"test":"local_test_value","live":""}`
		}
	}
	for _, f := range manifest.Functions {
		id := lambdafn.LogicalID(f.Slug)
		t.Run(id, func(t *testing.T) {
			fn, ok := fns[id]
			if !ok {
				t.Fatalf("no function %s", id)
			}
			// Variables SAM always sets in the container.
			t.Setenv("AWS_REGION", "us-east-1")
			t.Setenv("AWS_ACCESS_KEY_ID", "local")
			t.Setenv("AWS_SECRET_ACCESS_KEY", "local")
			for _, name := range []string{settings.Table, settings.EventsTable, "AWS_ENDPOINT_URL_DYNAMODB", settings.ClipBucket, "AWS_ENDPOINT_URL_S3", settings.PublicBaseURL, settings.StripeAPIURL, settings.AgentToolsAllowedOrigins} {
				t.Setenv(name, "")
			}
			for _, sec := range manifest.Secrets {
				name := settings.SecretVar(sec)
				t.Setenv(name, "")
				t.Setenv(name+"_ARN", "")
			}
			for name := range fn.env {
				v, ok := local[name]
				if !ok {
					t.Fatalf("template declares %s, which has no local value here", name)
				}
				t.Setenv(name, v)
			}
			env, err := awsenv.Load()
			if err != nil {
				t.Fatalf("%s fails to start with its template environment %v: %v", f.Slug, keys(fn.env), err)
			}
			// The agent tool server's init parses its origins
			// (mcpwiring.HTTPOptions), which this package does not link.
			if v, ok := fn.env[settings.AgentToolsAllowedOrigins]; ok {
				if _, err := settings.ParseOrigins(v); err != nil {
					t.Errorf("%s: template default %s: %v", f.Slug, settings.AgentToolsAllowedOrigins, err)
				}
				if _, err := settings.ParseOrigins(env.Getenv(settings.AgentToolsAllowedOrigins)); err != nil {
					t.Errorf("%s: local %s: %v", f.Slug, settings.AgentToolsAllowedOrigins, err)
				}
			}
			for _, s := range f.Secrets {
				if _, err := env.Secret(s)(context.Background()); err != nil {
					t.Errorf("%s cannot read secret %s with its template environment %v: %v", f.Slug, s, keys(fn.env), err)
				}
			}
		})
	}
}

func keys(m map[string]string) []string {
	k := make([]string, 0, len(m))
	for name := range m {
		k = append(k, name)
	}
	sort.Strings(k)
	return k
}
