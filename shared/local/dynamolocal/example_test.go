package dynamolocal_test

import (
	"fmt"
	"os"
	"testing"

	"github.com/moveleads/partnerapi/shared/local/dynamolocal"
)

// A test package that talks to DynamoDB starts one DynamoDB Local for the
// whole test binary (or uses the developer's running stack) and points the
// AWS SDK at it through the standard environment variables.
func ExampleForTests() {
	var m *testing.M // TestMain's argument

	endpoint, stop, err := dynamolocal.ForTests()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	dynamolocal.SetEnv(endpoint)
	code := m.Run()
	stop()
	os.Exit(code)
}
