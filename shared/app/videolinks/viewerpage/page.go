package viewerpage

import (
	"bytes"
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/a-h/templ"

	"github.com/moveleads/partnerapi/shared/app/htmlpage"
	"github.com/moveleads/partnerapi/shared/app/pipeline"
)

// Document is an HTML answer: status, headers and body, which the request
// pipeline returns and the edge sends as it is.
type Document = pipeline.Document

// Clip is one playable clip, in recording order.
type Clip struct {
	Room        string        // e.g. "Living room"
	Duration    time.Duration // from the clip processor; 0 = unknown
	URL         string        // presigned S3 GET, valid at most 10 minutes
	ContentType string        // "video/mp4", "video/webm" or "video/quicktime"
}

// Page is what the viewer page shows for one link.
type Page struct {
	Company       string        // the partner's display name ("Demo Movers"); "" reads "the moving company"
	Clips         []Clip        // playable clips in recording order
	LinkExpiresAt time.Time     // when the link itself stops working; zero = not said
	AddressTTL    time.Duration // how long each clip address lives (10 minutes)
	MediaOrigin   string        // scheme://host[:port] of the clip URLs, for the CSP media-src
}

// Render returns the viewer page for p: status 200 with the headers of
// Headers(p.MediaOrigin). The assets are embedded and checked by the
// package's tests; should rendering fail anyway, Render answers
// ErrorPage(500, 0). A Page without clips renders a page that says no
// video is ready to watch yet.
func Render(p Page) Document {
	body, err := render(pageDocument(newPageView(p)))
	if err != nil {
		return ErrorPage(500, 0)
	}
	return Document{Status: 200, Header: Headers(p.MediaOrigin), Body: body}
}

// newPageView is what the page shows of p.
func newPageView(p Page) pageView {
	company := p.Company
	if company == "" {
		company = "the moving company"
	}
	return pageView{
		Company:    company,
		Facts:      facts(p.Clips),
		Clips:      clipViews(p.Clips),
		ExpiresISO: expiresISO(p.LinkExpiresAt),
		ExpiresAt:  expiresText(p.LinkExpiresAt),
		AddressTTL: formatTTL(p.AddressTTL),
	}
}

// pageView is what page.templ shows; templ escapes every value for its
// context.
type pageView struct {
	Company, AddressTTL string
	// ExpiresISO and ExpiresAt are when the link stops working, in RFC
	// 3339 and in htmlpage.FormatTime's words; both "" when not said.
	ExpiresISO, ExpiresAt string
	Facts                 []string
	Clips                 []clipView
}

// clipView is one clip's card.
type clipView struct {
	ID, Num, Room string
	// Name is how a screen reader names the heading, and the video by
	// aria-labelledby: "Clip 1 of 3: Living room, 1:05"; the number's
	// circle alone would read "1".
	Name    string
	Time    string // "1:05"; "" when unknown
	Secs    int64  // the duration in whole seconds, at least 1
	Sources []source
}

// source is one <source> of a clip's video.
type source struct{ Src, Type string }

