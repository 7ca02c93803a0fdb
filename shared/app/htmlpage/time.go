package htmlpage

import (
	_ "embed"
	"time"
)

// FormatTime is how every page writes a time on the server: in words, in
// UTC, naming the zone ("Friday, December 4, 2026 at 2:21 AM UTC"). A page
// puts it in <time datetime="RFC3339" data-local>, whose text LocalTimeJS
// rewrites in the reader's own time zone, named the same way.
func FormatTime(t time.Time) string {
	return t.UTC().Format("Monday, January 2, 2006 at 3:04 PM") + " UTC"
}

// LocalTimeJS is the script a page that shows times starts its own script
// with: it defines localTime(date), the reader's time in FormatTime's
// words and zone, and rewrites every <time data-local> with it.
//
//go:embed assets/localtime.js
var LocalTimeJS string
