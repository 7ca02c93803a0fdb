// Package htmlpage holds what the service's HTML pages (the capture page,
// shared/capturepage, and the viewer page, shared/viewerpage) share: the
// CSP origin check, CSP hashes of inline elements, HTML escaping.
//
// The pages fill their embedded markup in without html/template, whose
// reflection would keep the linker from pruning unused methods and grow
// the Lambda binaries past their size budget: every text and attribute
// value goes through Escape, and every inline <style> and <script> is
// allowed by its Hash, never by 'unsafe-inline'. The package does no I/O.
// Its tests' helpers, for the pages' tests, are in htmlpage/htmltest.
package htmlpage

import (
	"crypto/sha256"
	"encoding/base64"
	"strings"
)

// Hash is the CSP source expression ("'sha256-…'", quotes included) that
// allows an inline <style> or <script> whose text is exactly s.
func Hash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
}

// escaper escapes text and quoted attribute values exactly as html/template
// does (its htmlReplacementTable), so the markup stays byte for byte what it
// was when the pages were templates: NUL becomes U+FFFD, which is what the
// HTML parser reads for it anyway; & < > are the text escapes; both quotes
// are escaped, so one escaped value is safe between either kind of
// attribute quote; and + is escaped only because html/template escapes it
// (the usual reason given is UTF-7 sniffing), which keeps the bytes the
// same. Nothing else needs escaping in those two contexts.
var escaper = strings.NewReplacer(
	"\x00", "\uFFFD",
	`"`, "&#34;",
	"&", "&amp;",
	"'", "&#39;",
	"+", "&#43;",
	"<", "&lt;",
	">", "&gt;",
)

// Escape makes s safe as HTML text, in <title> and in a quoted attribute
// value. It is not for an unquoted attribute value, nor for the text of a
// <script> or <style>.
func Escape(s string) string { return escaper.Replace(s) }
