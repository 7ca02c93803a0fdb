// Package viewerpage renders the viewer page: the page a carrier (a moving
// company's subcontractor) opens from a forwardable, expiring link that a
// partner minted, to watch the walkthrough video a customer filmed room by
// room with the capture page.
//
// The page needs no account: each clip is a plain <video controls> with a
// <source> per clip address. Its one script, htmlpage.LocalTimeJS, writes
// the link's expiry in the reader's zone; the Content-Security-Policy
// allows only it (by hash), and media only from Page.MediaOrigin. The markup is
// templ components (page.templ, errorpage.templ, layout.templ; make
// generate writes their _templ.go); testdata/reference keeps the old
// templates, which a fuzz target checks the components against.
//
// The package does no I/O and imports no AWS or HTTP package: the viewer
// function resolves the link, presigns the clip addresses and hands Render
// a [Page], or answers [ErrorPage] for a link that is unknown, expired,
// turned off or opened too often. The error pages never name the company
// nor say whether a survey exists, so a link never reveals whose it was.
//
// Design (inlined assets allowed by hash, templ over html/template): the
// page section of docs/CAPTURE.md.
package viewerpage
