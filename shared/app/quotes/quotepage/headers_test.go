package quotepage

import (
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/moveleads/partnerapi/shared/testkit/htmltest"
)

// checkHeaders checks the headers every quote page answer carries, and
// that the policy allows exactly the inline script and style of the body,
// by hash, and nothing else that runs or loads.
func checkHeaders(t *testing.T, doc Document) {
	t.Helper()
	h := doc.Header
	htmltest.CheckHeaders(t, h,
		map[string]string{"Permissions-Policy": "camera=(), microphone=(), geolocation=(), payment=()"},
		"img-src data:", "connect-src 'self'")
	csp := h["Content-Security-Policy"]
	for _, d := range []string{"frame-src", "object-src", "font-src", "media-src", "worker-src", "child-src"} {
		if htmltest.Directive(csp, d) != nil {
			t.Errorf("CSP has %s; the page needs none: %s", d, csp)
		}
	}
	for _, d := range []string{"script-src", "style-src"} {
		if got := htmltest.Directive(csp, d); len(got) != 1 || !strings.HasPrefix(got[0], "'sha256-") {
			t.Errorf("%s %v; want exactly one hash", d, got)
		}
	}
	els := htmltest.Parse(t, doc.Body)
	for tag, dir := range map[string]string{"script": "script-src", "style": "style-src"} {
		for _, e := range els {
			if e.Tag != tag || e.Attrs["type"] == "application/json" {
				continue
			}
			if got := htmltest.Directive(csp, dir); len(got) != 1 || got[0] != htmltest.HashOf(e.Text) {
				t.Errorf("%s %v; want the hash of the inline <%s>, %s", dir, got, tag, htmltest.HashOf(e.Text))
			}
		}
	}
	for _, e := range els {
		switch {
		case e.Tag == "img" && e.Attrs["id"] == "copy-signature" && strings.HasPrefix(e.Attrs["src"], "data:image/png;base64,"):
			// The signed copy's signature: inline, it loads nothing.
		case e.Tag == "iframe" || e.Tag == "object" || e.Tag == "embed" || e.Tag == "img":
			t.Errorf("the page has an <%s>", e.Tag)
		case e.Tag == "script" && e.Attrs["src"] != "":
			t.Errorf("<script> loads %q", e.Attrs["src"])
		case e.Tag == "link" && e.Attrs["href"] != "data:,":
			t.Errorf("<link> loads %q", e.Attrs["href"])
		case e.Tag == "form" && (e.Attrs["action"] != "" || e.Attrs["method"] != ""):
			t.Errorf("<form> submits by itself: %v", e.Attrs)
		}
	}
	htmltest.CheckNoInlineAttrs(t, els)
}

func TestEveryAnswerCarriesTheHeaders(t *testing.T) {
	closed := bindingPage()
	closed.Stage = StageSuperseded
	docs := map[string]Document{
		"binding": Render(bindingPage()), "non-binding": Render(nonBindingPage()),
		"signed": Render(signedPage()), "closed": Render(closed), "empty": Render(Page{}),
	}
	for _, status := range []int{404, 409, 410, 500} {
		docs[strconv.Itoa(status)] = ErrorPage(status, "Demo Movers")
	}
	docs["410 booked"] = BookedLinkExpiredPage("Demo Movers")
	for name, doc := range docs {
		t.Run(name, func(t *testing.T) {
			checkHeaders(t, doc)
			if got, want := doc.Header["Content-Security-Policy"], Headers()["Content-Security-Policy"]; got != want {
				t.Errorf("CSP %q; want Headers()'s %q", got, want)
			}
		})
	}
}

func TestBookedLinkExpiredPage(t *testing.T) {
	for company, want := range map[string][]string{
		"Demo Movers": {"Your move is booked", "your move with Demo Movers is booked. Demo Movers has your booking details"},
		"":            {"Your move is booked", "your move with the moving company is booked. The moving company has your booking details"},
	} {
		doc := BookedLinkExpiredPage(company)
		if doc.Status != 410 {
			t.Errorf("status %d; want 410", doc.Status)
		}
		checkHeaders(t, doc)
		text := htmltest.VisibleText(t, doc.Body)
		for _, w := range want {
			if !strings.Contains(text, w) {
				t.Errorf("the page does not say %q:\n%s", w, text)
			}
		}
		if strings.Contains(text, "new quote") {
			t.Errorf("a booked customer is sent for a new quote:\n%s", text)
		}
	}
}

func TestErrorPages(t *testing.T) {
	tests := []struct {
		status  int
		company string
		want    []string
	}{
		{404, "", []string{"We can’t find this quote", "Check that you opened the whole link", "ask the moving company to send it again"}},
		{410, "Demo Movers", []string{"This quote link has expired", "please ask Demo Movers for a new quote"}},
		{409, "Demo Movers", []string{"This quote has been replaced or closed", "It can no longer be accepted. Demo Movers may have sent you a newer quote", "or contact Demo Movers."}},
		{409, "", []string{"The moving company may have sent you a newer quote"}},
		{500, "Demo Movers", []string{"Sorry, something went wrong", "try the link again in a few minutes", "contact Demo Movers"}},
	}
	for _, tt := range tests {
		t.Run(strconv.Itoa(tt.status)+tt.company, func(t *testing.T) {
			doc := ErrorPage(tt.status, tt.company)
			if doc.Status != tt.status {
				t.Errorf("status %d; want %d", doc.Status, tt.status)
			}
			checkHeaders(t, doc)
			text := htmltest.VisibleText(t, doc.Body)
			for _, w := range tt.want {
				if !strings.Contains(text, w) {
					t.Errorf("the page does not say %q:\n%s", w, text)
				}
			}
			brand := "Demo Movers"
			if tt.company == "" {
				brand = "Moving quote"
			}
			if got := htmltest.ByClass(htmltest.Parse(t, doc.Body), "brand"); len(got) != 1 || got[0].Text != brand {
				t.Errorf("brand %+v; want %q", got, brand)
			}
		})
	}
}

// TestErrorPagesDifferOnlyInWhatTheySay checks that the error pages are the
// same page with another title and message.
func TestErrorPagesDifferOnlyInWhatTheySay(t *testing.T) {
	strip := regexp.MustCompile(`(?s)<title>.*</title>|<h1>.*</h1>|<p class="lead">.*</p>`)
	want := strip.ReplaceAllString(string(ErrorPage(404, "Demo Movers").Body), "")
	for _, status := range []int{409, 410, 500} {
		if got := strip.ReplaceAllString(string(ErrorPage(status, "Demo Movers").Body), ""); got != want {
			t.Errorf("the %d page differs from the 404 page beyond its title and message", status)
		}
	}
}
