// Package cost measures what each operation costs in DynamoDB, through the
// real handlers against DynamoDB Local: round trips and capacity units, as
// package dynamometer's SDK middleware counts them.
package cost

import (
	"context"
	"crypto/rand"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/google/uuid"

	"github.com/moveleads/partnerapi/scripts/bench/report"
	"github.com/moveleads/partnerapi/shared/adapter/dynamo"
	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/domain/estimate"
	"github.com/moveleads/partnerapi/shared/domain/lead"
	"github.com/moveleads/partnerapi/shared/domain/partner"
	"github.com/moveleads/partnerapi/shared/spec/manifest"
	"github.com/moveleads/partnerapi/shared/spec/settings"
	"github.com/moveleads/partnerapi/shared/testkit/dynamometer"
	"github.com/moveleads/partnerapi/shared/wire/catalog"
)

// Options configures Run.
type Options struct {
	Endpoint  string // DynamoDB Local
	BigTenant int    // leads of the large partner (default 10,000)
	// PageSize is the listLeads page compared (default 5): smaller than the
	// small partner's 10 leads, so both pages are full and both queries read
	// PageSize+1 items (the look-ahead that makes has_more exact).
	PageSize int
}

type bench struct {
	h     *catalog.Stack
	store *dynamo.Store
	meter *dynamometer.Meter
	now   time.Time
	// drop deletes the bench's table: its 10,000 leads and their stream
	// records would otherwise stay in the shared DynamoDB Local and slow
	// the sections measured after this one.
	drop func()
}

// Run measures every operation and returns the rows.
func Run(ctx context.Context, o Options) ([]report.Row, error) {
	o = o.withDefaults()
	b, err := newBench(ctx, o.Endpoint)
	if err != nil {
		return nil, err
	}
	defer b.drop()
	small, smallKey, err := b.partner(ctx)
	if err != nil {
		return nil, err
	}
	body := `{"customer_name":"Ada Lovelace","email":"ada@example.com","from_address":"1 Main St, New York, NY 10001","to_address":"9 Oak Ave, Boston, MA 02108","home_size":"2 bedroom"}`
	// Warm the instance's window guess, as on a function that served the key this minute.
	if _, err := b.call(ctx, manifest.ListLeads, smallKey, "", nil, nil, nil); err != nil {
		return nil, err
	}
	var rows []report.Row
	measure := func(name string, op manifest.Operation, budgetTrips int, budgetWrite float64, body string, hdr, q, params map[string]string) (string, error) {
		b.meter.Take()
		resp, err := b.call(ctx, op, smallKey, body, hdr, q, params)
		if err != nil {
			return "", err
		}
		s := b.meter.Take()
		value := fmt.Sprintf("%d round trips (%s); %.1f RCU, %.1f WCU", len(s.Trips), strings.Join(s.Trips, ", "), s.Read, s.Write)
		row := report.Row{Section: "DynamoDB cost", Metric: name, Value: value}
		var budgets []string
		ok := true
		if budgetTrips > 0 {
			budgets = append(budgets, fmt.Sprintf("≤ %d round trips", budgetTrips))
			ok = ok && len(s.Trips) <= budgetTrips
		}
		if budgetWrite > 0 {
			budgets = append(budgets, fmt.Sprintf("≤ %.0f WCU", budgetWrite))
			ok = ok && s.Write <= budgetWrite
		}
		if len(budgets) > 0 {
			row.Budget, row.OK = strings.Join(budgets, ", "), report.Check(ok)
		}
		rows = append(rows, row)
		return resp.Body, nil
	}
	// The first request that needs the partner's settings reads them (once
	// per partner per instance per pipeline.SettingsTTL); the rows after it are a
	// warm instance.
	if _, err := measure("createLead, settings cache cold (first for the partner on this instance)", manifest.CreateLead, 0, 0, body, nil, nil, nil); err != nil {
		return nil, err
	}
	created, err := measure("createLead, no Idempotency-Key", manifest.CreateLead, 0, 0, body, nil, nil, nil)
	if err != nil {
		return nil, err
	}
	if _, err := measure("createLead with Idempotency-Key", manifest.CreateLead, 3, 4, body, map[string]string{"idempotency-key": "cost-1"}, nil, nil); err != nil {
		return nil, err
	}
	if _, err := measure("idempotent replay", manifest.CreateLead, 0, 0, body, map[string]string{"idempotency-key": "cost-1"}, nil, nil); err != nil {
		return nil, err
	}
	rows[len(rows)-1].Note = "DynamoDB Local reports no capacity for a failed conditional write; in AWS the claim's failed PutItem costs 1 WCU more."
	id := between(created, `"lead_id":"`, `"`)
	if _, err := measure("getLead", manifest.GetLead, 2, 0, "", nil, nil, map[string]string{"id": id}); err != nil {
		return nil, err
	}

	pages, err := b.pageRows(ctx, o, small, smallKey)
	if err != nil {
		return nil, err
	}
	events, err := b.eventRows(ctx, o)
	if err != nil {
		return nil, err
	}
	dash, err := b.dashboardRows(ctx)
	if err != nil {
		return nil, err
	}
	return append(append(append(rows, pages...), events...), dash...), nil
}

