package cost

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/moveleads/partnerapi/scripts/bench/report"
	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/domain/webhook"
	"github.com/moveleads/partnerapi/shared/spec/manifest"
	"github.com/moveleads/partnerapi/shared/testkit/dynamometer"
)

// RunEvents measures a listEvents page (unfiltered, by type, by lead) for
// a partner with 10 events and one with o.BigTenant: the read units must
// not grow with the partner's events (one keyed Query of a listing index,
// no filter expression). It uses a table of its own.
func RunEvents(ctx context.Context, o Options) ([]report.Row, error) {
	o = o.withDefaults()
	b, err := newBench(ctx, o.Endpoint)
	if err != nil {
		return nil, err
	}
	defer b.drop()
	return b.eventRows(ctx, o)
}

func (o Options) withDefaults() Options {
	if o.BigTenant == 0 {
		o.BigTenant = 10000
	}
	if o.PageSize == 0 {
		o.PageSize = 5
	}
	return o
}

// Two types of the same length, so the items' sizes do not differ by type.
var benchTypes = []webhook.Type{webhook.SurveyCompleted, webhook.DepositRefunded}

func (b *bench) eventRows(ctx context.Context, o Options) ([]report.Row, error) {
	const smallTenant = 10
	small, smallKey, err := b.partner(ctx)
	if err != nil {
		return nil, err
	}
	smallLead, err := b.seedEvents(ctx, small, smallTenant, 1)
	if err != nil {
		return nil, err
	}
	big, bigKey, err := b.partner(ctx)
	if err != nil {
		return nil, err
	}
	// 100 leads: each has o.BigTenant/100 events, every page full.
	bigLead, err := b.seedEvents(ctx, big, o.BigTenant, 100)
	if err != nil {
		return nil, err
	}
	page := func(key string, q map[string]string) (dynamometer.Sample, error) {
		if _, err := b.call(ctx, manifest.ListEvents, key, "", nil, nil, nil); err != nil { // warm the window guess
			return dynamometer.Sample{}, err
		}
		b.meter.Take()
		if _, err := b.call(ctx, manifest.ListEvents, key, "", nil, q, nil); err != nil {
			return dynamometer.Sample{}, err
		}
		return b.meter.Take(), nil
	}
	var rows []report.Row
	for _, f := range []struct{ name, param, small, big string }{
		{"", "", "", ""},
		{", type filter", "type", string(benchTypes[0]), string(benchTypes[0])},
		{", lead filter", "lead_id", smallLead, bigLead},
	} {
		q := func(v string) map[string]string {
			m := map[string]string{"limit": fmt.Sprint(o.PageSize)}
			if f.param != "" {
				m[f.param] = v
			}
			return m
		}
		s10, err := page(smallKey, q(f.small))
		if err != nil {
			return nil, err
		}
		s10k, err := page(bigKey, q(f.big))
		if err != nil {
			return nil, err
		}
		rows = append(rows, report.Row{Section: "DynamoDB cost", Metric: fmt.Sprintf("listEvents page (limit %d%s), partner with %d events", o.PageSize, f.name, o.BigTenant),
			Value:  fmt.Sprintf("%d round trips (%s); %.1f RCU", len(s10k.Trips), strings.Join(s10k.Trips, ", "), s10k.Read),
			Budget: "≤ 2 round trips", OK: report.Check(len(s10k.Trips) <= 2)})
		ratio := s10k.Read / s10.Read
		rows = append(rows, report.Row{Section: "DynamoDB cost", Metric: fmt.Sprintf("listEvents page read units%s, %d events ÷ %d events", f.name, o.BigTenant, smallTenant),
			Value: fmt.Sprintf("%.2f (%.1f RCU ÷ %.1f RCU)", ratio, s10k.Read, s10.Read), Budget: "≤ 1.1", OK: report.Check(ratio <= 1.1)})
	}
	return rows, nil
}

// seedEvents stores n events for t within the last hour, alternating
// benchTypes, about leads lead ids in turn, eight writers at a time, and
// returns the first lead's id.
func (b *bench) seedEvents(ctx context.Context, t auth.Tenant, n, leads int) (string, error) {
	defer b.meter.Take()
	ids := make([]string, leads)
	for i := range ids {
		ids[i] = uuid.NewString()
	}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < n; i += 8 {
				leadID := ids[i%leads]
				data, _ := json.Marshal(webhook.SurveyData{LeadID: leadID, SurveyID: uuid.NewString(), Mode: string(t.Mode)})
				e := webhook.Event{ID: "evt_" + uuid.NewString() + "_" + string(benchTypes[i%2]), Type: benchTypes[i%2], Mode: string(t.Mode),
					At: b.now.Add(-time.Hour).Add(time.Duration(i) * time.Microsecond), Data: data, LeadID: leadID}
				if _, err := b.store.PutEvent(ctx, t, e); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	return ids[0], <-errs
}
