// Package viewerpage renders the viewer page: the page a carrier (a moving
// company's subcontractor) opens from a forwardable, expiring link that a
// partner minted, to watch the walkthrough video a customer filmed room by
// room with the capture page (shared/capturepage).
//
// The page needs no account and runs no script: each clip is a plain
// <video controls> with a <source> per clip address, which every phone and
// desktop browser plays by itself. It is one HTML document whose stylesheet
// is inlined from a file embedded in the binary (assets/) and allowed by
// the Content-Security-Policy through its SHA-256 hash, never by
// 'unsafe-inline'. The policy allows no script at all, and media only from
// Page.MediaOrigin, where the presigned clip addresses point: the page makes
// no request to a third party.
//
// The markup is an html/template: every value is escaped for its context,
// the clip addresses as URLs (a javascript: address never reaches the
// page).
//
// The package does no I/O and imports no AWS or HTTP package: the viewer
// function resolves the link, presigns the clip addresses and hands Render
// a Page, or answers ErrorPage for a link that is unknown, expired, turned
// off or opened too often. The error pages never name the company nor say
// whether a survey exists, because the function does not reveal whose link
// it was.
package viewerpage
