// Command renderonly links the capture page and its error page and nothing
// else, for TestRenderLinksNoReflectiveTemplateExecutor.
package main

import (
	"os"

	"github.com/moveleads/partnerapi/shared/app/surveys/capturepage"
)

func main() {
	_, _ = os.Stdout.Write(capturepage.Render(capturepage.Page{}).Body)
	_, _ = os.Stdout.Write(capturepage.ErrorPage(404, "").Body)
}
