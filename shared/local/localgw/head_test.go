package localgw_test

import (
	"context"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/domain/partner"
	"github.com/moveleads/partnerapi/shared/local/localgw"
	"github.com/moveleads/partnerapi/shared/spec/manifest"
	"github.com/moveleads/partnerapi/shared/testkit/apitest"
)

func TestMain(m *testing.M) { apitest.MainS3(m) }

// TestPagesAnswerHEAD: each page (capture, viewer, quote) answers HEAD
// through the local gateway as GET does, status and headers, without a
// body, for a live link and a dead one; the Lambda's own answer carries
// no body either (API Gateway routes HEAD to it: manifest.Route.Methods).
// Before, HEAD fell to the $default route: 405 JSON.
func TestPagesAnswerHEAD(t *testing.T) {
	env := apitest.New(t, apitest.Options{S3: true})
	pid := env.NewPartner(t, "Acme Movers")
	key, _ := env.NewKey(t, pid, auth.Test)
	ctx := context.Background()
	if _, err := env.Store.SetBeta(ctx, pid, []partner.Feature{partner.Deposits}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := env.Store.SetDepositSettings(ctx, pid, partner.DepositSettings{
		CarrierLegalName: "Acme Moving LLC", USDOTNumber: "1234567", StripeAccount: "acct_1HeadTest",
	}); err != nil {
		t.Fatal(err)
	}
	sv := env.PlayableSurvey(t, key, apitest.MP4Clip)
	view := apitest.Want(t, env.Do(t, "POST", "/v1/surveys/"+sv.SurveyID+"/video-access", key, `{"ttl_hours":24}`), 200, "")
	quote := apitest.Want(t, env.Do(t, "POST", "/v1/leads/"+sv.LeadID+"/quote", key,
		`{"estimate_type":"binding","price_cents":245000,"deposit_cents":25000,"expires_in_days":14}`), 200, "")
	pathOf := func(s any) string {
		u, err := url.Parse(s.(string))
		if err != nil {
			t.Fatal(err)
		}
		return u.Path
	}
	pages := []struct {
		op   manifest.Operation
		path string
	}{
		{manifest.CapturePage, sv.CapturePath},
		{manifest.VideoPage, pathOf(view["view_url"])},
		{manifest.QuotePage, pathOf(quote["quote_url"])},
		{manifest.VideoPage, "/v1-video/" + strings.Repeat("A", 43)}, // no such link
	}
	for _, pg := range pages {
		t.Run(pg.path[:10], func(t *testing.T) {
			get := env.DoRaw(t, "GET", pg.path, "", "")
			head := env.DoRaw(t, "HEAD", pg.path, "", "")
			if get.Status == 405 || head.Status != get.Status || len(get.Body) == 0 {
				t.Fatalf("GET %d (%d bytes), HEAD %d; want HEAD answering as GET", get.Status, len(get.Body), head.Status)
			}
			for _, h := range []string{"Content-Type", "Content-Security-Policy", "Cache-Control"} {
				if head.Header.Get(h) != get.Header.Get(h) {
					t.Errorf("HEAD %s %q; GET's %q", h, head.Header.Get(h), get.Header.Get(h))
				}
			}
			if !strings.HasPrefix(head.Header.Get("Content-Type"), "text/html") || head.Header.Get("Allow") != "" {
				t.Errorf("HEAD Content-Type %q, Allow %q; want the page's HTML and no Allow", head.Header.Get("Content-Type"), head.Header.Get("Allow"))
			}
			// The function's answer, as API Gateway gets it: no body.
			rt, template, name, value, _, ok := manifest.Resolve(manifest.Routes(), "HEAD", pg.path)
			if !ok || rt.Operation != pg.op {
				t.Fatalf("Resolve(HEAD %s) = %s %v; want %s", pg.path, rt.Operation, ok, pg.op)
			}
			ev := localgw.Event(httptest.NewRequest("HEAD", pg.path, nil), rt, template, name, value, nil)
			if ev.RouteKey != "HEAD "+template {
				t.Errorf("route key %q; want HEAD %s", ev.RouteKey, template)
			}
			resp, err := env.Stack.Route(pg.op)(ctx, ev)
			if err != nil || resp.StatusCode != get.Status || resp.Body != "" {
				t.Errorf("the function's HEAD answer: %d, %d bytes, %v; want %d and no body", resp.StatusCode, len(resp.Body), err, get.Status)
			}
		})
	}
}
