package capturepage

import (
	"bytes"
	"context"
	"fmt"
	"time"

	"github.com/a-h/templ"

	"github.com/moveleads/partnerapi/shared/app/htmlpage"
	"github.com/moveleads/partnerapi/shared/app/pipeline"
)

// Document is an HTML answer: status, headers and body, which the request
// pipeline returns and the edge sends as it is.
type Document = pipeline.Document

// Item is one row of the cube sheet as the checklist shows it.
type Item struct {
	Key  string // cube sheet key, sent back in the checklist, e.g. "sofa_3_seat"
	Name string // what the customer reads, e.g. "Sofa, 3 seats"
}

// Clip is a clip the survey already holds, shown when the customer opens
// the link again.
type Clip struct {
	ID      string
	Room    string
	Verdict string    // a survey.Verdict: sending, received, checked or unusable
	Reason  string    // why an unusable clip could not be used, in plain words
	At      time.Time // when its upload was requested
}

// Page is what the capture page shows for one survey.
type Page struct {
	Company        string                    // the partner's display name, e.g. "Demo Movers"
	APIBase        string                    // path prefix of the page's JSON calls: "/v1-capture/<token>"
	UploadOrigin   string                    // origin of the presigned upload URLs, e.g. "https://bucket.s3.us-east-1.amazonaws.com"
	Rooms          []string                  // suggested rooms in walk order (survey.Rooms)
	Items          []Item                    // the cube sheet (inventory.Entries())
	RoomItems      map[string][]string       // room → item keys the counting step offers first (inventory.RoomItems())
	Clips          []Clip                    // clips already announced, oldest first
	Checklist      map[string]map[string]int // room → item key → count, as saved
	ClipsMax       int                       // clips a survey may hold (survey.MaxClips)
	ClipsUsed      int                       // places the survey's clips take (rejected ones give theirs back)
	MaxClipBytes   int64                     // largest clip accepted (survey.MaxClipBytes)
	MaxClipSeconds int                       // longest clip, in seconds (survey.MaxClipDuration)
	ExpiresAt      time.Time                 // when the link stops working

	// The page takes still frames (JPEG) of each clip for the inventory's
	// detector and uploads them beside it. FramesMax 0 takes none.
	FramesMax     int           // frames a survey may hold (survey.MaxFrames)
	FramesUsed    int           // frames the survey holds already
	FramesPerClip int           // most frames of one clip, so later rooms get some too
	MaxFrameBytes int64         // largest frame accepted (survey.MaxFrameBytes)
	MaxFrameSide  int           // longest side of a frame, in pixels (survey.MaxFrameSide)
	FrameInterval time.Duration // least recording time per frame (survey.FrameInterval)
}

// pageData is the survey-data JSON block the script reads.
type pageData struct {
	Company        string                    `json:"company"`
	APIBase        string                    `json:"api_base"`
	Rooms          []string                  `json:"rooms"`
	GroupRooms     map[string][]string       `json:"group_rooms"`
	RoomItems      map[string][]string       `json:"room_items"`
	Clips          []clipData                `json:"clips"`
	Checklist      map[string]map[string]int `json:"checklist"`
	ClipsMax       int                       `json:"clips_max"`
	ClipsUsed      int                       `json:"clips_used"`
	MaxClipBytes   int64                     `json:"max_clip_bytes"`
	MaxClipSeconds int                       `json:"max_clip_seconds"`
	ExpiresAt      string                    `json:"expires_at"`
	FramesMax      int                       `json:"frames_max"`
	FramesUsed     int                       `json:"frames_used"`
	FramesPerClip  int                       `json:"frames_per_clip"`
	MaxFrameBytes  int64                     `json:"max_frame_bytes"`
	MaxFrameSide   int                       `json:"max_frame_side"`
	FrameInterval  int64                     `json:"frame_interval_ms"`
}

type clipData struct {
	ID      string `json:"id"`
	Room    string `json:"room"`
	Verdict string `json:"verdict"`
	Reason  string `json:"reason,omitempty"`
	At      string `json:"at"`
}

// Render returns the capture page for p: status 200 with the headers of
// Headers(p.UploadOrigin). It does not fail: the assets are embedded and
// checked by the package's tests, and should rendering fail anyway, Render
// answers ErrorPage(500, p.Company).
func Render(p Page) Document {
	body, err := render(capturePage(viewOf(p)))
	if err != nil {
		return ErrorPage(500, p.Company)
	}
	return Document{Status: 200, Header: Headers(p.UploadOrigin), Body: body}
}

