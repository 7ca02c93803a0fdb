package dynamolocal_test

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/moveleads/partnerapi/shared/local/dynamolocal"
)

// A test package that talks to DynamoDB starts one DynamoDB Local for the
// whole test binary (or uses the developer's running stack) and points the
// AWS SDK at it through the standard environment variables: TestMain calls
// dynamolocal.RunTests(m), which does this around m.Run and exits with its
// code.
func ExampleForTests() {
	endpoint, stop, err := dynamolocal.ForTests()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return
	}
	defer stop()
	for _, kv := range dynamolocal.Env(endpoint) { // what SetEnv sets, kept to this example
		k, _, _ := strings.Cut(kv, "=")
		if prev, ok := os.LookupEnv(k); ok {
			defer os.Setenv(k, prev)
		} else {
			defer os.Unsetenv(k)
		}
	}
	dynamolocal.SetEnv(endpoint)

	cfg, err := config.LoadDefaultConfig(context.Background())
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return
	}
	_, err = dynamodb.NewFromConfig(cfg).ListTables(context.Background(), &dynamodb.ListTablesInput{})
	fmt.Println("DynamoDB Local answers:", err == nil)
	// Output: DynamoDB Local answers: true
}
