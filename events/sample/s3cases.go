package sample

import (
	"fmt"

	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/domain/survey"
	"net/url"
	"strings"
)

// S3Case is one sample S3 event: Amazon S3's notification that one object
// was created, as S3 invokes an S3-triggered function with it (one record
// per event, as S3 sends them).
type S3Case struct {
	Slug string // the function it is for (manifest.Functions)
	Name string // what it shows, e.g. "object-created"; no dots
	// Bucket is the bucket's name.
	Bucket string
	// Key is the object key, plain; the event carries it URL-encoded, as
	// S3 does.
	Key string
	// Size, ETag and Sequencer describe the object as S3 reports it.
	Size      int64
	ETag      string
	Sequencer string
}

// LocalClipBucket is make dev's clip bucket (scripts/devstack), the bucket
// the S3 events name. The clip processor reads objects from the bucket
// its environment names (CLIP_BUCKET), so the events work against any.
const LocalClipBucket = "moveleads-clips-local"

// S3Cases returns every sample S3 event. Each S3-triggered function has at
// least one. As with Cases, running one again (S3 delivers at least once)
// succeeds and changes nothing more.
func S3Cases() []S3Case {
	return []S3Case{
		// The fixture clip ClipID arrived: with its object in the bucket
		// (PutClipObject) the processor decides it playable, and settles
		// its survey if the customer has finished; without, it logs that
		// the object is gone and succeeds.
		{
			Slug: "clip-processor", Name: "object-created", Bucket: LocalClipBucket, Key: ClipKey(),
			Size: int64(len(clipObject)), ETag: clipETag(), Sequencer: "0067400F2A9C3B1D52",
		},
		// The customer of FinishSurveyID pressed Finish: the capture
		// function wrote the survey's finish marker (an empty object), and
		// the processor settles the survey if its clips allow.
		{
			Slug: "clip-processor", Name: "survey-finished", Bucket: LocalClipBucket, Key: FinishKey(),
			Size: 0, ETag: emptyETag, Sequencer: "0067400F2A9C3B1D60",
		},
	}
}

// FinishKey is the key of FinishSurveyID's finish marker.
func FinishKey() string { return survey.FinishKey(PartnerID, string(auth.Test), FinishSurveyID) }

// emptyETag is the ETag S3 gives an empty object: the MD5 of nothing.
const emptyETag = "d41d8cd98f00b204e9800998ecf8427e"

// FileName returns the name of c's file in events/: <slug>.<name>.json (an
// S3-triggered function answers no status).
func (c S3Case) FileName() string { return fmt.Sprintf("%s.%s.json", c.Slug, c.Name) }

// EncodeKey writes an object key as S3 writes it in event notifications:
// URL-encoded as a form value ("red flower.jpg" is "red+flower.jpg"), with
// "/" left as it is. url.QueryUnescape (what aws-lambda-go's
// events.S3Object decoder applies) reverses it.
func EncodeKey(key string) string { return strings.ReplaceAll(url.QueryEscape(key), "%2F", "/") }

// The JSON of an S3 event notification, field for field and in the order
// of S3's own (https://docs.aws.amazon.com/AmazonS3/latest/userguide/notification-content-structure.html).
// aws-lambda-go's events.S3Event decodes it but would encode fields S3
// never sends (urlDecodedKey, an empty versionId), so the samples are
// written with these.
type (
	s3Event struct {
		Records []s3Record `json:"Records"`
	}
	s3Record struct {
		EventVersion      string         `json:"eventVersion"`
		EventSource       string         `json:"eventSource"`
		AWSRegion         string         `json:"awsRegion"`
		EventTime         string         `json:"eventTime"`
		EventName         string         `json:"eventName"`
		UserIdentity      s3Principal    `json:"userIdentity"`
		RequestParameters s3RequestParam `json:"requestParameters"`
		ResponseElements  s3Response     `json:"responseElements"`
		S3                s3Entity       `json:"s3"`
	}
	s3Principal struct {
		PrincipalID string `json:"principalId"`
	}
	s3RequestParam struct {
		SourceIPAddress string `json:"sourceIPAddress"`
	}
	s3Response struct {
		RequestID string `json:"x-amz-request-id"`
		ID2       string `json:"x-amz-id-2"`
	}
	s3Entity struct {
		SchemaVersion   string   `json:"s3SchemaVersion"`
		ConfigurationID string   `json:"configurationId"`
		Bucket          s3Bucket `json:"bucket"`
		Object          s3Object `json:"object"`
	}
	s3Bucket struct {
		Name          string      `json:"name"`
		OwnerIdentity s3Principal `json:"ownerIdentity"`
		ARN           string      `json:"arn"`
	}
	s3Object struct {
		Key       string `json:"key"`
		Size      int64  `json:"size"`
		ETag      string `json:"eTag"`
		Sequencer string `json:"sequencer"`
	}
)

// event returns c as S3 sends it: an ObjectCreated:Put (the capture
// page's presigned PUT) at the fixed event time, in make dev's region,
// from a phone's address (a documentation address), signed by the
// v1-capture function's role, which presigned the upload.
func (c S3Case) event() s3Event {
	return s3Event{Records: []s3Record{{
		EventVersion: "2.1", EventSource: "aws:s3", AWSRegion: "us-east-1",
		EventTime: eventTime.Format("2006-01-02T15:04:05.000Z"), EventName: "ObjectCreated:Put",
		UserIdentity:      s3Principal{PrincipalID: "AWS:AROAEXAMPLEROLEID0001:v1-capture"},
		RequestParameters: s3RequestParam{SourceIPAddress: "203.0.113.7"},
		ResponseElements:  s3Response{RequestID: "SAMPLE0000000001", ID2: "sample/" + strings.TrimSuffix(c.FileName(), ".json")},
		S3: s3Entity{
			SchemaVersion: "1.0", ConfigurationID: "ClipCreated",
			Bucket: s3Bucket{Name: c.Bucket, OwnerIdentity: s3Principal{PrincipalID: "A3EXAMPLEOWNER"}, ARN: "arn:aws:s3:::" + c.Bucket},
			Object: s3Object{Key: EncodeKey(c.Key), Size: c.Size, ETag: c.ETag, Sequencer: c.Sequencer},
		},
	}}}
}
