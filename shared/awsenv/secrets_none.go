//go:build !awssecrets

package awsenv

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/aws"
)

// secretsManager is nil in binaries built without the awssecrets tag: they
// link no Secrets Manager client (262,144 B of the arm64 v1-leads binary,
// by building it with and without the client). `make build` adds the tag exactly for the
// functions whose manifest entry lists secrets (lambdafn.BuildTags).
var secretsManager func(cfg aws.Config, arn string) func(context.Context) (string, error)
