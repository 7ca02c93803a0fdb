package main

import (
	"bytes"
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// refWebhooks returns the names of the document's webhooks (OpenAPI 3.1
// `webhooks`) that have a POST, in the order they appear in doc.
func refWebhooks(spec *openapi3.T, doc []byte) []string {
	var names []string
	for name, item := range spec.Webhooks {
		if item != nil && item.Post != nil {
			names = append(names, name)
		}
	}
	pos := func(name string) int {
		i := bytes.Index(doc, []byte("\n  "+name+":\n"))
		if i < 0 {
			return len(doc)
		}
		return i
	}
	slices.SortFunc(names, func(a, b string) int { return cmp.Or(cmp.Compare(pos(a), pos(b)), cmp.Compare(a, b)) })
	return names
}

// refWriteWebhookIndex writes the table of the webhooks the service sends
// (nothing when there are none).
func refWriteWebhookIndex(b *strings.Builder, spec *openapi3.T, names []string) {
	if len(names) == 0 {
		return
	}
	b.WriteString("## Webhooks\n\nEvents the service POSTs to the partner's endpoints (OpenAPI `webhooks`); the partner's guide, with every example as sent, is [WEBHOOKS.md](WEBHOOKS.md).\n\n")
	b.WriteString("| Event type | Summary | Body |\n|---|---|---|\n")
	for _, name := range names {
		op := spec.Webhooks[name].Post
		fmt.Fprintf(b, "| [`%s`](#%s) | %s | %s |\n", name, refWebhookAnchor(name), refCell(op.Summary), refWebhookBody(op))
	}
	b.WriteString("\n")
}

// refWriteWebhook writes one webhook's section: summary, how it is sent
// and authenticated, description, headers, body fields and answers.
func refWriteWebhook(b *strings.Builder, name string, op *openapi3.Operation) {
	fmt.Fprintf(b, "## %s\n\n%s\n\n| | |\n|---|---|\n| Webhook | `POST` to the partner's endpoint URL |\n", name, op.Summary)
	auth := "none"
	if op.Security == nil || len(*op.Security) > 0 {
		auth = "as the document's security requirement"
	}
	fmt.Fprintf(b, "| API key | %s; the request is signed (headers below) |\n\n", auth)
	if d := strings.TrimSpace(op.Description); d != "" {
		b.WriteString(d + "\n\n")
	}
	if len(op.Parameters) > 0 {
		b.WriteString("### Headers\n\n| Name | Required | Type | Description |\n|---|---|---|---|\n")
		for _, pr := range op.Parameters {
			p := pr.Value
			fmt.Fprintf(b, "| `%s` | %s | %s | %s |\n", p.Name, refYesNo(p.Required), refType(p.Schema), refCell(p.Description))
		}
		b.WriteString("\n")
	}
	if rb := op.RequestBody; rb != nil && rb.Value != nil {
		for _, ct := range refSortedKeys(rb.Value.Content) {
			s := rb.Value.Content[ct].Schema
			fmt.Fprintf(b, "### Request body\n\n`%s`, %s: %s\n\n", ct, map[bool]string{true: "required", false: "optional"}[rb.Value.Required], refType(s))
			if s != nil && s.Value != nil && len(s.Value.Properties) > 0 {
				refWriteFields(b, s.Value)
			}
		}
	}
	b.WriteString("### Answers\n\n| Status | Meaning |\n|---|---|\n")
	for _, status := range refSortedKeys(op.Responses.Map()) {
		desc := ""
		if r := op.Responses.Value(status).Value; r.Description != nil {
			desc = *r.Description
		}
		fmt.Fprintf(b, "| %s | %s |\n", status, refCell(desc))
	}
	b.WriteString("\n")
}

// refWebhookBody is the type of op's JSON request body.
func refWebhookBody(op *openapi3.Operation) string {
	if op.RequestBody == nil || op.RequestBody.Value == nil {
		return ""
	}
	if mt := op.RequestBody.Value.Content.Get("application/json"); mt != nil {
		return refType(mt.Schema)
	}
	return ""
}

// refWebhookAnchor is the GitHub heading anchor of a webhook's heading
// (its name: GitHub drops the dots).
func refWebhookAnchor(name string) string { return strings.ReplaceAll(strings.ToLower(name), ".", "") }

// refAllOf describes an allOf: its named parts as links, and what its
// inline parts narrow ("with `survey.status` `failed`").
func refAllOf(parts openapi3.SchemaRefs) string {
	var names, narrowed []string
	for _, p := range parts {
		if p.Ref != "" || p.Value == nil {
			names = append(names, refType(p))
			continue
		}
		narrowed = append(narrowed, refNarrowing("", p.Value)...)
	}
	text := strings.Join(names, " and ")
	if len(narrowed) > 0 {
		text += " with " + strings.Join(narrowed, ", ")
	}
	return strings.TrimSpace(text)
}

// refNarrowing lists the constraints an inline schema puts on the
// properties below prefix: a single value, a set of values, null, or a
// named schema (not null).
func refNarrowing(prefix string, s *openapi3.Schema) []string {
	var out []string
	for _, name := range refSortedKeys(s.Properties) {
		p := s.Properties[name]
		path := prefix + name
		switch {
		case p.Ref != "":
			out = append(out, "`"+path+"` "+refType(p))
		case p.Value == nil:
		case len(p.Value.Properties) > 0:
			out = append(out, refNarrowing(path+".", p.Value)...)
		case len(p.Value.Enum) == 1:
			out = append(out, fmt.Sprintf("`%s` `%v`", path, p.Value.Enum[0]))
		case len(p.Value.Enum) > 1:
			vals := make([]string, len(p.Value.Enum))
			for i, v := range p.Value.Enum {
				vals[i] = fmt.Sprintf("`%v`", v)
			}
			out = append(out, "`"+path+"` one of "+strings.Join(vals, ", "))
		case p.Value.Type.Is("null"):
			out = append(out, "`"+path+"` null")
		}
	}
	return out
}
