package dashboardapp

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/a-h/templ"
	"github.com/chromedp/chromedp"

	"github.com/moveleads/partnerapi/shared/testkit/browser"
)

// developersPages are the Developers pages with a row in each table, as
// an admin in test mode sees them.
func developersPages() map[string]templ.Component {
	s := shell{Title: "Developers", CSRF: "csrf", Email: "ada@demo.example", Role: "admin", Admin: true}
	keys := []keyRow{
		{ID: "key_01JD5Q", Prefix: "mlk_test_ab12…", Mode: "test", Scopes: "leads:read, leads:write, surveys:write", Created: "2026-11-02 10:04 UTC", LastUsed: "never", CreatedBy: "ada@demo.example"},
		{ID: "key_01JD5R", Prefix: "mlk_test_cd34…", Mode: "test", Scopes: "leads:read", Created: "2026-11-01 09:00 UTC", LastUsed: "2026-11-02 10:00 UTC", CreatedBy: "—", Revoked: "2026-11-02 11:00 UTC"},
	}
	ep := endpointRow{ID: "we_01JD5S", URL: "https://hooks.example.com/moveleads/webhooks", Types: "all events", Created: "2026-11-02 10:05 UTC", State: "enabled"}
	events := []eventRow{{ID: "evt_01JD5T4X9Z", Type: "lead.created", Created: "2026-11-02T10:06:00Z", LeadID: "0b7e4c1a-6f2d-4c55-9a31-3f1e2d9c8b70"}}
	return map[string]templ.Component{
		"keys":     keysDocument(keysView{shell: s, Keys: keys, Scopes: []string{"leads:read"}, Recent: true}),
		"webhooks": webhooksDocument(webhooksView{shell: s, Endpoints: []endpointRow{ep}}),
		"events":   eventsDocument(eventsView{shell: s, Events: events, Types: []string{"lead.created"}}),
		"people": peopleDocument(peopleView{shell: s, People: []personRow{
			{ID: "p1", Email: "grace@demo.example", Role: "viewer", Created: "1 Mar 2027", Passkeys: 1},
			{ID: "p2", Email: "ada@demo.example", Role: "admin", Created: "1 Mar 2027", Passkeys: 2, Self: true}}}),
		"audit": auditDocument(auditView{shell: s, Entries: []auditRow{{At: "2027-03-01 09:00:00 UTC", Actor: "ada@demo.example", Action: "person.joined", Target: "person ada@demo.example (admin)"}}}),
		"lead": leadDocument(leadView{shell: s, ID: "0b7e4c1a", Customer: "Ada Lovelace", Status: "new", From: "1 Main St, New York, NY 10001",
			To: "9 Oak Ave, Boston, MA 02108", Home: "2 bedroom", Estimate: "$1,083–$1,473", Recommended: "—",
			Created: "Monday, March 1, 2027 at 9:00 AM UTC", Updated: "Monday, March 1, 2027 at 9:00 AM UTC", SurveyStatus: "none", Deposit: "none"}),
	}
}

// TestDevelopersTablesLabelCellsOnPhone: in Chromium at 390×844, the API
// keys, webhook endpoints, events, people and audit tables read as
// labelled rows, as the leads table does: the header row is hidden and
// every cell of a data row shows its column's heading before its value
// (::before). A lead's facts stack each label above its value, so a long
// value (an address, a date) gets the phone's whole width.
func TestDevelopersTablesLabelCellsOnPhone(t *testing.T) {
	browser.Require(t)
	pages := developersPages()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		d, ok := asset(strings.TrimPrefix(r.URL.Path, "/dashboard/assets/"))
		if c, found := pages[strings.TrimPrefix(r.URL.Path, "/")]; found {
			var err error
			if d, err = page(200, c); err != nil {
				t.Error(err)
			}
		} else if !ok {
			http.NotFound(w, r)
			return
		}
		for k, v := range d.Header {
			w.Header().Set(k, v)
		}
		w.WriteHeader(d.Status)
		w.Write(d.Body)
	}))
	t.Cleanup(srv.Close)
	ctx, cancel, err := browser.Start(context.Background(), browser.Logf(t.Logf))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cancel)
	// For each cell of each table's first data row: its column's heading
	// and what its ::before shows; and whether the header row shows.
	const read = `(() => {
		const t = document.querySelector("main table");
		const heads = [...t.querySelectorAll("thead th")].map(th => th.textContent.trim());
		const cells = [...t.querySelector("tbody tr").children].map((td, i) => ({head: heads[i], before: getComputedStyle(td, "::before").content}));
		return {theadShown: getComputedStyle(t.querySelector("thead")).display !== "none", cells};
	})()`
	type cell struct{ Head, Before string }
	type table struct {
		TheadShown bool
		Cells      []cell
	}
	for _, name := range []string{"keys", "webhooks", "events", "people", "audit"} {
		c, cancel := context.WithTimeout(ctx, 30*time.Second)
		err := chromedp.Do(c, browser.Phone(), chromedp.Navigate(srv.URL+"/"+name))
		var got table
		if err == nil {
			got, err = chromedp.Run(c, chromedp.Evaluate[table](read))
		}
		cancel()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if dir := os.Getenv("SCREENSHOT_DIR"); dir != "" {
			if err := browser.Screenshot(ctx, filepath.Join(dir, "dashboard-developers-"+name+"-labels-390.png")); err != nil {
				t.Error(err)
			}
		}
		if got.TheadShown {
			t.Errorf("%s: the header row shows at 390 px; want it hidden (each cell labelled)", name)
		}
		if len(got.Cells) < 4 {
			t.Fatalf("%s: %d cells in the first row; want the table's columns", name, len(got.Cells))
		}
		for i, c := range got.Cells {
			if want := `"` + c.Head + `: "`; c.Before != want {
				t.Errorf("%s: cell %d ::before content %s; want %s", name, i, c.Before, want)
			}
		}
	}

	c, cancelLead := context.WithTimeout(ctx, 30*time.Second)
	defer cancelLead()
	if err := chromedp.Do(c, browser.Phone(), chromedp.Navigate(srv.URL+"/lead")); err != nil {
		t.Fatal(err)
	}
	cols, err := chromedp.Run(c, chromedp.Evaluate[string](`getComputedStyle(document.querySelector("dl.facts")).gridTemplateColumns`))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(strings.TrimSpace(cols), " ") {
		t.Errorf("lead facts at 390 px: grid columns %q; want one column (each label above its value)", cols)
	}
}
