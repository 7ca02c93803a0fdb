package main

import (
	"bytes"
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/aws/aws-lambda-go/events"

	"github.com/moveleads/partnerapi/events/sample"
	"github.com/moveleads/partnerapi/scripts/devstack/devfile"
	"github.com/moveleads/partnerapi/shared/edge/streamevent"
	"github.com/moveleads/partnerapi/shared/local/detectlocal"
	"github.com/moveleads/partnerapi/shared/local/dynamolocal"
	"github.com/moveleads/partnerapi/shared/local/s3local"
	"github.com/moveleads/partnerapi/shared/local/stripelocal"
)

// bannerDev is a dev.json as make dev writes it, with made-up values.
func bannerDev() devfile.File {
	base := "http://127.0.0.1:3999"
	return devfile.File{
		BaseURL: base, APIKey: "mk_test_" + strings.Repeat("ab", 32), PartnerID: "ptn_1234abcd5678ef90", PID: 42,
		Env:         map[string]string{"AWS_ENDPOINT_URL_S3": "http://127.0.0.1:39001", "CLIP_BUCKET": clipBucket},
		DetectorURL: "http://127.0.0.1:39002",
		Demo: &devfile.Demo{
			LeadID: "5c0b1e2a-0000-4000-8000-00000000aaaa", SurveyID: "5c0b1e2a-0000-4000-8000-00000000bbbb",
			CaptureURL: base + "/v1-capture/capturetoken123", VideoURL: base + "/v1-video/" + sample.ViewToken,
			FixturePartnerID: sample.PartnerID, FixtureAPIKey: sample.APIKey, FixtureLeadID: sample.LeadID,
		},
	}
}

// bannerValues are the URLs, keys and ids a banner shows.
var bannerValues = regexp.MustCompile(`https?://[^\s"'/,:]+:[0-9]+(?:/v1-(?:capture|video)/[^\s"']+)?|mk_(?:test|live)_[0-9a-f]+|ptn_[0-9a-f]+|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)

// TestBannerShowsOnlyDevFile: the banner says everything it shows is in
// .local/dev.json, so each URL (its origin, or a whole page link), key and
// id it prints must be a value of that file. Before, the demo lead, its
// capture link, the video link and the fixtures were in the banner only.
func TestBannerShowsOnlyDevFile(t *testing.T) {
	dev := bannerDev()
	var out bytes.Buffer
	printBanner(&out, dev, "the API")
	b, _ := json.Marshal(dev)
	var file map[string]any
	_ = json.Unmarshal(b, &file)
	values := map[string]bool{}
	var collect func(v any)
	collect = func(v any) {
		switch v := v.(type) {
		case string:
			values[v] = true
		case map[string]any:
			for _, e := range v {
				collect(e)
			}
		}
	}
	collect(file)
	shown := bannerValues.FindAllString(out.String(), -1)
	if len(shown) < 10 {
		t.Fatalf("the banner shows %d values; want the base URL, keys, ids and links:\n%s", len(shown), out.String())
	}
	for _, v := range shown {
		if !values[v] {
			t.Errorf("the banner shows %s, which dev.json does not hold", v)
		}
	}
	if !strings.Contains(out.String(), "everything shown here is also in "+devfile.RelPath) {
		t.Errorf("the banner does not say that dev.json holds what it shows:\n%s", out.String())
	}
}

// TestBannerCurlsSendJSON: each curl line of the banner that sends a body
// says it is JSON; without the header the API answers 415 (the "Mint
// your own" line did).
func TestBannerCurlsSendJSON(t *testing.T) {
	var out bytes.Buffer
	printBanner(&out, bannerDev(), "the API")
	n := 0
	for _, line := range strings.Split(out.String(), "\n") {
		if !strings.Contains(line, "curl ") || !strings.Contains(line, " -d ") {
			continue
		}
		n++
		if !strings.Contains(line, `-H "Content-Type: application/json"`) {
			t.Errorf("curl line without Content-Type: application/json: %s", line)
		}
	}
	if n < 2 {
		t.Errorf("%d curl lines with a body; want the createLead and the video-access ones", n)
	}
}

// TestStopNamesEverything: the banner's Ctrl-C line and the stop message
// name every server that runs; stripe-mock was missing.
func TestStopNamesEverything(t *testing.T) {
	srv := &servers{db: &dynamolocal.Server{}, s3: &s3local.Server{}, det: &detectlocal.Server{}, stripe: &stripelocal.Server{}}
	if got, want := srv.names(), "the API, DynamoDB Local, MinIO, the detector and stripe-mock"; got != want {
		t.Errorf("names() = %q; want %q", got, want)
	}
	noDetector := &servers{db: &dynamolocal.Server{}, s3: &s3local.Server{}, stripe: &stripelocal.Server{}}
	if got, want := noDetector.names(), "the API, DynamoDB Local, MinIO and stripe-mock"; got != want {
		t.Errorf("names() without the detector = %q; want %q", got, want)
	}
	var out bytes.Buffer
	printBanner(&out, bannerDev(), srv.names())
	if !strings.Contains(out.String(), "(Ctrl-C stops the API, DynamoDB Local, MinIO, the detector and stripe-mock)") {
		t.Errorf("the banner's Ctrl-C line does not name everything:\n%s", out.String())
	}
}

type okProcessor struct{}

func (okProcessor) Process(context.Context, streamevent.Record) error { return nil }

// TestQuietLog: by default the log drops each stream record (81 lines in
// make dev's first second) and keeps requests and warnings; verbose keeps
// all. The stream lines come from the stream functions' own edge.
func TestQuietLog(t *testing.T) {
	ev := events.DynamoDBEvent{Records: []events.DynamoDBEventRecord{{EventName: "INSERT", Change: events.DynamoDBStreamRecord{
		SequenceNumber: "1", Keys: map[string]events.DynamoDBAttributeValue{"pk": events.NewStringAttribute("P"), "sk": events.NewStringAttribute("S")},
	}}}}
	for _, tt := range []struct {
		verbose    bool
		wantStream bool
	}{{false, false}, {true, true}} {
		var out syncBuffer
		log := newLog(&out, tt.verbose)
		if _, err := streamevent.New(okProcessor{}, log.With("function", "webhook-dispatcher"))(context.Background(), ev); err != nil {
			t.Fatal(err)
		}
		log.Info("request", "method", "POST", "path", "/v1/leads", "status", 200)
		log.Warn("stream poll: describe stream failed; trying again")
		log.Info("server session connected", "session_id", "x") // the MCP SDK's
		got := out.String()
		if strings.Contains(got, `"msg":"stream record"`) != tt.wantStream || strings.Contains(got, "server session connected") != tt.wantStream {
			t.Errorf("verbose %v: stream record or session line logged %v; want %v:\n%s", tt.verbose, !tt.wantStream, tt.wantStream, got)
		}
		if !strings.Contains(got, `"msg":"request"`) || !strings.Contains(got, `"level":"WARN"`) {
			t.Errorf("verbose %v: the request line or the warning is missing:\n%s", tt.verbose, got)
		}
	}
}
