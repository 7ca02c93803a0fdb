package s3local

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
)

// Option changes how [Start] configures the server. MinIO reads both its
// notification targets and its CORS origins only when it starts, and
// applies CORS to every bucket alike.
type Option func(*options)

type options struct {
	webhooks    []Webhook
	corsOrigins []string
}

// WithWebhooks gives the server notification targets that buckets can
// then send events to (see [Notification]).
func WithWebhooks(webhooks ...Webhook) Option {
	return func(o *options) { o.webhooks = append(o.webhooks, webhooks...) }
}

// WithCORSOrigins lets pages of these origins (scheme://host[:port]; "*"
// matches any run of characters) call the server from a browser, for
// example a presigned PUT with Content-Type and Content-Length. MinIO has
// no per-bucket CORS (PutBucketCors answers NotImplemented): its rule is
// server-wide and, for an allowed origin, allows every method and header,
// more than the rule Amazon S3 gets. Without this option no origin is
// allowed, as on an S3 bucket without CORS configuration (MinIO's own
// default allows every origin).
func WithCORSOrigins(origins ...string) Option {
	return func(o *options) { o.corsOrigins = append(o.corsOrigins, origins...) }
}

// noOrigin is the CORS pattern that allows no origin: MinIO treats an
// empty list as "*", and no browser sends this Origin (a URL of an unknown
// scheme has an opaque origin, which browsers send as "null").
const noOrigin = "s3local:none"

// validate reports the first option MinIO would not accept: an invalid
// webhook, a repeated webhook ID, or an empty CORS origin or one with a
// comma (MinIO's list separator).
func (o options) validate() error {
	seen := make(map[string]bool, len(o.webhooks))
	for _, w := range o.webhooks {
		if err := w.valid(); err != nil {
			return err
		}
		if seen[w.ID] {
			return fmt.Errorf("webhook ID %q given twice", w.ID)
		}
		seen[w.ID] = true
	}
	for _, origin := range o.corsOrigins {
		if origin == "" || strings.ContainsAny(origin, ", \t") {
			return fmt.Errorf("CORS origin %q: want scheme://host[:port], without commas or spaces", origin)
		}
	}
	return nil
}

// env returns the MinIO variables that carry the options.
func (o options) env() []string {
	origins := noOrigin
	if len(o.corsOrigins) > 0 {
		origins = strings.Join(o.corsOrigins, ",")
	}
	env := []string{"MINIO_API_CORS_ALLOW_ORIGIN=" + origins}
	for _, w := range o.webhooks {
		env = append(env,
			"MINIO_NOTIFY_WEBHOOK_ENABLE_"+w.ID+"=on",
			"MINIO_NOTIFY_WEBHOOK_ENDPOINT_"+w.ID+"="+w.Endpoint,
		)
		if w.AuthToken != "" {
			env = append(env, "MINIO_NOTIFY_WEBHOOK_AUTH_TOKEN_"+w.ID+"="+w.AuthToken)
		}
	}
	return env
}

// Webhook is a bucket-notification target: MinIO POSTs each event it is
// told to send there (see [Notification]) as JSON whose body decodes into
// aws-lambda-go's events.S3Event. Differences from Amazon S3's events:
// eventName has an "s3:" prefix, eventSource is "minio:s3", and object keys
// are URL-encoded with "/" as "%2F" (use the record's URLDecodedKey). An
// event is posted once; one the endpoint does not take is lost.
type Webhook struct {
	// ID names the target in MinIO's configuration and in its ARN: ASCII
	// letters, digits and underscores.
	ID string
	// Endpoint is the absolute http or https URL the events are posted to,
	// for example http://127.0.0.1:PORT/path.
	Endpoint string
	// AuthToken, when set, is sent in each request's Authorization header:
	// "Bearer " and the token, or the token alone when it already has two
	// words ("Scheme credentials").
	AuthToken string
}

// ARN returns the queue ARN a bucket's notification configuration names
// this target by.
func (w Webhook) ARN() string { return "arn:minio:sqs::" + w.ID + ":webhook" }

// valid reports whether MinIO would accept the webhook's ID and endpoint.
func (w Webhook) valid() error {
	if w.ID == "" {
		return errors.New("webhook has no ID")
	}
	for _, r := range w.ID {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_') {
			return fmt.Errorf("webhook ID %q: want only ASCII letters, digits and underscores", w.ID)
		}
	}
	if n := len(strings.Fields(w.AuthToken)); w.AuthToken != "" && n != 1 && n != 2 {
		// MinIO would send no Authorization header at all.
		return fmt.Errorf("webhook %s auth token: want one or two words, got %d", w.ID, n)
	}
	u, err := url.Parse(w.Endpoint)
	if err != nil {
		return fmt.Errorf("webhook %s endpoint: %w", w.ID, err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("webhook %s endpoint %q: want an absolute http or https URL", w.ID, w.Endpoint)
	}
	return nil
}
