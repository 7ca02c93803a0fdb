package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/moveleads/partnerapi/shared/adapter/webhookhttp"
	"github.com/moveleads/partnerapi/shared/domain/webhook"
	"github.com/moveleads/partnerapi/shared/spec/openapi"
	"github.com/moveleads/partnerapi/shared/spec/openapi/webhookexample"
)

// webhooksDocFile is the partners' webhook guide, relative to the README.
// Its tables and examples are generated blocks; the prose around them is
// written by hand.
const webhooksDocFile = "docs/WEBHOOKS.md"

// writeWebhooksDoc renders the generated blocks of docs/WEBHOOKS.md beside
// readme, or with check only reports that they are stale.
func writeWebhooksDoc(readme string, check bool) error {
	path := filepath.Join(filepath.Dir(readme), filepath.FromSlash(webhooksDocFile))
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	blocks, err := WebhookBlocks()
	if err != nil {
		return err
	}
	out, err := renderBlocks(string(b), blocks, webhooksDocFile)
	if err != nil {
		return err
	}
	if out == string(b) {
		return nil
	}
	if check {
		return errors.New(path + " is stale: run `make docs`")
	}
	return os.WriteFile(path, []byte(out), 0o644)
}

// WebhookBlocks maps each generated block of docs/WEBHOOKS.md to its
// content: the event types (webhook.Catalogue, with the body schema of the
// OpenAPI document), an example of each as sent (webhookexample, the
// real payload and signing code), a verifier test vector, and the retry
// schedule (webhook.Schedule).
func WebhookBlocks() (map[string]string, error) {
	ds, err := webhookexample.Deliveries()
	if err != nil {
		return nil, err
	}
	events, err := webhookEventsTable()
	if err != nil {
		return nil, err
	}
	var examples strings.Builder
	for i, d := range ds {
		if i > 0 {
			examples.WriteString("\n")
		}
		fmt.Fprintf(&examples, "`%s`:\n\n%s", d.Event.Type, deliveryBlock(d))
	}
	vector, err := testVector(ds)
	if err != nil {
		return nil, err
	}
	return map[string]string{
		"events":      events,
		"examples":    examples.String(),
		"test-vector": vector,
		"schedule":    scheduleTable(),
	}, nil
}

