package dashboardapp_test

import (
	"os"
	"testing"

	"github.com/moveleads/partnerapi/shared/testkit/apitest"
	"github.com/moveleads/partnerapi/shared/testkit/browser"
)

// TestMain runs the tests against DynamoDB Local and a MinIO (the lead
// page plays clips from it), and closes the shared Chromium after them.
func TestMain(m *testing.M) { os.Exit(apitest.RunS3(browserTests{m})) }

type browserTests struct{ m *testing.M }

func (b browserTests) Run() int { return browser.RunTests(b.m) }
