package s3local

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
)

// Bucket describes a bucket for [CreateBucket].
type Bucket struct {
	// Name is the bucket's name.
	Name string
	// Notify lists the bucket's object-created notifications.
	Notify []Notification
}

// Notification sends an event to a webhook for every object created under
// a key prefix.
type Notification struct {
	// Target is the webhook, which must have been given to [Start].
	Target Webhook
	// Prefix limits the events to keys that start with it; "" sends all.
	Prefix string
}

// ObjectCreatedEvents is the event type every [Notification] subscribes to:
// any way of creating an object (PUT, POST, copy, multipart upload).
const ObjectCreatedEvents = types.EventS3ObjectCreated

// CreateBucket creates b.Name with client (a bucket the caller already owns
// is kept, with its objects), then, when b.Notify is not empty, sets its
// notification configuration, replacing any earlier one. It fails with the
// first refused call, wrapped with what it was doing; a Notification whose
// target the server was not started with is refused by the server. CORS is
// not a bucket setting on MinIO: see [WithCORSOrigins].
func CreateBucket(ctx context.Context, client *s3.Client, b Bucket) error {
	_, err := client.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(b.Name)})
	var owned *types.BucketAlreadyOwnedByYou
	if err != nil && !errors.As(err, &owned) {
		return fmt.Errorf("create bucket %s: %w", b.Name, err)
	}
	if len(b.Notify) > 0 {
		queues := make([]types.QueueConfiguration, 0, len(b.Notify))
		for _, n := range b.Notify {
			queues = append(queues, queueConfiguration(n))
		}
		_, err := client.PutBucketNotificationConfiguration(ctx, &s3.PutBucketNotificationConfigurationInput{
			Bucket:                    aws.String(b.Name),
			NotificationConfiguration: &types.NotificationConfiguration{QueueConfigurations: queues},
		})
		if err != nil {
			return fmt.Errorf("set notifications of bucket %s: %w", b.Name, err)
		}
	}
	return nil
}

func queueConfiguration(n Notification) types.QueueConfiguration {
	q := types.QueueConfiguration{
		QueueArn: aws.String(n.Target.ARN()),
		Events:   []types.Event{ObjectCreatedEvents},
	}
	if n.Prefix != "" {
		q.Filter = &types.NotificationConfigurationFilter{Key: &types.S3KeyFilter{
			FilterRules: []types.FilterRule{{Name: types.FilterRuleNamePrefix, Value: aws.String(n.Prefix)}},
		}}
	}
	return q
}

// Client returns an S3 client for the server with its credentials and
// Region, addressing buckets by path (http://127.0.0.1:PORT/bucket/key).
// Code under test should build its clients from the environment that
// [SetEnv] prepares instead; Client is for a test's own setup and checks.
// optFns change the client's options after these.
func (s *Server) Client(optFns ...func(*s3.Options)) *s3.Client {
	cfg := s.Config()
	return s3.New(s3.Options{
		BaseEndpoint: aws.String(s.Endpoint),
		Region:       cfg.Region,
		Credentials:  cfg.Credentials,
		UsePathStyle: true,
		// MinIO's answers to ranged GETs carry no checksum: no stderr line.
		DisableLogOutputChecksumValidationSkipped: true,
	}, optFns...)
}

// Config returns an AWS configuration with the server's credentials and
// Region, for clients given the server's Endpoint of their own.
func (s *Server) Config() aws.Config {
	return aws.Config{Region: Region, Credentials: credentials.NewStaticCredentialsProvider(s.AccessKey, s.SecretKey, "")}
}
