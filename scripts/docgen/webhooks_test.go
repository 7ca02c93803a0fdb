package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/moveleads/partnerapi/shared/domain/webhook"
	"github.com/moveleads/partnerapi/shared/spec/openapi"
	"github.com/moveleads/partnerapi/shared/spec/openapi/webhookexample"
)

// TestWebhooksDocIsCurrent fails when the generated blocks of
// docs/WEBHOOKS.md differ from the catalogue, the examples or the schedule.
func TestWebhooksDocIsCurrent(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", filepath.FromSlash(webhooksDocFile)))
	if err != nil {
		t.Fatal(err)
	}
	blocks, err := WebhookBlocks()
	if err != nil {
		t.Fatal(err)
	}
	got, err := renderBlocks(string(b), blocks, webhooksDocFile)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(b) {
		t.Fatal("docs/WEBHOOKS.md is stale: run `make docs`")
	}
}

// TestWebhooksDocShowsEveryType: the guide lists every catalogue type with
// its When text, and shows each example body exactly as sent.
func TestWebhooksDocShowsEveryType(t *testing.T) {
	blocks, err := WebhookBlocks()
	if err != nil {
		t.Fatal(err)
	}
	ds, err := webhookexample.Deliveries()
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range webhook.Catalogue {
		if row(t, blocks["events"], "`"+string(k.Type)+"`") == "" || !strings.Contains(blocks["events"], k.When) {
			t.Errorf("events table lacks %s or its When text", k.Type)
		}
		if strings.Contains(row(t, blocks["events"], "`"+string(k.Type)+"`"), "not in the OpenAPI document") {
			t.Errorf("events table: %s has no body schema in the OpenAPI document", k.Type)
		}
		if !strings.Contains(blocks["examples"], "`"+string(k.Type)+"`:\n") {
			t.Errorf("examples lack %s", k.Type)
		}
	}
	for _, d := range ds {
		if !strings.Contains(blocks["examples"], d.Headers[webhook.HeaderSignature]+"\n") {
			t.Errorf("examples lack %s's signature", d.Event.Type)
		}
		if d.Event.Type == webhook.SurveyCompleted && !strings.Contains(blocks["test-vector"], "\n"+string(d.Body)+"\n") {
			t.Error("test vector lacks the survey.completed body as sent")
		}
	}
	if !strings.Contains(blocks["test-vector"], webhookexample.Secret) {
		t.Error("test vector lacks the example secret")
	}
}

func TestScheduleTable(t *testing.T) {
	tbl := scheduleTable()
	tests := []struct{ cell, want string }{
		{"2", "| 2 | 5 s | 4.5 s to 5.5 s | 5 s |"},
		{"5", "| 5 | 2 h | 1.8 h to 2.2 h | 2 h 35 min |"},
		{"10", "| 10 | 24 h | 21.6 h to 26.4 h | 75 h 35 min |"},
	}
	for _, tt := range tests {
		if got := row(t, tbl, tt.cell); got != tt.want {
			t.Errorf("row\n%s\nwant\n%s", got, tt.want)
		}
	}
	if got, want := strings.Count(tbl, "\n| "), len(webhook.Schedule); got != want {
		t.Errorf("schedule table has %d rows; want %d (one per attempt)", got, want)
	}
	if !strings.Contains(tbl, "(3 days 3.6 h)") {
		t.Errorf("schedule table does not sum the delays to 3 days 3.6 h:\n%s", tbl)
	}
}

