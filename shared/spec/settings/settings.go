// Package settings names the environment variables the functions read, so
// that the functions, the local tools, the SAM template checks and the CDK
// stack (a separate module, which must not pull in the AWS SDK through the
// handler packages) share one definition, and parses the values that more
// than one of them must agree on (ParseOrigins). It imports only the
// standard library.
package settings

const (
	// Table names the DynamoDB table.
	Table = "TABLE_NAME"
	// EventsTable names the events table (table.EventsName), whose stream
	// triggers the webhook dispatcher: only the functions that write
	// webhook events get it. Unset, a local tool derives it from Table.
	EventsTable = "EVENTS_TABLE_NAME"
	// CursorSecret holds the key that signs listLeads cursors (hex, at least
	// 32 bytes), for local stacks.
	CursorSecret = "CURSOR_SECRET"
	// CursorSecretARN names the Secrets Manager secret holding that key, in
	// AWS. It is read on the first listLeads request, not at init.
	CursorSecretARN = "CURSOR_SECRET_ARN"
	// CaptureLinkKey holds the key getSurveyLink derives capture tokens
	// from under an Idempotency-Key (hex, 32 bytes), for local stacks; in
	// AWS CaptureLinkKeyARN names its Secrets Manager secret.
	CaptureLinkKey    = "CAPTURE_LINK_KEY"
	CaptureLinkKeyARN = "CAPTURE_LINK_KEY_ARN"
	// ClipBucket names the S3 bucket of survey clips (functions with
	// bucket grants in the manifest).
	ClipBucket = "CLIP_BUCKET"
	// PublicBaseURL is the API's public origin (and stage path, if any),
	// e.g. https://api.example.com, from which capture links are made
	// (getSurveyLink) and which the clip bucket's CORS allows.
	PublicBaseURL = "PUBLIC_BASE_URL"
	// WebhookSealingKey holds the AES-256 key (hex, 32 bytes) that seals
	// webhook endpoints' signing secrets in the table, for local stacks;
	// in AWS WebhookSealingKeyARN names its Secrets Manager secret.
	WebhookSealingKey    = "WEBHOOK_SEALING_KEY"
	WebhookSealingKeyARN = "WEBHOOK_SEALING_KEY_ARN"
	// WebhookAllowLoopback, set to "1", lets test-mode webhook deliveries
	// reach loopback addresses (127.0.0.0/8, ::1): make dev sets it so a
	// listener on the developer's machine receives events. LOCAL ONLY:
	// the deployed stack never sets it (the CDK stack's and the SAM
	// template's tests check), and live-mode deliveries refuse loopback
	// whatever it says.
	WebhookAllowLoopback = "WEBHOOK_ALLOW_LOOPBACK"
	// WebhookQueueURL is the URL of the webhook attempts queue (SQS),
	// to which webhook-dispatcher hands each delivery it writes and
	// webhook-sender hands a second attempt due within seconds. Unset (a
	// tool that runs a function alone), deliveries are left to
	// webhook-retrier; make dev uses an in-process queue instead.
	WebhookQueueURL = "WEBHOOK_QUEUE_URL"
	// StripeAPIKeys holds the platform's Stripe secret keys by mode, as
	// JSON text ({"test": "sk_test_…", "live": "sk_live_…"}), for local
	// stacks; in AWS StripeAPIKeysARN names its Secrets Manager secret.
	StripeAPIKeys    = "STRIPE_API_KEYS"
	StripeAPIKeysARN = "STRIPE_API_KEYS_ARN"
	// StripeWebhookSecrets holds the Stripe webhook endpoints' signing
	// secrets by mode, as JSON text ({"test": "whsec_…", "live":
	// "whsec_…"}); in AWS StripeWebhookSecretsARN names its secret.
	StripeWebhookSecrets    = "STRIPE_WEBHOOK_SECRETS"
	StripeWebhookSecretsARN = "STRIPE_WEBHOOK_SECRETS_ARN"
	// StripeAPIURL points the Stripe client at another base URL
	// (stripe-mock under make dev and in tests); unset in AWS.
	StripeAPIURL = "STRIPE_API_URL"
	// AgentToolsAllowedOrigins lists the web origins whose pages may call
	// the agent tool server's HTTP transport (v1-mcp) from a browser,
	// comma-separated, each scheme://host[:port] as browsers send it in
	// the Origin header (ParseOrigins). Unset or empty: no browser page
	// may call it (MCP clients are programs and send no Origin). A value
	// ParseOrigins refuses fails the function at init. The CDK stack sets
	// it from its agentToolsAllowedOrigins context, the SAM template from
	// its AgentToolsAllowedOrigins parameter, only on the function whose
	// route authenticates manifest.AuthAgentKey.
	AgentToolsAllowedOrigins = "AGENT_TOOLS_ALLOWED_ORIGINS"
)

// SecretVar returns the environment variable a function reads the secret
// named name (manifest.Secrets) from: locally the variable holds the value
// (hex); in AWS <variable>_ARN holds the Secrets Manager ARN. It returns ""
// for a name it does not know; a test checks every manifest secret has one.
// (A switch, not a map: a package-level map is built at every function's
// init.)
func SecretVar(name string) string {
	switch name {
	case "cursor-signing-key":
		return CursorSecret
	case "webhook-sealing-key":
		return WebhookSealingKey
	case "stripe-api-keys":
		return StripeAPIKeys
	case "stripe-webhook-secrets":
		return StripeWebhookSecrets
	case "capture-link-key":
		return CaptureLinkKey
	}
	return ""
}

// QueueURLVar is the environment variable that holds the URL of the queue
// called name (a manifest queue: manifest.QueueWebhookAttempts), or ""
// for a name it does not know; a test checks every manifest queue has
// one.
func QueueURLVar(name string) string {
	switch name {
	case "webhook-attempts":
		return WebhookQueueURL
	}
	return ""
}

// SecretIsText reports whether the secret named name holds text (the
// Stripe secrets' JSON objects, which an operator pastes in) rather than
// a hex-encoded key the stack generates.
func SecretIsText(name string) bool {
	return name == "stripe-api-keys" || name == "stripe-webhook-secrets"
}
