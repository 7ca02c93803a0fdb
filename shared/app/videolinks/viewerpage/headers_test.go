package viewerpage

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/moveleads/partnerapi/shared/app/htmlpage"
	"github.com/moveleads/partnerapi/shared/testkit/htmltest"
)

// checkHeaders checks the headers every answer carries, and that the policy
// allows the inline stylesheet of body and, of scripts, only the local-time
// one (htmlpage.LocalTimeJS), by its hash.
func checkHeaders(t *testing.T, h map[string]string, body []byte) {
	t.Helper()
	htmltest.CheckHeaders(t, h,
		map[string]string{"Permissions-Policy": "camera=(), microphone=(), geolocation=(), payment=()"},
		"img-src data:")
	csp := h["Content-Security-Policy"]
	if got := htmltest.Directive(csp, "script-src"); len(got) != 1 || got[0] != htmltest.HashOf(htmlpage.LocalTimeJS) {
		t.Errorf("script-src %v; want exactly the hash of htmlpage.LocalTimeJS", got)
	}
	for _, d := range []string{"connect-src", "frame-src", "object-src", "font-src"} {
		if htmltest.Directive(csp, d) != nil {
			t.Errorf("CSP has %s; the page needs none: %s", d, csp)
		}
	}
	if strings.Contains(csp, "'self'") {
		t.Errorf("CSP allows too much ('self'): %s", csp)
	}
	if body == nil {
		return
	}
	els := htmltest.Parse(t, body)
	var styles int
	for _, e := range els {
		switch {
		case e.Tag == "style":
			styles++
			if got := htmltest.Directive(csp, "style-src"); len(got) != 1 || got[0] != htmltest.HashOf(e.Text) {
				t.Errorf("style-src %v; want exactly the hash of the inline style, %s", got, htmltest.HashOf(e.Text))
			}
		case e.Tag == "script" && e.Text != htmlpage.LocalTimeJS:
			t.Errorf("the page has a <script> other than htmlpage.LocalTimeJS: %.80q", e.Text)
		case e.Tag == "script":
		case e.Tag == "iframe" || e.Tag == "object" || e.Tag == "embed" || e.Tag == "form":
			t.Errorf("the page has a <%s>", e.Tag)
		case e.Tag == "link" && e.Attrs["href"] != "data:,":
			t.Errorf("<link> loads %q", e.Attrs["href"])
		}
	}
	htmltest.CheckNoInlineAttrs(t, els)
	if styles != 1 {
		t.Errorf("%d <style> elements; want 1", styles)
	}
}

func TestHeaders(t *testing.T) {
	tests := []struct {
		origin, media string // media "" = no media-src
	}{
		{"https://bucket.s3.us-east-1.amazonaws.com", "https://bucket.s3.us-east-1.amazonaws.com"},
		{"http://127.0.0.1:9000", "http://127.0.0.1:9000"},
		{"http://[::1]:9000", "http://[::1]:9000"},
		{"HTTPS://Bucket.Example.com/", "https://bucket.example.com"},
		{"", ""},
		{"https://a.example.com; script-src *", ""},
		{"https://a.example.com, https://b.example.com", ""},
		{"https://a.example.com https://b.example.com", ""},
		{"https://a.example.com'", ""},
		{`https://a.example.com"`, ""},
		{"https://a.example.com/path", ""},
		{"https://a.example.com?x=1", ""},
		{"https://a.example.com?", ""},
		{"https://a.example.com#", ""},
		{"https://a.example.com:", ""},
		{"https://a.example.com:abc", ""},
		{"https://user@a.example.com", ""},
		{"javascript:alert(1)", ""},
		{"data:", ""},
		{"ftp://a.example.com", ""},
		{"//a.example.com", ""},
		{"*", ""},
		{"https://*.example.com", ""},
		{"https://a.example.com\n", ""},
	}
	for _, tt := range tests {
		t.Run(tt.origin, func(t *testing.T) {
			h := Headers(tt.origin)
			checkHeaders(t, h, nil)
			got := htmltest.Directive(h["Content-Security-Policy"], "media-src")
			switch {
			case tt.media == "" && got != nil:
				t.Errorf("media-src %q; want none (the origin is left out)", got)
			case tt.media != "" && (len(got) != 1 || got[0] != tt.media):
				t.Errorf("media-src %q; want [%s]", got, tt.media)
			}
		})
	}
}

func TestEveryAnswerCarriesTheHeaders(t *testing.T) {
	docs := map[string]Document{"page": Render(samplePage()), "empty page": Render(Page{})}
	for _, status := range []int{404, 410, 429, 500, 503} {
		docs[strconv.Itoa(status)] = ErrorPage(status, time.Minute)
	}
	for name, doc := range docs {
		t.Run(name, func(t *testing.T) {
			checkHeaders(t, doc.Header, doc.Body)
		})
	}
	if got, want := Render(samplePage()).Header, Headers(mediaOrigin); got["Content-Security-Policy"] != want["Content-Security-Policy"] {
		t.Errorf("Render's CSP %q; want Headers(MediaOrigin)'s %q", got["Content-Security-Policy"], want["Content-Security-Policy"])
	}
	if got := htmltest.Directive(ErrorPage(404, 0).Header["Content-Security-Policy"], "media-src"); got != nil {
		t.Errorf("an error page allows media from %v; it plays nothing", got)
	}
}