func TestDurations(t *testing.T) {
	for _, tt := range []struct {
		d                  time.Duration
		human, rough, days string
	}{
		{5 * time.Second, "5 s", "5 s", "0.0 h"},
		{4500 * time.Millisecond, "4.5 s", "4 s", "0.0 h"},
		{305 * time.Second, "5.083333333333333 min", "5 min 5 s", "0.1 h"},
		{2 * time.Hour, "2 h", "2 h", "2.0 h"},
		{27*time.Hour + 36*time.Minute, "27.6 h", "27 h 36 min", "1 day 3.6 h"},
	} {
		if got := humanDuration(tt.d); got != tt.human {
			t.Errorf("humanDuration(%v) = %q; want %q", tt.d, got, tt.human)
		}
		if got := roughDuration(tt.d); got != tt.rough {
			t.Errorf("roughDuration(%v) = %q; want %q", tt.d, got, tt.rough)
		}
		if got := humanDays(tt.d); got != tt.days {
			t.Errorf("humanDays(%v) = %q; want %q", tt.d, got, tt.days)
		}
	}
}

func TestRenderBlocksNamesTheFile(t *testing.T) {
	_, err := renderBlocks("no blocks", map[string]string{"events": "x"}, webhooksDocFile)
	if err == nil || !strings.Contains(err.Error(), webhooksDocFile) || !strings.Contains(err.Error(), `"events"`) {
		t.Errorf("renderBlocks without the block: %v; want an error naming the file and block", err)
	}
}

// TestAPIReferenceCoversWebhooks: every webhook has a section with its
// headers and answers, and the index links it.
func TestAPIReferenceCoversWebhooks(t *testing.T) {
	page, err := APIReference(openapi.Document)
	if err != nil {
		t.Fatal(err)
	}
	spec, err := openapi3.NewLoader().LoadFromData(openapi.Document)
	if err != nil {
		t.Fatal(err)
	}
	if len(spec.Webhooks) == 0 {
		t.Fatal("the document has no webhooks")
	}
	for name, item := range spec.Webhooks {
		section := sectionOf(t, page, "## "+name+"\n")
		for _, p := range item.Post.Parameters {
			if !strings.Contains(section, "| `"+p.Value.Name+"` | yes |") {
				t.Errorf("section %s does not list header %s", name, p.Value.Name)
			}
		}
		for status := range item.Post.Responses.Map() {
			if !strings.Contains(section, "\n| "+status+" | ") {
				t.Errorf("section %s does not list answer %s", name, status)
			}
		}
		if !strings.Contains(page, "| [`"+name+"`](#"+refWebhookAnchor(name)+") |") {
			t.Errorf("webhooks index does not link %s", name)
		}
	}
}

const miniWebhookDoc = `openapi: 3.1.0
info: {title: Mini, version: '1'}
paths: {}
webhooks:
  thing.done:
    post:
      summary: A thing is done.
      security: []
      parameters:
        - {name: webhook-id, in: header, required: true, schema: {type: string}}
      requestBody:
        required: true
        content:
          application/json:
            schema: {$ref: '#/components/schemas/ThingDone'}
      responses:
        '2XX': {description: Delivered.}
        default: {description: Retried.}
  thing.made:
    post:
      summary: A thing is made.
      security: []
      responses:
        '2XX': {description: Delivered.}
components:
  schemas:
    Thing:
      type: object
      properties:
        status: {type: string, enum: [new, done, gone]}
        price: {type: [number, 'null']}
    ThingDone:
      type: object
      required: [data]
      properties:
        data:
          allOf:
            - $ref: '#/components/schemas/Thing'
            - properties:
                status: {enum: [done]}
                price: {type: 'null'}
`

func TestWebhookRendering(t *testing.T) {
	page, err := APIReference([]byte(miniWebhookDoc))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"| [`thing.done`](#thingdone) | A thing is done. | [ThingDone](#thingdone) |",
		"## thing.done\n\nA thing is done.\n",
		"| API key | none; the request is signed (headers below) |",
		"| `webhook-id` | yes | string |",
		"| `data` | [Thing](#thing) with `price` null, `status` `done` | yes |",
		"| 2XX | Delivered. |\n| default | Retried. |",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q\npage:\n%s", want, page)
		}
	}
	if strings.Index(page, "## thing.done\n") > strings.Index(page, "## thing.made\n") {
		t.Error("webhooks are not in the document's order")
	}
}
