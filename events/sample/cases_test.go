package sample_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/moveleads/partnerapi/events/sample"
	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/domain/linktoken"
	"github.com/moveleads/partnerapi/shared/domain/survey"
	"github.com/moveleads/partnerapi/shared/spec/manifest"
)

// TestDefaultRouteEventsMatchNoRoute: a $default event is only realistic
// when API Gateway would not have matched its method and path to a
// partner route.
func TestDefaultRouteEventsMatchNoRoute(t *testing.T) {
	n := 0
	for _, c := range sample.Cases() {
		rt, err := c.Route()
		if err != nil {
			t.Fatal(err)
		}
		if !rt.IsDefault() {
			continue
		}
		n++
		if r, _, _, _, _, ok := manifest.Resolve(manifest.PartnerRoutes(), c.Method, c.Path); ok {
			t.Errorf("%s: %s %s is served by %s, so API Gateway would never send it to $default", c.FileName(), c.Method, c.Path, r.Operation)
		}
	}
	if n == 0 {
		t.Error("no case for the $default route")
	}
}

func TestParseFileName(t *testing.T) {
	tests := []struct {
		name           string
		slug, caseName string
		status         int
		wantErr        bool
	}{
		{name: "v1-leads.valid.200.json", slug: "v1-leads", caseName: "valid", status: 200},
		{name: "v1-lead-get.not-a-uuid.404.json", slug: "v1-lead-get", caseName: "not-a-uuid", status: 404},
		{name: "v1-leads.json", wantErr: true},
		{name: "v1-leads.valid.ok.json", wantErr: true},
		{name: "v1-leads.valid.2000.json", wantErr: true},
		{name: "v1-leads.a.b.200.json", wantErr: true},
		{name: "v1-leads.valid.200.yaml", wantErr: true},
		{name: "clip-processor.object-created.json", slug: "clip-processor", caseName: "object-created", status: 0},
		{name: "clip-processor.object-created.200.json", wantErr: true}, // S3 answers no status
		{name: "webhook-dispatcher.event-inserted.json", slug: "webhook-dispatcher", caseName: "event-inserted", status: 0},
		{name: "webhook-dispatcher.event-inserted.200.json", wantErr: true}, // a stream answers no status
		{name: "webhook-retrier.tick.json", slug: "webhook-retrier", caseName: "tick", status: 0},
		{name: "webhook-retrier.tick.200.json", wantErr: true}, // nor does a schedule
		{name: "v1-leads.valid.json", wantErr: true},           // API Gateway: a status
		{name: "v9-nothing.valid.200.json", wantErr: true},     // no such function
		{name: "v1-leads..200.json", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			slug, c, status, err := sample.ParseFileName(tt.name)
			if tt.wantErr {
				if err == nil {
					t.Errorf("ParseFileName(%q) = %q, %q, %d; want an error", tt.name, slug, c, status)
				}
				return
			}
			if err != nil || slug != tt.slug || c != tt.caseName || status != tt.status {
				t.Errorf("ParseFileName(%q) = %q, %q, %d, %v; want %q, %q, %d", tt.name, slug, c, status, err, tt.slug, tt.caseName, tt.status)
			}
		})
	}
}

