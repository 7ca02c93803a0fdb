package viewerpage

import (
	"bytes"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/moveleads/partnerapi/shared/app/htmlpage"
	"github.com/moveleads/partnerapi/shared/testkit/htmltest"
)

const mediaOrigin = "https://bucket.s3.us-east-1.amazonaws.com"

// samplePage is a link to three clips, one of each content type the clip
// processor accepts, the last of unknown duration.
func samplePage() Page {
	return Page{
		Company: "Demo Movers",
		Clips: []Clip{
			{Room: "Living room", Duration: 65 * time.Second, URL: mediaOrigin + "/clips/1.mp4?X-Amz-Signature=ab&X-Amz-Expires=600", ContentType: "video/mp4"},
			{Room: "Kitchen", Duration: 42*time.Second + 600*time.Millisecond, URL: mediaOrigin + "/clips/2.webm?X-Amz-Signature=cd", ContentType: "video/webm"},
			{Room: "Main bedroom", URL: mediaOrigin + "/clips/3.mov?X-Amz-Signature=ef", ContentType: "video/quicktime"},
		},
		LinkExpiresAt: time.Date(2026, 11, 30, 10, 15, 0, 0, time.FixedZone("CET", 3600)),
		AddressTTL:    10 * time.Minute,
		MediaOrigin:   mediaOrigin,
	}
}

func TestRenderShowsEveryClipInOrder(t *testing.T) {
	p := samplePage()
	doc := Render(p)
	if doc.Status != 200 {
		t.Fatalf("status %d; want 200", doc.Status)
	}
	els := htmltest.Parse(t, doc.Body)
	htmltest.IDs(t, els)

	heads := htmltest.ByClass(els, "clip-head")
	if len(heads) != 3 {
		t.Fatalf("%d clip headings; want 3", len(heads))
	}
	wantHeads := []string{"Clip 1 of 3: Living room, 1:05", "Clip 2 of 3: Kitchen, 0:42", "Clip 3 of 3: Main bedroom"}
	for i, h := range heads {
		if h.Tag != "h2" || h.Attrs["id"] != "clip-"+strconv.Itoa(i+1) {
			t.Errorf("clip heading %d = <%s id=%q>; want <h2 id=clip-%d>", i+1, h.Tag, h.Attrs["id"], i+1)
		}
		if got := h.Attrs["aria-label"]; got != wantHeads[i] {
			t.Errorf("clip heading %d is named %q; want %q", i+1, got, wantHeads[i])
		}
	}
	times := htmltest.ByClass(els, "clip-time")
	if len(times) != 2 || times[0].Attrs["datetime"] != "PT65S" || times[1].Attrs["datetime"] != "PT42S" {
		t.Errorf("clip durations %+v; want PT65S and PT42S, none for the unknown one", times)
	}

	var videos []htmltest.Element
	var sources [][]htmltest.Element
	for _, e := range els {
		switch e.Tag {
		case "video":
			videos = append(videos, e)
			sources = append(sources, nil)
		case "source":
			sources[len(sources)-1] = append(sources[len(sources)-1], e)
		}
	}
	if len(videos) != 3 {
		t.Fatalf("%d videos; want 3", len(videos))
	}
	for i, v := range videos {
		for _, attr := range []string{"controls", "playsinline"} {
			if _, ok := v.Attrs[attr]; !ok {
				t.Errorf("video %d lacks %s", i+1, attr)
			}
		}
		if v.Attrs["preload"] != "metadata" || v.Attrs["aria-labelledby"] != "clip-"+strconv.Itoa(i+1) {
			t.Errorf("video %d = %v", i+1, v.Attrs)
		}
		if _, ok := v.Attrs["autoplay"]; ok {
			t.Errorf("video %d plays by itself", i+1)
		}
	}
	want := [][2]string{
		{p.Clips[0].URL + "#t=0.001", "video/mp4"},
		{p.Clips[1].URL + "#t=0.001", "video/webm"},
		{p.Clips[2].URL + "#t=0.001", "video/quicktime"},
		{p.Clips[2].URL + "#t=0.001", "video/mp4"},
	}
	var got [][2]string
	for _, ss := range sources {
		for _, s := range ss {
			got = append(got, [2]string{s.Attrs["src"], s.Attrs["type"]})
		}
	}
	if len(got) != len(want) {
		t.Fatalf("sources %v; want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("source %d = %v; want %v", i, got[i], want[i])
		}
	}

	text := htmltest.VisibleText(t, doc.Body)
	for _, w := range []string{
		"Walkthrough video",
		"Shared by Demo Movers",
		"3 rooms", "3 clips", "at least 1:47 in total",
		"This link works until Monday, November 30, 2026 at 9:15 AM UTC, unless Demo Movers turns it off sooner.",
		"Video addresses on this page last 10 minutes: if a video stops loading, reload the page.",
	} {
		if !strings.Contains(text, w) {
			t.Errorf("the page does not say %q:\n%s", w, text)
		}
	}
	if i, j := strings.Index(text, "Living room"), strings.Index(text, "Video addresses"); i < 0 || j < i {
		t.Errorf("the link's explanation is not below the clips")
	}
}

