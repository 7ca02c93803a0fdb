package capturepage

import (
	"os"
	"testing"

	"github.com/moveleads/partnerapi/shared/testkit/browser"
)

// TestMain closes the one Chromium the browser tests share.
func TestMain(m *testing.M) { os.Exit(browser.RunTests(m)) }
