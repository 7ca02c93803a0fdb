package capturepage

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/moveleads/partnerapi/shared/domain/inventory"
	"github.com/moveleads/partnerapi/shared/domain/survey"
	"github.com/moveleads/partnerapi/shared/testkit/htmltest"
)

// samplePage is a survey with the real rooms and cube sheet, one clip sent
// and a saved checklist.
func samplePage() Page {
	var items []Item
	for _, e := range inventory.Entries() {
		items = append(items, Item{Key: e.Key, Name: e.Name})
	}
	return Page{
		Company:        "Demo Movers",
		APIBase:        "/v1-capture/tok",
		UploadOrigin:   "https://bucket.s3.us-east-1.amazonaws.com",
		Rooms:          survey.Rooms,
		Items:          items,
		RoomItems:      inventory.RoomItems(),
		Clips:          []Clip{{ID: "9b2f0000-0000-4000-8000-000000000001", Room: "Living room", Verdict: "checked", At: time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)}},
		Checklist:      map[string]map[string]int{"Living room": {"sofa_3_seat": 1}},
		ClipsMax:       survey.MaxClips,
		MaxClipBytes:   survey.MaxClipBytes,
		MaxClipSeconds: int(survey.MaxClipDuration.Seconds()),
		ExpiresAt:      time.Date(2026, 11, 30, 10, 15, 0, 0, time.UTC),
		FramesMax:      survey.MaxFrames,
		FramesPerClip:  survey.FramesPerClip,
		MaxFrameBytes:  survey.MaxFrameBytes,
		MaxFrameSide:   survey.MaxFrameSide,
		FrameInterval:  survey.FrameInterval,
	}
}

// inlineBodies returns the text of every <script> and <style> the CSP must
// allow: all of them except JSON data blocks.
func inlineBodies(els []htmltest.Element, tag string) []string {
	var out []string
	for _, e := range els {
		if e.Tag == tag && e.Attrs["type"] != "application/json" {
			out = append(out, e.Text)
		}
	}
	return out
}

func TestRenderIsValidHTMLWithTheDataBlock(t *testing.T) {
	p := samplePage()
	doc := Render(p)
	if doc.Status != 200 {
		t.Fatalf("status %d; want 200", doc.Status)
	}
	els := htmltest.Parse(t, doc.Body)
	ids := htmltest.IDs(t, els)
	var blocks []htmltest.Element
	for _, e := range els {
		if e.Tag == "script" && e.Attrs["id"] == "survey-data" {
			blocks = append(blocks, e)
		}
	}
	if len(blocks) != 1 {
		t.Fatalf("%d survey-data blocks; want 1", len(blocks))
	}
	if got := blocks[0].Attrs["type"]; got != "application/json" {
		t.Errorf("survey-data type %q; want application/json", got)
	}
	var got pageData
	if err := json.Unmarshal([]byte(blocks[0].Text), &got); err != nil {
		t.Fatalf("survey-data is not JSON: %v\n%s", err, blocks[0].Text)
	}
	if got.Company != "Demo Movers" || got.APIBase != "/v1-capture/tok" || got.ClipsMax != 20 ||
		got.MaxClipBytes != 500<<20 || got.MaxClipSeconds != 600 || got.ExpiresAt != "2026-11-30T10:15:00Z" {
		t.Errorf("survey-data = %+v", got)
	}
	if got.FramesMax != 60 || got.FramesUsed != 0 || got.FramesPerClip != 12 || got.MaxFrameBytes != 1<<20 ||
		got.MaxFrameSide != 1920 || got.FrameInterval != 2000 {
		t.Errorf("survey-data frame limits = %+v", got)
	}
	if len(got.Rooms) != len(survey.Rooms) || got.Rooms[0] != "Living room" {
		t.Errorf("rooms = %v; want survey.Rooms", got.Rooms)
	}
	if len(got.Clips) != 1 || got.Clips[0].Verdict != "checked" || got.Clips[0].At != "2026-11-30T09:00:00Z" || got.Checklist["Living room"]["sofa_3_seat"] != 1 {
		t.Errorf("clips %v, checklist %v", got.Clips, got.Checklist)
	}
	// Every id the script looks up exists in the markup.
	for _, m := range regexp.MustCompile(`\$\("([a-z-]+)"\)`).FindAllStringSubmatch(string(loadAssets().JS), -1) {
		if !ids[m[1]] {
			t.Errorf("the script uses #%s, which the page does not have", m[1])
		}
	}
}

func TestRenderWithoutOptionalData(t *testing.T) {
	doc := Render(Page{Company: "Demo Movers", APIBase: "/v1-capture/tok", ClipsMax: 20, MaxClipBytes: 1 << 20, MaxClipSeconds: 600})
	els := htmltest.Parse(t, doc.Body)
	for _, e := range els {
		if e.Attrs["id"] == "survey-data" {
			var d map[string]any
			if err := json.Unmarshal([]byte(e.Text), &d); err != nil {
				t.Fatal(err)
			}
			for _, k := range []string{"rooms", "clips", "checklist"} {
				if d[k] == nil {
					t.Errorf("%s is null; the script expects a list or an object", k)
				}
			}
		}
	}
}