// render renders c; into a buffer, it fails only if c does.
func render(c templ.Component) ([]byte, error) {
	var b bytes.Buffer
	if err := c.Render(context.Background(), &b); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// facts are the lines under the title: how many rooms and clips, and how
// long they last together ("3 rooms", "4 clips", "6:12 in total"). When
// some durations are unknown the total is a lower bound, and says so; when
// all are, it is left out. None without clips.
func facts(clips []Clip) []string {
	if len(clips) == 0 {
		return nil
	}
	rooms := map[string]bool{}
	var total time.Duration
	unknown := 0
	for _, c := range clips {
		rooms[strings.ToLower(strings.TrimSpace(c.Room))] = true
		if c.Duration > 0 {
			total += c.Duration
		} else {
			unknown++
		}
	}
	out := []string{plural(len(rooms), "room", "rooms"), plural(len(clips), "clip", "clips")}
	switch {
	case unknown == len(clips):
	case unknown > 0:
		out = append(out, "at least "+formatDuration(total)+" in total")
	default:
		out = append(out, formatDuration(total)+" in total")
	}
	return out
}

// summary is the markup of facts(clips), as the page shows it.
func summary(clips []Clip) string {
	b, err := render(factList(facts(clips)))
	if err != nil {
		return ""
	}
	return string(b)
}

// clipViews are the numbered cards of the clips.
func clipViews(clips []Clip) []clipView {
	n := strconv.Itoa(len(clips))
	out := make([]clipView, 0, len(clips))
	for i, c := range clips {
		num := strconv.Itoa(i + 1)
		v := clipView{ID: "clip-" + num, Num: num, Room: c.Room, Name: "Clip " + num + " of " + n + ": " + c.Room, Sources: sourceList(c)}
		if d := formatDuration(c.Duration); d != "" {
			v.Time, v.Secs = d, max(int64(c.Duration/time.Second), 1)
			v.Name += ", " + d
		}
		out = append(out, v)
	}
	return out
}

// sourceList returns the sources of one clip. The address gets the media
// fragment #t=0.001, which the server never sees (the signature is
// unaffected) and which makes Safari on a phone show the first frame
// instead of a black box before the video is played. A QuickTime clip,
// which an iPhone's camera app records, is offered a second time as MP4:
// Safari plays video/quicktime, but Chrome and Firefox skip a source of
// that type even though they play the H.264 inside it.
func sourceList(c Clip) []source {
	src := c.URL
	if !strings.Contains(src, "#") {
		src += "#t=0.001"
	}
	ct := strings.ToLower(strings.TrimSpace(c.ContentType))
	if ct == "video/quicktime" {
		return []source{{src, ct}, {src, "video/mp4"}}
	}
	return []source{{src, ct}}
}

// sources returns the <source> elements of one clip as the page shows
// them.
func sources(c Clip) []string {
	var out []string
	for _, s := range sourceList(c) {
		b, err := render(sourceElement(s))
		if err != nil {
			return nil
		}
		out = append(out, string(b))
	}
	return out
}

// expiresISO and expiresText are when the link stops working, for a
// <time data-local> that the page's script rewrites in the reader's zone;
// "" for the zero time (not said).
func expiresISO(at time.Time) string {
	if at.IsZero() {
		return ""
	}
	return at.UTC().Format(time.RFC3339)
}

func expiresText(at time.Time) string {
	if at.IsZero() {
		return ""
	}
	return htmlpage.FormatTime(at)
}

// formatDuration renders d as a video player shows it, in whole seconds
// rounded down as Chrome, Firefox and Safari do, so the card and the
// player agree: "0:07", "4:05", "1:02:03". It returns "" for 0 (unknown)
// or less, and "0:01" for a known duration under a second, which is not
// nothing.
func formatDuration(d time.Duration) string {
	if d <= 0 {
		return ""
	}
	s := max(int64(d/time.Second), 1)
	h, m, sec := s/3600, s/60%60, s%60
	two := func(n int64) string {
		if n < 10 {
			return "0" + strconv.FormatInt(n, 10)
		}
		return strconv.FormatInt(n, 10)
	}
	if h > 0 {
		return strconv.FormatInt(h, 10) + ":" + two(m) + ":" + two(sec)
	}
	return strconv.FormatInt(m, 10) + ":" + two(sec)
}

// formatTTL renders how long a clip address lives, in words: "10 minutes".
// Whole minutes are rounded down, so the page never promises more time than
// the address has; under a minute it counts seconds. 0 or less reads
// "a few minutes".
func formatTTL(d time.Duration) string {
	switch {
	case d <= 0:
		return "a few minutes"
	case d < time.Minute:
		return plural(int(max(d/time.Second, 1)), "second", "seconds")
	default:
		return plural(int(d/time.Minute), "minute", "minutes")
	}
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// Source is one <source> of a clip's video: its address and type.
type Source = source

// Sources returns clip c's <source> elements as the viewer page plays
// them (sourceList), for another page that plays the same clips.
func Sources(c Clip) []Source { return sourceList(c) }

// FormatDuration renders d as the viewer page's clip cards show it
// ("1:05"); "" when unknown.
func FormatDuration(d time.Duration) string { return formatDuration(d) }
