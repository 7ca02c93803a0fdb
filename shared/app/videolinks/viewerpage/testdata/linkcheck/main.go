// Command linkcheck links the viewer pages and nothing else, for
// TestPagesLinkNoTemplateExecutor to read its symbols.
package main

import "github.com/moveleads/partnerapi/shared/app/videolinks/viewerpage"

func main() {
	viewerpage.Render(viewerpage.Page{})
	viewerpage.ErrorPage(404, 0)
}