// TestCasesAreWellFormed checks what the file names promise: each case is
// for a known function of its kind, has a name without dots, sets a path
// parameter exactly when its route has one, and sets its own method and
// path exactly for the $default route; each S3 case names an object under
// its function's prefix; each stream case is a record its function's
// filter lets through (an INSERT of an item of its InsertsOf type) and
// an event item the store reads back as its event.
func TestCasesAreWellFormed(t *testing.T) {
	validName := func(name string) bool { return name != "" && !strings.ContainsAny(name, "./ ") }
	for _, c := range sample.Cases() {
		rt, err := c.Route()
		if err != nil {
			t.Error(err)
			continue
		}
		if !validName(c.Name) {
			t.Errorf("%s: case name %q must be non-empty, without dots, slashes or spaces", c.FileName(), c.Name)
		}
		if hasParam := manifest.ParamName(rt.PilotPath) != ""; hasParam != (c.Param != "") {
			t.Errorf("%s: path parameter %q for a route with parameter=%v", c.FileName(), c.Param, hasParam)
		}
		if own := c.Method != "" || c.Path != ""; own != rt.IsDefault() || (own && (c.Method == "" || c.Path == "")) {
			t.Errorf("%s: method %q path %q; want both exactly for the $default route", c.FileName(), c.Method, c.Path)
		}
	}
	for _, c := range sample.S3Cases() {
		f, ok := manifest.BySlug(c.Slug)
		switch {
		case !ok || f.S3 == nil:
			t.Errorf("%s: %q is not an S3-triggered function of the manifest", c.FileName(), c.Slug)
		case !validName(c.Name):
			t.Errorf("%s: case name %q must be non-empty, without dots, slashes or spaces", c.FileName(), c.Name)
		case !strings.HasPrefix(c.Key, f.S3.Prefix):
			t.Errorf("%s: key %q is not under the trigger's prefix %q", c.FileName(), c.Key, f.S3.Prefix)
		}
	}
	for _, c := range sample.StreamCases() {
		f, ok := manifest.BySlug(c.Slug)
		if !ok || f.Stream == nil {
			t.Errorf("%s: %q is not a stream-triggered function of the manifest", c.FileName(), c.Slug)
			continue
		}
		if !validName(c.Name) {
			t.Errorf("%s: case name %q must be non-empty, without dots, slashes or spaces", c.FileName(), c.Name)
		}
		img := c.NewImage()
		if f.Stream.InsertsOf != "" && img["type"].String() != f.Stream.InsertsOf {
			t.Errorf("%s: item type %q; the trigger's filter lets only INSERTs of %q through", c.FileName(), img["type"].String(), f.Stream.InsertsOf)
		}
		if c.Tenant.PartnerID != sample.PartnerID || c.Event.Mode != string(c.Tenant.Mode) {
			t.Errorf("%s: event of mode %s owed by %+v; want the fixture partner's, of its mode", c.FileName(), c.Event.Mode, c.Tenant)
		}
	}
	for _, c := range sample.ScheduleCases() {
		if f, ok := manifest.BySlug(c.Slug); !ok || f.Schedule == nil {
			t.Errorf("%s: %q is not a schedule-triggered function of the manifest", c.FileName(), c.Slug)
		}
		if !validName(c.Name) {
			t.Errorf("%s: case name %q must be non-empty, without dots, slashes or spaces", c.FileName(), c.Name)
		}
	}
}

// TestEveryFunctionHasEvents: each function of the manifest has at least
// one sample event, of its trigger's kind.
func TestEveryFunctionHasEvents(t *testing.T) {
	has := map[string]manifest.TriggerKind{}
	for _, c := range sample.Cases() {
		has[c.Slug] = manifest.TriggerHTTP
	}
	for _, c := range sample.S3Cases() {
		has[c.Slug] = manifest.TriggerS3
	}
	for _, c := range sample.StreamCases() {
		has[c.Slug] = manifest.TriggerStream
	}
	for _, c := range sample.ScheduleCases() {
		has[c.Slug] = manifest.TriggerSchedule
	}
	for _, c := range sample.QueueCases() {
		has[c.Slug] = manifest.TriggerQueue
	}
	for _, f := range manifest.Functions {
		switch kind, ok := has[f.Slug]; {
		case !ok:
			t.Errorf("function %s (%s) has no sample event", f.Slug, f.Trigger())
		case kind != f.Trigger():
			t.Errorf("function %s is started by %s; its sample events are %s events", f.Slug, f.Trigger(), kind)
		}
	}
}

// TestEveryRouteHasA2xxEvent: as Cases promises, every route of the
// manifest has a 2xx sample event on each of its paths.
func TestEveryRouteHasA2xxEvent(t *testing.T) {
	has := map[string]bool{}
	for _, c := range sample.Cases() {
		rt, err := c.Route()
		if err != nil || c.Status < 200 || c.Status > 299 {
			continue
		}
		path := rt.PilotPath
		if c.Logical {
			path = rt.LogicalPath
		}
		has[rt.Method+" "+path] = true
	}
	for _, rt := range manifest.Routes() {
		if rt.IsDefault() || needsLiveSession(rt) {
			continue
		}
		for _, path := range rt.Paths() {
			if !has[rt.Method+" "+path] {
				t.Errorf("route %s (%s %s) has no 2xx sample event", rt.Operation, rt.Method, path)
			}
		}
	}
}

