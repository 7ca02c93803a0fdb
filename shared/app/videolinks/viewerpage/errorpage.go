package viewerpage

import (
	"strconv"
	"time"
)

// ErrorPage returns a friendly HTML page with the given status for a link
// that cannot be watched: 404 (the link is not known: check that the whole
// link was opened), 410 (it expired or the sender turned it off: ask for a
// new one) or 429 (opened too often in the last hour: try again in
// retryAfter, rounded up to whole minutes). Any other status gets a
// "something went wrong, try again in a few minutes" page.
//
// The pages never name the company nor say whether a survey exists or what
// it holds: the viewer function answers them before it knows, or without
// revealing, whose link it was. They carry the headers of Headers("") (no
// media is allowed), and a 429 also carries Retry-After in whole seconds,
// rounded up. A retryAfter of 0 or less counts as one minute, so the header
// and the text always agree on a wait.
func ErrorPage(status int, retryAfter time.Duration) Document {
	var title, message string
	header := Headers("")
	switch status {
	case 404:
		title = "We can’t find this video link"
		message = "Check that you opened the whole link from your message or email. If it still doesn’t work, ask the person who sent it to you to send it again."
	case 410:
		title = "This video link is no longer available"
		message = "It has expired, or the person who shared it has turned it off. If you still need to watch the video, ask them for a new link."
	case 429:
		if retryAfter <= 0 {
			retryAfter = time.Minute
		}
		header["Retry-After"] = strconv.FormatInt(ceilDiv(retryAfter, time.Second), 10)
		title = "This link has been opened many times in the last hour"
		message = "To keep the video private, a link can only be opened a limited number of times an hour. Please try again in " +
			plural(int(ceilDiv(retryAfter, time.Minute)), "minute", "minutes") + "."
	default:
		title = "Sorry, something went wrong"
		message = "Please try the link again in a few minutes."
	}
	body, err := render(errorDocument(title, message))
	if err != nil {
		body = []byte(title)
	}
	return Document{Status: status, Header: header, Body: body}
}

// ceilDiv is d / unit rounded up, for a positive d (without overflowing
// near the largest Duration).
func ceilDiv(d, unit time.Duration) int64 {
	n := int64(d / unit)
	if d%unit != 0 {
		n++
	}
	return n
}