// safeSource is a CSP host source that cannot add a directive or a second
// source: a lower-case http(s) scheme, a host of letters, digits, dots,
// hyphens (or a bracketed IPv6 address) and an optional numeric port.
var safeSource = regexp.MustCompile(`^https?://([a-z0-9.-]+|\[[0-9a-f:.]+\])(:[0-9]+)?$`)

// FuzzHeaders checks that any media origin is either left out of the
// policy or becomes exactly one safe source in media-src, and that the rest
// of the policy never changes.
func FuzzHeaders(f *testing.F) {
	for _, s := range []string{
		"https://bucket.s3.us-east-1.amazonaws.com", "http://127.0.0.1:9000", "http://[::1]:80", "HTTPS://A.B/",
		"https://a; script-src *", "https://a,https://b", "https://a b", "https://a/'", "https://u:p@a",
		"https://a:", "https://a:1x", "https://a%2eb", "https://a%3bb", "https://[::1%25eth0]", "https://a?#", "", "*",
	} {
		f.Add(s)
	}
	base := Headers("")["Content-Security-Policy"]
	f.Fuzz(func(t *testing.T, s string) {
		csp := Headers(s)["Content-Security-Policy"]
		media := htmltest.Directive(csp, "media-src")
		if media == nil {
			if csp != base {
				t.Fatalf("Headers(%q) has no media-src but a different policy: %s", s, csp)
			}
			return
		}
		if len(media) != 1 || !safeSource.MatchString(media[0]) {
			t.Fatalf("Headers(%q): media-src %q; want one safe origin", s, media)
		}
		if want := strings.Replace(base, "img-src data:", "img-src data:; media-src "+media[0], 1); csp != want {
			t.Fatalf("Headers(%q) = %s; want %s", s, csp, want)
		}
	})
}

func TestErrorPages(t *testing.T) {
	tests := []struct {
		status     int
		retryAfter time.Duration
		want       []string
		retry      string // the Retry-After header; "" = none
	}{
		{404, 0, []string{"We can’t find this video link", "Check that you opened the whole link", "ask the person who sent it"}, ""},
		{410, 0, []string{"This video link is no longer available", "It has expired, or the person who shared it has turned it off", "ask them for a new link"}, ""},
		{429, 12 * time.Minute, []string{"This link has been opened many times in the last hour", "try again in 12 minutes."}, "720"},
		{429, 12*time.Minute + time.Second, []string{"try again in 13 minutes."}, "721"},
		{429, 1500 * time.Millisecond, []string{"try again in 1 minute."}, "2"},
		{429, time.Minute, []string{"try again in 1 minute."}, "60"},
		{429, 61 * time.Second, []string{"try again in 2 minutes."}, "61"},
		{429, 0, []string{"try again in 1 minute."}, "60"},
		{429, -time.Hour, []string{"try again in 1 minute."}, "60"},
		{429, time.Duration(1<<63 - 1), []string{"try again in 153722868 minutes."}, "9223372037"},
		{500, time.Minute, []string{"Sorry, something went wrong", "try the link again in a few minutes"}, ""},
		{503, time.Minute, []string{"Sorry, something went wrong"}, ""},
	}
	for _, tt := range tests {
		t.Run(strconv.Itoa(tt.status)+"/"+tt.retryAfter.String(), func(t *testing.T) {
			doc := ErrorPage(tt.status, tt.retryAfter)
			if doc.Status != tt.status {
				t.Errorf("status %d; want %d", doc.Status, tt.status)
			}
			checkHeaders(t, doc.Header, doc.Body)
			if got := doc.Header["Retry-After"]; got != tt.retry {
				t.Errorf("Retry-After %q; want %q", got, tt.retry)
			}
			text := htmltest.VisibleText(t, doc.Body)
			for _, w := range tt.want {
				if !strings.Contains(text, w) {
					t.Errorf("the page does not say %q:\n%s", w, text)
				}
			}
			// The function does not reveal whose link it was, nor what it
			// points at.
			// The stylesheet names clip and room classes; the words people
			// read do not.
			body, read := strings.ToLower(string(doc.Body)), strings.ToLower(text)
			for _, secret := range []string{"demo movers", "moving company", "survey"} {
				if strings.Contains(body, secret) {
					t.Errorf("the %d page mentions %q", tt.status, secret)
				}
			}
			for _, secret := range []string{"customer", "room", "clip", "home"} {
				if strings.Contains(read, secret) {
					t.Errorf("the %d page says %q", tt.status, secret)
				}
			}
		})
	}
}

// TestErrorPagesDifferOnlyInWhatTheySay checks that the error pages are the
// same page with another title and message, so their size and layout tell
// nothing beyond the status.
func TestErrorPagesDifferOnlyInWhatTheySay(t *testing.T) {
	strip := regexp.MustCompile(`(?s)<title>.*</title>|<h1>.*</h1>|<p class="lead">.*</p>`)
	want := strip.ReplaceAllString(string(ErrorPage(404, 0).Body), "")
	for _, status := range []int{410, 429, 500} {
		if got := strip.ReplaceAllString(string(ErrorPage(status, time.Minute).Body), ""); got != want {
			t.Errorf("the %d page differs from the 404 page beyond its title and message", status)
		}
	}
}
