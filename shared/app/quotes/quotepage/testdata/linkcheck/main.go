// Command linkcheck links the quote page and nothing else, for
// TestPageLinksNoTemplateExecutor to look at its symbols.
package main

import (
	"os"

	"github.com/moveleads/partnerapi/shared/app/quotes/quotepage"
)

func main() {
	os.Stdout.Write(quotepage.Render(quotepage.Page{}).Body)
	os.Stdout.Write(quotepage.ErrorPage(404, "").Body)
}