// pageRows measures a listLeads page for the partner small (seeded to 10
// leads) and for a new partner with o.BigTenant leads: the same cost.
func (b *bench) pageRows(ctx context.Context, o Options, small auth.Tenant, smallKey string) ([]report.Row, error) {
	var rows []report.Row
	const smallTenant = 10
	if err := b.seed(ctx, small, smallTenant-3); err != nil { // the three created above
		return nil, err
	}
	big, bigKey, err := b.partner(ctx)
	if err != nil {
		return nil, err
	}
	if err := b.seed(ctx, big, o.BigTenant); err != nil {
		return nil, err
	}
	page := func(key string, q map[string]string) (dynamometer.Sample, error) {
		if _, err := b.call(ctx, manifest.ListLeads, key, "", nil, nil, nil); err != nil { // warm the window guess
			return dynamometer.Sample{}, err
		}
		b.meter.Take()
		if _, err := b.call(ctx, manifest.ListLeads, key, "", nil, q, nil); err != nil {
			return dynamometer.Sample{}, err
		}
		return b.meter.Take(), nil
	}
	lim := map[string]string{"limit": fmt.Sprint(o.PageSize)}
	s10, err := page(smallKey, lim)
	if err != nil {
		return nil, err
	}
	s10k, err := page(bigKey, lim)
	if err != nil {
		return nil, err
	}
	rows = append(rows, report.Row{Section: "DynamoDB cost", Metric: fmt.Sprintf("listLeads page (limit %d), partner with %d leads", o.PageSize, smallTenant),
		Value:  fmt.Sprintf("%d round trips (%s); %.1f RCU, %.1f WCU", len(s10.Trips), strings.Join(s10.Trips, ", "), s10.Read, s10.Write),
		Budget: "≤ 2 round trips", OK: report.Check(len(s10.Trips) <= 2)})
	rows = append(rows, report.Row{Section: "DynamoDB cost", Metric: fmt.Sprintf("listLeads page (limit %d), partner with %d leads", o.PageSize, o.BigTenant),
		Value: fmt.Sprintf("%d round trips (%s); %.1f RCU, %.1f WCU", len(s10k.Trips), strings.Join(s10k.Trips, ", "), s10k.Read, s10k.Write)})
	ratio := s10k.Read / s10.Read
	rows = append(rows, report.Row{Section: "DynamoDB cost", Metric: fmt.Sprintf("page read units, %d leads ÷ %d leads", o.BigTenant, smallTenant),
		Value: fmt.Sprintf("%.2f (%.1f RCU ÷ %.1f RCU)", ratio, s10k.Read, s10.Read), Budget: "≤ 1.1", OK: report.Check(ratio <= 1.1)})
	return rows, nil
}

