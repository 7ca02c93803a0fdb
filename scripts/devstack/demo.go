package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// demoLeadBody is the demo lead: addresses and a home size, so that a
// finished survey gets a recommended estimate.
const demoLeadBody = `{"customer_name":"Demo Customer","email":"demo.customer@example.com",` +
	`"from_address":"1 Main St, New York, NY 10001","to_address":"9 Oak Ave, Boston, MA 02108",` +
	`"home_size":"2 bedroom","source":"make-dev"}`

// demoLead is the lead make dev creates, with its survey's capture link.
type demoLead struct {
	LeadID     string
	SurveyID   string
	CaptureURL string
	invite     string // the demo admin's dashboard invitation token
}

// demoSurvey creates the demo lead through the API at base with the demo
// key (createLead), then starts its video survey (getSurveyLink), as a
// partner would: the requests go through the gateway, so they also check
// that the API serves.
func demoSurvey(ctx context.Context, base, key string) (demoLead, error) {
	client := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{Proxy: nil}}
	defer client.CloseIdleConnections()
	var lead struct {
		LeadID string `json:"lead_id"`
	}
	if err := call(ctx, client, base+"/v1/leads", key, demoLeadBody, &lead); err != nil {
		return demoLead{}, fmt.Errorf("create the demo lead: %w", err)
	}
	var link struct {
		SurveyID   string `json:"survey_id"`
		CaptureURL string `json:"capture_url"`
	}
	if err := call(ctx, client, base+"/v1/leads/"+url.PathEscape(lead.LeadID)+"/video-survey", key, "", &link); err != nil {
		return demoLead{}, fmt.Errorf("start the demo lead's video survey: %w", err)
	}
	if lead.LeadID == "" || !strings.HasPrefix(link.CaptureURL, base+"/") {
		return demoLead{}, fmt.Errorf("demo lead %q: capture link %q is not under %s", lead.LeadID, link.CaptureURL, base)
	}
	return demoLead{LeadID: lead.LeadID, SurveyID: link.SurveyID, CaptureURL: link.CaptureURL}, nil
}

// call POSTs body (JSON, or nothing) to u with the API key and decodes a
// 200 answer into v.
func call(ctx context.Context, client *http.Client, u, key, body string, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, strings.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+key)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("POST %s: %d %s", req.URL.Path, resp.StatusCode, bytes.TrimSpace(b))
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("POST %s: decode the answer: %w", req.URL.Path, err)
	}
	return nil
}
