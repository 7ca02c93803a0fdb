// Package capturepage renders the hosted capture page: the mobile page a
// moving company's customer opens from a survey link to film the home room
// by room, count the large items and finish (docs/CAPTURE.md).
//
// The page is one HTML document with its stylesheet and script inlined from
// files embedded in the binary (assets/), allowed by the
// Content-Security-Policy through their SHA-256 hashes, never by
// 'unsafe-inline'. Everything the script needs (the company, the rooms, the
// cube sheet, the clips and checklist saved so far, the limits) travels in a
// <script type="application/json" id="survey-data"> block of encoding/json
// output (which escapes <, > and &, so it cannot close the element) that the
// browser never executes. The markup is templ components (page.templ,
// error.templ; the generated x_templ.go is committed, make generate): every
// value is escaped by templ (text, attribute), the page has no URL built
// from data, and the inline script and stylesheet, written verbatim, are
// allowed by htmlpage.Hash. Not html/template: its reflective executor
// keeps every method of every linked type in the binary. The page makes
// no request to a third party: its own JSON calls go to Page.APIBase, and
// the clips, and the still frames it takes of them for the inventory's
// detector, go to presigned URLs on Page.UploadOrigin.
//
// The package does no I/O and imports no AWS or HTTP package: the
// v1-capture function looks the survey up and hands Render a Page, or
// answers ErrorPage for an unknown, expired or finished link.
package capturepage