// TestFixtureTokens: the capture, view and quote page tokens of the
// fixtures have the form of capture tokens (a malformed one would answer
// 404 without ever reaching the table) and are distinct.
func TestFixtureTokens(t *testing.T) {
	seen := map[string]string{}
	for name, tok := range map[string]string{
		"CaptureToken": sample.CaptureToken, "FinishToken": sample.FinishToken, "UnknownCaptureToken": sample.UnknownCaptureToken,
		"ViewToken": sample.ViewToken, "UnknownViewToken": sample.UnknownViewToken,
		"QuoteToken": sample.QuoteToken, "DepositQuoteToken": sample.DepositQuoteToken, "UnknownQuoteToken": sample.UnknownQuoteToken,
	} {
		hash, err := linktoken.Parse(tok)
		if err != nil {
			t.Errorf("%s %q: %v", name, tok, err)
		}
		if other, dup := seen[hash]; dup {
			t.Errorf("%s and %s are the same token", name, other)
		}
		seen[hash] = name
	}
}

// TestFixtureClip: the fixture clip is the shared/domain/clip test clip it says
// it is, and its key is the clip's object key.
func TestFixtureClip(t *testing.T) {
	want, err := os.ReadFile(filepath.Join("..", "..", "shared", "domain", "clip", "testdata", "mediarecorder-vp8-opus.webm"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(sample.ClipObject(), want) {
		t.Error("events/sample/clip.webm differs from shared/domain/clip/testdata/mediarecorder-vp8-opus.webm; copy it again")
	}
	partner, mode, surveyID, clipID, err := survey.ParseObjectKey(sample.ClipKey())
	if err != nil || partner != sample.PartnerID || mode != string(auth.Test) || surveyID != sample.FinishSurveyID || clipID != sample.ClipID {
		t.Errorf("ClipKey %q = %s %s %s %s (%v); want the fixture clip's", sample.ClipKey(), partner, mode, surveyID, clipID, err)
	}
}

// TestStripeEventsAreSigned: the Stripe webhook events carry a
// Stripe-Signature over their exact body, the verifying ones with the
// sample secret at the events' time (which the events' test signs again,
// see resign), the bad-signature one with another secret.
func TestStripeEventsAreSigned(t *testing.T) {
	n := 0
	for _, c := range sample.Cases() {
		rt, err := c.Route()
		if err != nil {
			t.Fatal(err)
		}
		if rt.Auth != manifest.AuthProcessorSignature {
			continue
		}
		n++
		sig := c.Headers["stripe-signature"]
		if !strings.HasPrefix(sig, "t=") || !strings.Contains(sig, ",v1=") {
			t.Errorf("%s: Stripe-Signature %q; want t=...,v1=...", c.FileName(), sig)
		}
		if verifies := sample.SignedAtEventTime(sig, []byte(c.Body)); verifies != (c.Status != 400) {
			t.Errorf("%s: signed with the sample secret %v; want %v (only the 400 event is signed otherwise)", c.FileName(), verifies, c.Status != 400)
		}
	}
	if n == 0 {
		t.Error("no Stripe webhook event")
	}
}

// TestResign: a sample signed to verify is signed again with the mode's
// secret at the given time; the bad-signature sample, a mode without a
// secret and a payload that is not signed by the sample secret are left
// as they are.
func TestResign(t *testing.T) {
	now := time.Date(2027, 3, 1, 9, 30, 0, 0, time.UTC)
	secrets := func(mode string) string {
		if mode == "test" {
			return "whsec_resign_test"
		}
		return ""
	}
	for _, c := range sample.Cases() {
		if c.Slug != "stripe-webhook" {
			continue
		}
		t.Run(c.Name, func(t *testing.T) {
			files, err := sample.Files()
			if err != nil {
				t.Fatal(err)
			}
			payload := files[c.FileName()]
			out, signed, err := sample.Resign(payload, secrets, now)
			if err != nil {
				t.Fatal(err)
			}
			wantSigned := c.Status == 200 // the test mode's verifying sample
			if signed != wantSigned {
				t.Fatalf("signed %v; want %v", signed, wantSigned)
			}
			if !signed {
				if !bytes.Equal(out, payload) {
					t.Error("payload changed although not signed again")
				}
				return
			}
			ev := decodeEvent(t, out)
			if got, want := ev.Headers["stripe-signature"], sample.StripeSignature("whsec_resign_test", now, []byte(ev.Body)); got != want {
				t.Errorf("Stripe-Signature %q; want %q", got, want)
			}
			if ev.Body != c.Body {
				t.Errorf("body changed: %q", ev.Body)
			}
		})
	}
	if _, _, err := sample.Resign([]byte("not json"), secrets, now); err == nil {
		t.Error("Resign of a payload that is not JSON: no error")
	}
}
