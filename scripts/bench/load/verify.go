package load

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sync"
)

// maxListRequests bounds the paging of one partner's leads (100 a page).
const maxListRequests = 2000

// leadCheck compares the leads the API lists after a run with those the
// run's first-time createLead calls were answered 200 for.
type leadCheck struct {
	created int // distinct lead_ids of first-time createLead 200s
	counted int // leads listed
	// doubled counts lead_ids answered to two first-time creates or listed
	// twice; missing created leads not listed; unknown listed leads no 200
	// announced.
	doubled, missing, unknown int
	// err is why the leads could not be counted.
	err error
}

func (c leadCheck) ok() bool {
	return c.err == nil && c.created == c.counted && c.doubled+c.missing+c.unknown == 0
}

// checkLeads pages through each partner's leads through the API and
// compares them with the samples' first-time creates.
func checkLeads(ctx context.Context, hc *http.Client, base string, ks keySet, samples []sample) leadCheck {
	var c leadCheck
	want := make([]map[string]bool, len(ks.partners))
	for p := range want {
		want[p] = map[string]bool{}
	}
	for _, s := range samples {
		if s.op != opCreate || s.status != http.StatusOK {
			continue
		}
		p := ks.partnerOf(s.key)
		if want[p][s.leadID] {
			c.doubled++
		}
		want[p][s.leadID] = true
	}
	listed := make([][]string, len(ks.partners))
	errs := make([]error, len(ks.partners))
	var wg sync.WaitGroup
	for p := range ks.partners {
		wg.Go(func() { listed[p], errs[p] = listAll(ctx, hc, base, ks.keysOf(p)) })
	}
	wg.Wait()
	for p := range ks.partners {
		if c.err = cmp.Or(c.err, errs[p]); c.err != nil {
			return c
		}
		c.created += len(want[p])
		c.counted += len(listed[p])
		seen := map[string]bool{}
		for _, id := range listed[p] {
			switch {
			case seen[id]:
				c.doubled++
			case !want[p][id]:
				c.unknown++
			}
			seen[id] = true
		}
		for id := range want[p] {
			if !seen[id] {
				c.missing++
			}
		}
	}
	return c
}

// listAll returns every lead_id of the partner whose keys are keys, paging
// GET /v1/leads?limit=100. A key answered 429 is set aside for the next.
func listAll(ctx context.Context, hc *http.Client, base string, keys []string) ([]string, error) {
	var ids []string
	cursor, k := "", 0
	for range maxListRequests {
		u := base + "/v1/leads?limit=100"
		if cursor != "" {
			u += "&cursor=" + url.QueryEscape(cursor)
		}
		status, body, err := get(ctx, hc, u, keys[k%len(keys)])
		if err != nil {
			return nil, fmt.Errorf("list leads: %w", err)
		}
		if status == http.StatusTooManyRequests {
			if k++; k >= 2*len(keys) {
				return nil, fmt.Errorf("list leads: every key of the partner is rate limited")
			}
			continue
		}
		if status != http.StatusOK {
			return nil, fmt.Errorf("list leads: status %d: %.200s", status, body)
		}
		var page struct {
			Data []struct {
				LeadID string `json:"lead_id"`
			} `json:"data"`
			NextCursor *string `json:"next_cursor"`
		}
		if err := json.Unmarshal(body, &page); err != nil {
			return nil, fmt.Errorf("list leads: decode page: %w", err)
		}
		for _, l := range page.Data {
			ids = append(ids, l.LeadID)
		}
		if page.NextCursor == nil {
			return ids, nil
		}
		cursor = *page.NextCursor
	}
	return nil, fmt.Errorf("list leads: more than %d requests", maxListRequests)
}

// get sends GET u with key and returns the status and body.
func get(ctx context.Context, hc *http.Client, u, key string) (int, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := hc.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, b, err
}