func TestRenderWithoutClipsOrCompany(t *testing.T) {
	doc := Render(Page{MediaOrigin: mediaOrigin})
	text := htmltest.VisibleText(t, doc.Body)
	for _, w := range []string{
		"Shared by the moving company",
		"No video is ready to watch yet",
		"This link works for a limited time, and the moving company can turn it off at any moment.",
		"Video addresses on this page last a few minutes",
	} {
		if !strings.Contains(text, w) {
			t.Errorf("the page does not say %q:\n%s", w, text)
		}
	}
	els := htmltest.Parse(t, doc.Body)
	if n := len(htmltest.ByClass(els, "facts")); n != 0 {
		t.Errorf("%d summaries of no clips; want none", n)
	}
	for _, e := range els {
		if e.Tag == "video" || e.Tag == "ol" {
			t.Errorf("a page without clips has a <%s>", e.Tag)
		}
	}
}

func TestSummary(t *testing.T) {
	clip := func(room string, d time.Duration) Clip { return Clip{Room: room, Duration: d} }
	tests := []struct {
		name  string
		clips []Clip
		want  []string
	}{
		{"one", []Clip{clip("Kitchen", 7*time.Second)}, []string{"1 room", "1 clip", "0:07 in total"}},
		{"a room filmed twice", []Clip{clip("Kitchen", time.Minute), clip("kitchen ", 30*time.Second), clip("Hall", 90*time.Second)},
			[]string{"2 rooms", "3 clips", "3:00 in total"}},
		{"some unknown", []Clip{clip("Kitchen", time.Minute), clip("Hall", 0)}, []string{"2 rooms", "2 clips", "at least 1:00 in total"}},
		{"all unknown", []Clip{clip("Kitchen", 0), clip("Hall", 0)}, []string{"2 rooms", "2 clips"}},
		{"over an hour", []Clip{clip("A", 40*time.Minute), clip("B", 25*time.Minute+5*time.Second)}, []string{"2 rooms", "2 clips", "1:05:05 in total"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, m := range regexp.MustCompile(`<li>([^<]*)</li>`).FindAllStringSubmatch(summary(tt.clips), -1) {
				got = append(got, m[1])
			}
			if strings.Join(got, "|") != strings.Join(tt.want, "|") {
				t.Errorf("summary %q; want %q", got, tt.want)
			}
		})
	}
}

func TestFormatDuration(t *testing.T) {
	tests := []struct {
		d    time.Duration
		want string
	}{
		{0, ""},
		{-time.Second, ""},
		{100 * time.Millisecond, "0:01"},
		{999 * time.Millisecond, "0:01"},
		{1999 * time.Millisecond, "0:01"},
		{1920 * time.Millisecond, "0:01"},
		{2 * time.Second, "0:02"},
		{7 * time.Second, "0:07"},
		{59*time.Second + 999*time.Millisecond, "0:59"},
		{time.Minute, "1:00"},
		{4*time.Minute + 5*time.Second, "4:05"},
		{10 * time.Minute, "10:00"},
		{59*time.Minute + 59*time.Second, "59:59"},
		{time.Hour, "1:00:00"},
		{3*time.Hour + 20*time.Minute + 3*time.Second, "3:20:03"},
	}
	for _, tt := range tests {
		if got := formatDuration(tt.d); got != tt.want {
			t.Errorf("formatDuration(%v) = %q; want %q", tt.d, got, tt.want)
		}
	}
}

func TestFormatTTL(t *testing.T) {
	tests := []struct {
		d    time.Duration
		want string
	}{
		{10 * time.Minute, "10 minutes"},
		{10*time.Minute + 59*time.Second, "10 minutes"},
		{time.Minute, "1 minute"},
		{90 * time.Second, "1 minute"},
		{30 * time.Second, "30 seconds"},
		{time.Millisecond, "1 second"},
		{0, "a few minutes"},
	}
	for _, tt := range tests {
		if got := formatTTL(tt.d); got != tt.want {
			t.Errorf("formatTTL(%v) = %q; want %q", tt.d, got, tt.want)
		}
	}
}