// webhookEventsTable is the table of event types: when each is sent and
// its body's schema in docs/API.md.
func webhookEventsTable() (string, error) {
	spec, err := openapi3.NewLoader().LoadFromData(openapi.Document)
	if err != nil {
		return "", fmt.Errorf("load OpenAPI document: %w", err)
	}
	var b strings.Builder
	b.WriteString("| Event type | Sent when | Body ([API reference](API.md)) |\n|---|---|---|\n")
	for _, k := range webhook.Catalogue {
		body := "**not in the OpenAPI document**"
		if item := spec.Webhooks[string(k.Type)]; item != nil && item.Post != nil {
			if name, ok := strings.CutPrefix(refWebhookBodyRef(item.Post), "#/components/schemas/"); ok {
				body = "[" + name + "](API.md#" + refAnchor(name) + ")"
			}
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s |\n", k.Type, refCell(k.When), body)
	}
	return b.String(), nil
}

// refWebhookBodyRef is the $ref of op's JSON request body schema, or "".
func refWebhookBodyRef(op *openapi3.Operation) string {
	if op.RequestBody == nil || op.RequestBody.Value == nil {
		return ""
	}
	if mt := op.RequestBody.Value.Content.Get("application/json"); mt != nil && mt.Schema != nil {
		return mt.Schema.Ref
	}
	return ""
}

// deliveryBlock shows delivery d as the endpoint receives it: the request
// line and headers, then the body, indented for reading (the service sends
// it on one line, in this key order).
func deliveryBlock(d webhookexample.Delivery) string {
	var body bytes.Buffer
	if err := json.Indent(&body, d.Body, "", "  "); err != nil {
		body.Reset()
		body.Write(d.Body)
	}
	var b strings.Builder
	b.WriteString("```http\nPOST /your/webhook/endpoint HTTP/1.1\n")
	fmt.Fprintf(&b, "Content-Type: %s\nUser-Agent: %s\n", d.Headers["Content-Type"], webhookhttp.UserAgent)
	for _, h := range []string{webhook.HeaderID, webhook.HeaderTimestamp, webhook.HeaderSignature} {
		fmt.Fprintf(&b, "%s: %s\n", h, d.Headers[h])
	}
	fmt.Fprintf(&b, "\n%s\n```\n", body.Bytes())
	return b.String()
}

// testVector is the survey.completed example as a verifier's test case:
// the secret, the headers and the exact body; and the signature header of
// the same delivery during a rotation.
func testVector(ds []webhookexample.Delivery) (string, error) {
	var d webhookexample.Delivery
	for _, x := range ds {
		if x.Event.Type == webhook.SurveyCompleted {
			d = x
		}
	}
	rotation, err := webhookexample.Rotation(d)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString("```text\n")
	fmt.Fprintf(&b, "secret:            %s\n", webhookexample.Secret)
	for _, h := range []string{webhook.HeaderID, webhook.HeaderTimestamp, webhook.HeaderSignature} {
		fmt.Fprintf(&b, "%-18s %s\n", h+":", d.Headers[h])
	}
	fmt.Fprintf(&b, "body (exact bytes, one line, no newline at the end):\n%s\n```\n\n", d.Body)
	fmt.Fprintf(&b, "During a rotation from that secret to `%s`, the same delivery carries both signatures, the new secret's first:\n\n", webhookexample.NextSecret)
	fmt.Fprintf(&b, "```text\n%s: %s\n```\n", webhook.HeaderSignature, rotation)
	return b.String(), nil
}

// scheduleTable is the retry schedule: each attempt's delay after the
// previous failure, with its jitter, and when it comes at the earliest
// and latest after the first attempt.
func scheduleTable() string {
	var b strings.Builder
	fmt.Fprintf(&b, "| Attempt | After the previous failure | With jitter (±%d%%) | After the first attempt (about) |\n|---|---|---|---|\n", int(webhook.Jitter*100))
	var total time.Duration
	for i, d := range webhook.Schedule {
		if i == 0 {
			b.WriteString("| 1 | at once (seconds after the event) | — | — |\n")
			continue
		}
		total += d
		lo, hi := time.Duration(float64(d)*(1-webhook.Jitter)), time.Duration(float64(d)*(1+webhook.Jitter))
		fmt.Fprintf(&b, "| %d | %s | %s to %s | %s |\n", i+1, humanDuration(d), humanDuration(lo), humanDuration(hi), roughDuration(total))
	}
	fmt.Fprintf(&b, "\n%d attempts at most, each given %s to answer; the last comes about %s (%s) after the first (±%d%%, plus the time the attempts took).\n",
		webhook.Attempts, humanDuration(webhook.AttemptTimeout), roughDuration(total), humanDays(total), int(webhook.Jitter*100))
	return b.String()
}

// humanDuration writes d in the largest unit that keeps it readable:
// "5 s", "4.5 min", "2.2 h", "75.6 h".
func humanDuration(d time.Duration) string {
	unit, size := "s", time.Second
	switch {
	case d >= time.Hour:
		unit, size = "h", time.Hour
	case d >= time.Minute:
		unit, size = "min", time.Minute
	}
	return strconv.FormatFloat(float64(d)/float64(size), 'f', -1, 64) + " " + unit
}

// roughDuration writes d in its two largest units, the smaller dropped
// when it is 0: "5 s", "35 min 5 s", "2 h 35 min".
func roughDuration(d time.Duration) string {
	h, m, sec := int(d/time.Hour), int(d%time.Hour/time.Minute), int(d%time.Minute/time.Second)
	switch {
	case h > 0 && m > 0:
		return fmt.Sprintf("%d h %d min", h, m)
	case h > 0:
		return fmt.Sprintf("%d h", h)
	case m > 0 && sec > 0:
		return fmt.Sprintf("%d min %d s", m, sec)
	case m > 0:
		return fmt.Sprintf("%d min", m)
	}
	return fmt.Sprintf("%d s", sec)
}

// humanDays writes d as whole days and tenths of hours: "3 days 3.6 h".
func humanDays(d time.Duration) string {
	days := int(d / (24 * time.Hour))
	rest := strconv.FormatFloat(float64(d%(24*time.Hour))/float64(time.Hour), 'f', 1, 64) + " h"
	switch days {
	case 0:
		return rest
	case 1:
		return "1 day " + rest
	}
	return fmt.Sprintf("%d days %s", days, rest)
}
