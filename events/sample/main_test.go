package sample_test

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/moveleads/partnerapi/events/sample"
	"github.com/moveleads/partnerapi/shared/local/dynamolocal"
	"github.com/moveleads/partnerapi/shared/local/s3local"
	"github.com/moveleads/partnerapi/shared/local/stripelocal"
	"github.com/moveleads/partnerapi/shared/spec/settings"
)

// publicBaseURL is the origin capture links start with in these tests:
// make dev's default, the host the events name.
const publicBaseURL = "http://127.0.0.1:3000"

// TestMain runs the tests against DynamoDB Local, MinIO (s3local) and
// stripe-mock (stripelocal: STRIPE_API_URL), with the settings the survey
// functions read (CLIP_BUCKET, PUBLIC_BASE_URL,
// the S3 endpoint and credentials) in the environment, and the fixture
// clips' objects (sample.PutClipObject) in a fresh clip bucket. The bucket
// has no notification: only the sample S3 event runs the clip processor.
func TestMain(m *testing.M) { os.Exit(runTests(m)) }

func runTests(m *testing.M) int {
	endpoint, stopDB, err := dynamolocal.ForTests()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer stopDB()
	dynamolocal.SetEnv(endpoint)
	srv, stopS3, err := s3local.ForTests()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer stopS3()
	s3local.SetEnv(srv) // after dynamolocal's: MinIO checks the credentials
	// The deposit events' checkouts go to stripe-mock (STRIPE_API_URL).
	stripe, stopStripe, err := stripelocal.ForTests()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer stopStripe()
	stripelocal.SetEnv(stripe)
	client := srv.Client()
	bucket := fmt.Sprintf("sample-clips-%d", time.Now().UnixNano())
	ctx := context.Background()
	if err := s3local.CreateBucket(ctx, client, s3local.Bucket{Name: bucket}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer removeBucket(client, bucket)
	if err := sample.PutClipObject(ctx, client, bucket); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	os.Setenv(settings.ClipBucket, bucket)
	os.Setenv(settings.PublicBaseURL, publicBaseURL)
	return m.Run()
}

// removeBucket deletes the test's bucket and the fixture clips' objects,
// for a developer's long-running MinIO (AWS_ENDPOINT_URL_S3).
func removeBucket(client *s3.Client, bucket string) {
	ctx := context.Background()
	for _, key := range sample.ClipKeys() {
		_, _ = client.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)})
	}
	_, _ = client.DeleteBucket(ctx, &s3.DeleteBucketInput{Bucket: aws.String(bucket)})
}