// viewOf is what the capture page shows of p.
func viewOf(p Page) pageView {
	clips := make([]clipData, 0, len(p.Clips))
	for _, c := range p.Clips {
		clips = append(clips, clipData{ID: c.ID, Room: c.Room, Verdict: c.Verdict, Reason: c.Reason, At: c.At.UTC().Format(time.RFC3339)})
	}
	checklist := p.Checklist
	if checklist == nil {
		checklist = map[string]map[string]int{}
	}
	rooms := p.Rooms
	if rooms == nil {
		rooms = []string{}
	}
	roomItems := p.RoomItems
	if roomItems == nil {
		roomItems = map[string][]string{}
	}
	minutes := (p.MaxClipSeconds + 59) / 60
	return pageView{
		Company: p.Company,
		Data: pageData{
			Company:        p.Company,
			APIBase:        p.APIBase,
			Rooms:          rooms,
			GroupRooms:     groupRooms(),
			RoomItems:      roomItems,
			Clips:          clips,
			Checklist:      checklist,
			ClipsMax:       p.ClipsMax,
			ClipsUsed:      p.ClipsUsed,
			MaxClipBytes:   p.MaxClipBytes,
			MaxClipSeconds: p.MaxClipSeconds,
			ExpiresAt:      p.ExpiresAt.UTC().Format(time.RFC3339),
			FramesMax:      p.FramesMax,
			FramesUsed:     p.FramesUsed,
			FramesPerClip:  p.FramesPerClip,
			MaxFrameBytes:  p.MaxFrameBytes,
			MaxFrameSide:   p.MaxFrameSide,
			FrameInterval:  p.FrameInterval.Milliseconds(),
		},
		ClipsMax:    p.ClipsMax,
		MaxMinutes:  minutes,
		MaxMinutes2: fmt.Sprintf("%02d", minutes),
		ExpiresISO:  p.ExpiresAt.UTC().Format(time.RFC3339),
		ExpiresText: htmlpage.FormatTime(p.ExpiresAt),
		MaxSize:     formatBytes(p.MaxClipBytes),
		ClipsUsed:   p.ClipsUsed,
		Rooms:       rooms,
		Groups:      groupItems(p.Items),
	}
}

// pageView is what capturePage (page.templ) shows; templ escapes every
// value, and templ.JSONScript writes Data as encoding/json output, which
// escapes <, > and &, so it cannot end its element.
type pageView struct {
	Data                             pageData
	Company, MaxMinutes2, ExpiresISO string
	ExpiresText, MaxSize             string
	ClipsMax, MaxMinutes, ClipsUsed  int
	Rooms                            []string
	Groups                           []group
}

// errorView is what errorPage (error.templ) shows.
type errorView struct {
	Company, Title, Message string
	Tick                    bool // the "all done" tick of a finished survey
}

// render renders c; it fails only when c does (the page's JSON data
// cannot be encoded).
func render(c templ.Component) ([]byte, error) {
	var b bytes.Buffer
	if err := c.Render(context.Background(), &b); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// ErrorPage returns a friendly HTML page with the given status for a link
// that cannot be used: 404 (the link is not known), 410 (it expired: ask
// company for a new one) or 409 (the survey is finished: company will be in
// touch). Any other status gets a "something went wrong, try again later"
// page. It carries the same security headers as the capture page. An empty
// company reads "the moving company".
func ErrorPage(status int, company string) Document {
	v := errorViewOf(status, company)
	body, err := render(errorPage(v))
	if err != nil {
		body = []byte(v.Title)
	}
	return Document{Status: status, Header: Headers(""), Body: body}
}

// errorViewOf is what the error page for status shows.
func errorViewOf(status int, company string) errorView {
	brand := company
	if company == "" {
		company = "the moving company"
	}
	var title, message string
	var tick bool
	switch status {
	case 404:
		title = "We can’t find this link"
		message = "Check that you opened the whole link from your message. If it still doesn’t work, ask " + company + " to send you a new link."
	case 410:
		title = "This link has expired"
		message = "Links to film your home only work for a limited time. Please ask " + company + " for a new link."
	case 409:
		title = "Thank you, you’re all done"
		tick = true
		message = "You have already sent your video survey. Thank you, " + company + " will be in touch about your estimate."
	default:
		title = "Sorry, something went wrong"
		message = "Please try the link again in a few minutes. If it still doesn’t work, contact " + company + "."
	}
	return errorView{Company: brand, Title: title, Message: message, Tick: tick}
}

// formatBytes renders n as the customer reads it: "500 MB".
func formatBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.0f GB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.0f MB", float64(n)/(1<<20))
	default:
		return fmt.Sprintf("%d KB", (n+1023)/1024)
	}
}