func TestUserTextIsEscaped(t *testing.T) {
	const hostile = `</video></li><script>alert(1)</script><img src=x onerror=alert(2)>"'&`
	p := samplePage()
	p.Company = hostile
	p.Clips[1].Room = hostile
	p.Clips[0].URL = mediaOrigin + `/a.mp4?x="><script>alert(3)</script>`
	p.Clips[0].ContentType = `video/mp4"><script>alert(4)</script>`
	doc := Render(p)
	for _, bad := range []string{"<img", `"'&`} {
		if bytes.Contains(doc.Body, []byte(bad)) {
			t.Errorf("%q reached the page unescaped", bad)
		}
	}
	// The page's own script (htmlpage.LocalTimeJS) is its only one.
	if n := bytes.Count(doc.Body, []byte("<script")); n != 1 {
		t.Errorf("%d <script in the page; want only the page's own", n)
	}
	if !bytes.Contains(doc.Body, []byte("&lt;script&gt;alert(1)&lt;/script&gt;")) {
		t.Errorf("the room name is not shown escaped:\n%s", doc.Body)
	}
	els := htmltest.Parse(t, doc.Body)
	for _, e := range els {
		if e.Tag == "script" && e.Text != htmlpage.LocalTimeJS || e.Tag == "img" {
			t.Errorf("the page has a <%s>", e.Tag)
		}
	}
	if got := htmltest.ByClass(els, "brand")[0].Text; got != hostile {
		t.Errorf("the header shows %q; want the name as text, %q", got, hostile)
	}
	if got := htmltest.ByClass(els, "clip-room")[1].Text; got != hostile {
		t.Errorf("the second room reads %q; want %q", got, hostile)
	}
	var srcs []string
	for _, e := range els {
		if e.Tag == "source" {
			srcs = append(srcs, e.Attrs["src"])
		}
	}
	// The address is escaped for its attribute (templ; html/template also
	// percent-encoded ", <, >, …, as a browser does before sending it):
	// either way the address is the same.
	got, err := url.Parse(srcs[0])
	if err != nil {
		t.Fatal(err)
	}
	want, _ := url.Parse(p.Clips[0].URL + "#t=0.001")
	if got.Scheme != want.Scheme || got.Host != want.Host || got.Path != want.Path ||
		got.Query().Encode() != want.Query().Encode() || got.Fragment != want.Fragment {
		t.Errorf("first source %q; want the URL as given, %q", srcs[0], p.Clips[0].URL)
	}
}

func TestSources(t *testing.T) {
	tests := []struct {
		name string
		clip Clip
		want []string
	}{
		{"mp4", Clip{URL: "https://m/1?a=1&b=2", ContentType: "video/mp4"},
			[]string{`<source src="https://m/1?a=1&amp;b=2#t=0.001" type="video/mp4">`}},
		{"webm with codecs", Clip{URL: "https://m/2", ContentType: "video/webm;codecs=vp8,opus"},
			[]string{`<source src="https://m/2#t=0.001" type="video/webm;codecs=vp8,opus">`}},
		{"quicktime, offered as mp4 too", Clip{URL: "https://m/3", ContentType: "Video/QuickTime"},
			[]string{`<source src="https://m/3#t=0.001" type="video/quicktime">`, `<source src="https://m/3#t=0.001" type="video/mp4">`}},
		{"no type", Clip{URL: "https://m/4"}, []string{`<source src="https://m/4#t=0.001">`}},
		{"a fragment already", Clip{URL: "https://m/5#t=3", ContentType: "video/mp4"},
			[]string{`<source src="https://m/5#t=3" type="video/mp4">`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := sources(tt.clip)
			for i := range got {
				got[i] = strings.TrimSpace(got[i])
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("sources = %q; want %q", got, tt.want)
			}
		})
	}
}

func TestAssetsCannotBreakOutOfTheirElements(t *testing.T) {
	lower := strings.ToLower(loadAssets().CSS)
	for _, bad := range []string{"</style", "<!--"} {
		if strings.Contains(lower, bad) {
			t.Errorf("viewer.css contains %q, which would end its inline element early", bad)
		}
	}
	for _, remote := range []string{"http://", "https://", "@import", "url("} {
		if strings.Contains(lower, remote) {
			t.Errorf("viewer.css contains %q: the page loads nothing but the clips", remote)
		}
	}
	for name, page := range map[string]Document{"page": Render(samplePage()), "error page": ErrorPage(404, 0)} {
		if strings.Count(string(page.Body), "<style>"+loadAssets().CSS+"</style>") != 1 {
			t.Errorf("the %s does not inline the stylesheet exactly once", name)
		}
	}
}

// BenchmarkRender renders a page of 20 clips, the most a survey holds.
func BenchmarkRender(b *testing.B) {
	p := samplePage()
	for len(p.Clips) < 20 {
		p.Clips = append(p.Clips, p.Clips[len(p.Clips)%3])
	}
	b.ReportAllocs()
	for b.Loop() {
		Render(p)
	}
}

// TestScriptURLIsRefused: templ's contextual escaping (html/template's
// before it) knows src is a URL and refuses a javascript: one, which
// escaping HTML text alone let through verbatim.
func TestScriptURLIsRefused(t *testing.T) {
	p := samplePage()
	p.Clips[0].URL = "javascript:alert(1)"
	doc := Render(p)
	if bytes.Contains(bytes.ToLower(doc.Body), []byte("javascript:")) {
		t.Errorf("a javascript: address reached the page:\n%s", doc.Body)
	}
	for _, e := range htmltest.Parse(t, doc.Body) {
		if e.Tag == "source" && strings.HasPrefix(e.Attrs["src"], "javascript") {
			t.Errorf("<source src=%q>", e.Attrs["src"])
		}
	}
}