func TestCSPHashesMatchTheInlineScriptAndStyle(t *testing.T) {
	pages := map[string]Document{"page": Render(samplePage())}
	for _, status := range []int{404, 409, 410, 500} {
		pages["error "+strconv.Itoa(status)] = ErrorPage(status, "Demo Movers")
	}
	for name, doc := range pages {
		t.Run(name, func(t *testing.T) {
			csp := doc.Header["Content-Security-Policy"]
			els := htmltest.Parse(t, doc.Body)
			for tag, dir := range map[string]string{"script": "script-src", "style": "style-src"} {
				allowed := htmltest.Directive(csp, dir)
				for _, body := range inlineBodies(els, tag) {
					if !contains(allowed, htmltest.HashOf(body)) {
						t.Errorf("inline <%s> (%d bytes) has hash %s, not in %s %v", tag, len(body), htmltest.HashOf(body), dir, allowed)
					}
				}
				for _, src := range allowed {
					if !strings.HasPrefix(src, "'sha256-") {
						t.Errorf("%s allows %s; only hashes are allowed", dir, src)
					}
				}
			}
			htmltest.CheckNoInlineAttrs(t, els)
			for _, e := range els {
				if e.Tag == "script" && e.Attrs["src"] != "" || e.Tag == "link" && !strings.HasPrefix(e.Attrs["href"], "data:") {
					t.Errorf("<%s> loads an outside resource", e.Tag)
				}
			}
		})
	}
	if n := len(inlineBodies(htmltest.Parse(t, Render(samplePage()).Body), "script")); n != 1 {
		t.Errorf("%d executable scripts on the page; want 1", n)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func TestAssetsCannotBreakOutOfTheirElements(t *testing.T) {
	a := loadAssets()
	for name, body := range map[string]string{"capture.js": string(a.JS), "capture.css": string(a.CSS)} {
		lower := strings.ToLower(body)
		for _, bad := range []string{"</script", "</style", "<!--"} {
			if strings.Contains(lower, bad) {
				t.Errorf("%s contains %q, which would end its inline element early", name, bad)
			}
		}
		for _, remote := range []string{"http://", "https://", "@import", " url(", ":url("} {
			if strings.Contains(lower, remote) {
				t.Errorf("%s contains %q: the page loads nothing from outside", name, remote)
			}
		}
	}
}

func TestHostileCompanyNameIsEscaped(t *testing.T) {
	const hostile = `</script><script>alert(1)</script>`
	p := samplePage()
	p.Company = hostile
	p.Rooms = append([]string{hostile}, p.Rooms...)
	p.Checklist = map[string]map[string]int{hostile: {"sofa_3_seat": 2}}
	p.Clips = []Clip{{ID: "x", Room: hostile, Verdict: "unusable", Reason: hostile}}
	docs := map[string]Document{"page": Render(p), "410": ErrorPage(410, hostile), "409": ErrorPage(409, hostile)}
	for name, doc := range docs {
		t.Run(name, func(t *testing.T) {
			if bytes.Contains(doc.Body, []byte("<script>alert")) || bytes.Contains(doc.Body, []byte("alert(1)</script>")) {
				t.Fatalf("the company name reached the page unescaped:\n%s", doc.Body)
			}
			els := htmltest.Parse(t, doc.Body)
			n := 0
			for _, e := range els {
				if e.Tag == "script" {
					n++
				}
			}
			want := map[string]int{"page": 2, "410": 0, "409": 0}[name]
			if n != want {
				t.Errorf("%d <script> elements; want %d", n, want)
			}
			var brand string
			for _, e := range els {
				if e.Attrs["class"] == "brand" {
					brand = e.Text
				}
			}
			if brand != hostile {
				t.Errorf("the header shows %q; want the name as text, %q", brand, hostile)
			}
			if name == "page" {
				for _, e := range els {
					if e.Attrs["id"] == "survey-data" {
						var d pageData
						if err := json.Unmarshal([]byte(e.Text), &d); err != nil {
							t.Fatal(err)
						}
						if d.Company != hostile || d.Rooms[0] != hostile {
							t.Errorf("survey-data company %q; want %q", d.Company, hostile)
						}
					}
				}
			}
		})
	}
}

func TestErrorPages(t *testing.T) {
	tests := []struct {
		status  int
		company string
		want    []string
	}{
		{404, "", []string{"We can’t find this link", "ask the moving company"}},
		{410, "Demo Movers", []string{"This link has expired", "ask Demo Movers for a new link"}},
		{409, "Demo Movers", []string{"Thank you", "Demo Movers will be in touch"}},
		{500, "Demo Movers", []string{"Sorry, something went wrong", "try the link again"}},
	}
	for _, tt := range tests {
		t.Run(strconv.Itoa(tt.status), func(t *testing.T) {
			doc := ErrorPage(tt.status, tt.company)
			if doc.Status != tt.status {
				t.Errorf("status %d; want %d", doc.Status, tt.status)
			}
			checkHeaders(t, doc.Header)
			text := string(doc.Body)
			for _, w := range tt.want {
				if !strings.Contains(strings.ToLower(text), strings.ToLower(w)) {
					t.Errorf("page lacks %q:\n%s", w, text)
				}
			}
			htmltest.Parse(t, doc.Body)
		})
	}
}

// checkHeaders checks the headers every capture page answer carries.
func checkHeaders(t *testing.T, h map[string]string) {
	t.Helper()
	htmltest.CheckHeaders(t, h, nil, "img-src 'self' data: blob:", "media-src 'self' blob: mediastream:")
}

func TestHeaders(t *testing.T) {
	tests := []struct {
		origin, connect string
	}{
		{"https://bucket.s3.us-east-1.amazonaws.com", "'self' https://bucket.s3.us-east-1.amazonaws.com"},
		{"http://127.0.0.1:9000", "'self' http://127.0.0.1:9000"},
		{"HTTPS://Bucket.Example.com/", "'self' https://bucket.example.com"},
		{"", "'self'"},
		{"https://a.example.com; script-src *", "'self'"},
		{"https://a.example.com/path", "'self'"},
		{"https://a.example.com?x=1", "'self'"},
		{"https://user@a.example.com", "'self'"},
		{"javascript:alert(1)", "'self'"},
		{"*", "'self'"},
		{"https://*.example.com", "'self'"},
	}
	for _, tt := range tests {
		t.Run(tt.origin, func(t *testing.T) {
			h := Headers(tt.origin)
			checkHeaders(t, h)
			got := strings.Join(htmltest.Directive(h["Content-Security-Policy"], "connect-src"), " ")
			if got != tt.connect {
				t.Errorf("connect-src %q; want %q", got, tt.connect)
			}
		})
	}
	if got := Render(samplePage()).Header; got["Content-Security-Policy"] != Headers(samplePage().UploadOrigin)["Content-Security-Policy"] {
		t.Errorf("Render's CSP differs from Headers(UploadOrigin)")
	}
}

// TestAccessibleNames checks the names a person (and the end-to-end tests)
// find the controls by: each visible text or label, exactly once.
func TestAccessibleNames(t *testing.T) {
	p := samplePage()
	els := htmltest.Parse(t, Render(p).Body)
	byID := map[string]htmltest.Element{}
	labels := map[string][]string{} // for → label texts
	buttons := map[string]int{}
	for _, e := range els {
		if id := e.Attrs["id"]; id != "" {
			byID[id] = e
		}
		if e.Tag == "label" {
			labels[e.Attrs["for"]] = append(labels[e.Attrs["for"]], strings.TrimSpace(e.Text))
		}
		if e.Tag == "button" {
			name := e.Attrs["aria-label"]
			if name == "" {
				name = strings.TrimSpace(e.Text)
			}
			buttons[name]++
		}
	}
	for _, name := range []string{"Start recording", "Stop recording", "Finish survey"} {
		if buttons[name] != 1 {
			t.Errorf("%d buttons named %q; want 1", buttons[name], name)
		}
	}
	file := byID["file"]
	if file.Tag != "input" || file.Attrs["type"] != "file" || file.Attrs["accept"] != "video/*" || file.Attrs["capture"] != "environment" {
		t.Errorf("file input = %+v", file)
	}
	if got := labels["file"]; len(got) != 1 || got[0] != "Upload a video" {
		t.Errorf("file input labels %q; want [Upload a video]", got)
	}
	if got := labels["room"]; len(got) != 1 || got[0] != "Room" {
		t.Errorf("room select labels %q", got)
	}
	for _, it := range p.Items {
		id := "count-" + it.Key
		in := byID[id]
		if in.Tag != "input" || in.Attrs["type"] != "number" || in.Attrs["min"] != "0" || in.Attrs["max"] != "99" {
			t.Errorf("%s = %+v", id, in)
		}
		if got := labels[id]; len(got) != 1 || got[0] != it.Name {
			t.Errorf("%s labels %q; want exactly [%s]", id, got, it.Name)
		}
		if _, ok := in.Attrs["aria-label"]; ok {
			t.Errorf("%s has an aria-label, which would override its label", id)
		}
	}
}

func TestEveryCubeSheetItemHasAGroup(t *testing.T) {
	var items []Item
	for _, e := range inventory.Entries() {
		items = append(items, Item{Key: e.Key, Name: e.Name})
	}
	groups := groupItems(items)
	n := 0
	for _, g := range groups {
		if g.ID == otherGroup {
			t.Errorf("cube sheet items without a group: %v", g.Items)
		}
		n += len(g.Items)
	}
	if n != len(items) {
		t.Errorf("%d items shown; want %d", n, len(items))
	}
	// A key no group knows is still shown, last.
	groups = groupItems(append(items, Item{Key: "hot_tub", Name: "Hot tub"}))
	last := groups[len(groups)-1]
	if last.ID != otherGroup || len(last.Items) != 1 || last.Items[0].Key != "hot_tub" {
		t.Errorf("last group %+v; want Other items with the hot tub", last)
	}
}