func newBench(ctx context.Context, endpoint string) (*bench, error) {
	m := &dynamometer.Meter{}
	db := dynamodb.New(dynamodb.Options{
		Region: "us-east-1", BaseEndpoint: aws.String(endpoint),
		Credentials: credentials.NewStaticCredentialsProvider("local", "local", ""),
	}, m.Install)
	name := "bench-cost-" + uuid.NewString()[:8]
	if err := dynamo.CreateTables(ctx, db, name); err != nil {
		return nil, err
	}
	secret := make([]byte, 32)
	_, _ = rand.Read(secret)
	store := dynamo.New(db, name)
	m.Take()
	drop := func() { _ = dynamo.DeleteTables(context.Background(), db, name) }
	// The dashboard's settings: its origin, and a clip bucket it only
	// presigns addresses in (the leads pages read no clip).
	getenv := func(name string) string {
		return map[string]string{settings.PublicBaseURL: "http://127.0.0.1:3000", settings.ClipBucket: "bench-no-bucket"}[name]
	}
	cfg := aws.Config{Region: "us-east-1", Credentials: credentials.NewStaticCredentialsProvider("local", "local", "")}
	return &bench{drop: drop, h: catalog.New(catalog.Deps{Store: store, AWS: cfg, Getenv: getenv, Secret: func(string) func(context.Context) ([]byte, error) {
		return func(context.Context) ([]byte, error) { return secret, nil }
	}}), store: store, meter: m, now: time.Now()}, nil
}

func (b *bench) partner(ctx context.Context) (auth.Tenant, string, error) {
	defer b.meter.Take()
	id := "ptn_" + strings.ReplaceAll(uuid.NewString(), "-", "")[:16]
	if err := b.store.CreatePartner(ctx, partner.Partner{ID: id, Name: "Bench", RateCard: estimate.DefaultRateCard("usd"), CreatedAt: time.Now()}); err != nil {
		return auth.Tenant{}, "", err
	}
	key, keyID, err := auth.NewKey(auth.Test)
	if err != nil {
		return auth.Tenant{}, "", err
	}
	err = b.store.CreateKey(ctx, auth.Key{KeyID: keyID, Digest: auth.Digest(key), PartnerID: id, Mode: auth.Test, Scopes: auth.AllScopes, CreatedAt: time.Now()})
	return auth.Tenant{PartnerID: id, Mode: auth.Test}, key, err
}

// seed stores n leads for t, eight writers at a time.
func (b *bench) seed(ctx context.Context, t auth.Tenant, n int) error {
	defer b.meter.Take()
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := w; i < n; i += 8 {
				at := b.now.Add(-time.Hour).Add(time.Duration(i) * time.Microsecond)
				l := lead.Lead{ID: uuid.NewString(), Status: lead.New, Details: lead.Details{CustomerName: "Customer", Email: "c@example.com"}, CreatedAt: at, UpdatedAt: at}
				if err := b.store.PutLead(ctx, t, l, false); err != nil {
					errs <- err
					return
				}
			}
		}(w)
	}
	wg.Wait()
	close(errs)
	return <-errs
}

type result struct {
	Status int
	Body   string
}

func (b *bench) call(ctx context.Context, op manifest.Operation, key, body string, hdr, q, params map[string]string) (result, error) {
	h := map[string]string{"authorization": "Bearer " + key, "content-type": "application/json"}
	for k, v := range hdr {
		h[k] = v
	}
	raw := url.Values{}
	for k, v := range q {
		raw.Set(k, v)
	}
	ev := events.APIGatewayV2HTTPRequest{Version: "2.0", Headers: h, RawQueryString: raw.Encode(), PathParameters: params, Body: body,
		RequestContext: events.APIGatewayV2HTTPRequestContext{RequestID: "bench-cost"}}
	resp, _ := b.h.Route(op)(ctx, ev)
	if resp.StatusCode != 200 {
		return result{}, fmt.Errorf("%s: status %d: %s", op, resp.StatusCode, resp.Body)
	}
	return result{resp.StatusCode, resp.Body}, nil
}

func between(s, start, end string) string {
	i := strings.Index(s, start)
	if i < 0 {
		return ""
	}
	s = s[i+len(start):]
	j := strings.Index(s, end)
	if j < 0 {
		return ""
	}
	return s[:j]
}
