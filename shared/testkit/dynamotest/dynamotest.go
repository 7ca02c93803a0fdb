// Package dynamotest holds test helpers over a DynamoDB table that import
// nothing of the service, so that the store's own tests and the
// integration harness (shared/testkit/apitest) share them.
package dynamotest

import (
	"context"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// ScanStrings returns every attribute name and every string, binary and
// string-set value of every item of table (nested lists and maps too), one
// per line: what a test searches for a secret that must never be stored.
func ScanStrings(t testing.TB, db *dynamodb.Client, table string) string {
	t.Helper()
	var b strings.Builder
	p := dynamodb.NewScanPaginator(db, &dynamodb.ScanInput{TableName: &table})
	for p.HasMorePages() {
		page, err := p.NextPage(context.Background())
		if err != nil {
			t.Fatalf("scan %s: %v", table, err)
		}
		for _, item := range page.Items {
			for name, v := range item {
				b.WriteString(name + "=")
				writeStrings(&b, v)
			}
		}
	}
	return b.String()
}

func writeStrings(b *strings.Builder, v types.AttributeValue) {
	switch v := v.(type) {
	case *types.AttributeValueMemberS:
		b.WriteString(v.Value + "\n")
	case *types.AttributeValueMemberB:
		b.Write(v.Value)
		b.WriteByte('\n')
	case *types.AttributeValueMemberSS:
		b.WriteString(strings.Join(v.Value, "\n") + "\n")
	case *types.AttributeValueMemberL:
		for _, e := range v.Value {
			writeStrings(b, e)
		}
	case *types.AttributeValueMemberM:
		for k, e := range v.Value {
			b.WriteString(k + "=")
			writeStrings(b, e)
		}
	}
}
