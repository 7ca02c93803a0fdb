// Package viewerpage renders the viewer page: the page a carrier (a moving
// company's subcontractor) opens from a forwardable, expiring link that a
// partner minted, to watch the walkthrough video a customer filmed room by
// room with the capture page (shared/app/surveys/capturepage).
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
// The markup is templ components (page.templ, errorpage.templ,
// layout.templ; `make generate` writes their _templ.go): every value is
// escaped by templ for its context, the clip addresses as URLs (a
// javascript: address never reaches the page). Not html/template: its
// executor's reflective method lookup keeps every exported method of every
// linked type in the binary. testdata/reference keeps the old templates,
// which a fuzz target checks the components against.
//
// The package does no I/O and imports no AWS or HTTP package: the viewer
// function resolves the link, presigns the clip addresses and hands Render
// a Page, or answers ErrorPage for a link that is unknown, expired, turned
// off or opened too often. The error pages never name the company nor say
// whether a survey exists, because the function does not reveal whose link
// it was.
package viewerpage
