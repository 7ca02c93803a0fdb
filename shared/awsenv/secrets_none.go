//go:build !awssecrets

package awsenv

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/aws"
)

// secretsManager is nil in binaries built without the awssecrets tag: they
// link no Secrets Manager client (about 0.26 MiB of an arm64 function,
// measured with make build). `make build` adds the tag exactly for the
// functions whose manifest entry lists secrets (lambdafn.BuildTags).
var secretsManager func(cfg aws.Config, arn string) func(context.Context) (string, error)
