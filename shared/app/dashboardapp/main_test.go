package dashboardapp_test

import (
	"testing"

	"github.com/moveleads/partnerapi/shared/local/dynamolocal"
	"github.com/moveleads/partnerapi/shared/testkit/browser"
)

// TestMain runs the tests against DynamoDB Local and closes the shared
// Chromium after them.
func TestMain(m *testing.M) { dynamolocal.RunTests(browserTests{m}) }

type browserTests struct{ m *testing.M }

func (b browserTests) Run() int { return browser.RunTests(b.m) }
