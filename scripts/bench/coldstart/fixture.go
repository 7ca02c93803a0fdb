package coldstart

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/google/uuid"

	"github.com/moveleads/partnerapi/shared/adapter/dynamo"
	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/domain/estimate"
	"github.com/moveleads/partnerapi/shared/domain/lead"
	"github.com/moveleads/partnerapi/shared/domain/partner"
	"github.com/moveleads/partnerapi/shared/local/localgw"
	"github.com/moveleads/partnerapi/shared/local/s3local"
	"github.com/moveleads/partnerapi/shared/spec/manifest"
	"github.com/moveleads/partnerapi/shared/spec/settings"
)

// createBody is a complete createLead body: it gets an instant estimate,
// so the first response includes the estimate's work.
const createBody = `{"customer_name":"Ada Lovelace","email":"ada@example.com","phone":"+15551234567",` +
	`"from_address":"1 Main St, New York, NY 10001","to_address":"9 Oak Ave, Boston, MA 02108",` +
	`"home_size":"2 bedroom","move_date":"2027-01-15","special_items":["piano"],"source":"web-form"}`

// fixture is the data the cold starts' requests read: a fresh table on
// DynamoDB Local with, per partner-key route (the agent tool server's
// among them), its own partner holding one lead, so that each function's request finds the same data in every run;
// a fresh clip bucket on MinIO; for the survey functions their own
// partner (see surveys.go); for the webhook functions their own partner
// with an endpoint at a local receiver (see webhooks.go); and for the
// deposit beta's functions quotes and a paid deposit, with stripe-mock as
// the Stripe API (see deposits.go). A beta route's partner has its beta
// and the settings createDeposit requires.
type fixture struct {
	db       *dynamodb.Client
	store    *dynamo.Store
	table    string
	endpoint string
	secret   string // CURSOR_SECRET, hex
	partners map[manifest.Operation]string
	leads    map[manifest.Operation]string

	s3     *s3local.Server
	s3c    *s3.Client
	bucket string
	surveyFixture
	webhookFixture
	depositFixture
}

// newFixture creates the table on the DynamoDB at endpoint and the clip
// bucket on s3srv, and seeds them; stripeURL is stripe-mock's; root is the
// module root (for the clip the processor's cold starts validate).
func newFixture(ctx context.Context, endpoint string, s3srv *s3local.Server, stripeURL, root string) (*fixture, error) {
	db := dynamodb.New(dynamodb.Options{
		Region:       region,
		BaseEndpoint: aws.String(endpoint),
		// DynamoDB Local (-sharedDb) takes any credentials.
		Credentials: credentials.NewStaticCredentialsProvider("coldstart", "coldstart", ""),
	})
	secret := make([]byte, 32)
	_, _ = rand.Read(secret)
	f := &fixture{
		db: db, endpoint: endpoint, secret: hex.EncodeToString(secret),
		table:    fmt.Sprintf("coldstart-%d", time.Now().UnixNano()),
		partners: map[manifest.Operation]string{}, leads: map[manifest.Operation]string{},
		s3: s3srv, s3c: s3srv.Client(), bucket: fmt.Sprintf("coldstart-%d", time.Now().UnixNano()),
	}
	f.stripeURL = stripeURL
	if err := dynamo.CreateTables(ctx, db, f.table); err != nil {
		return nil, fmt.Errorf("fixture: %w", err)
	}
	f.store = dynamo.New(db, f.table)
	if err := s3local.CreateBucket(ctx, f.s3c, s3local.Bucket{Name: f.bucket}); err != nil {
		_ = f.Close(ctx)
		return nil, fmt.Errorf("fixture: %w", err)
	}
	now := time.Now().UTC()
	for _, r := range manifest.Routes() {
		if !r.Auth.PartnerKey() {
			continue
		}
		p := partner.Partner{
			ID: "ptn_coldstart_" + strings.ToLower(string(r.Operation)), Name: "Cold start " + string(r.Operation),
			RateCard: estimate.DefaultRateCard("usd"), CreatedAt: now,
		}
		beta := r.Beta
		if r.Operation == manifest.AgentTools {
			beta = partner.Deposits // the agent tool server lists every tool (agentToolsRequest)
		}
		if beta != "" {
			p.Beta, p.Deposits = []partner.Feature{beta}, depositSettings
		}
		if err := f.store.CreatePartner(ctx, p); err != nil {
			_ = f.Close(ctx)
			return nil, fmt.Errorf("fixture: partner for %s: %w", r.Slug, err)
		}
		l := lead.Build(uuid.NewString(), lead.CreateInput{
			CustomerName: "Grace Hopper", Email: "grace@example.com",
			FromAddress: "1 Main St, New York, NY 10001", ToAddress: "9 Oak Ave, Boston, MA 02108",
			HomeSize: "2 bedroom", Source: "coldstart",
		}, p.RateCard, now)
		if err := f.store.PutLead(ctx, auth.Tenant{PartnerID: p.ID, Mode: auth.Test}, l, false); err != nil {
			_ = f.Close(ctx)
			return nil, fmt.Errorf("fixture: lead for %s: %w", r.Slug, err)
		}
		f.partners[r.Operation], f.leads[r.Operation] = p.ID, l.ID
	}
	if err := f.seedSurveys(ctx, root, now); err != nil {
		_ = f.Close(ctx)
		return nil, fmt.Errorf("fixture: %w", err)
	}
	if err := f.seedWebhooks(ctx, now); err != nil {
		_ = f.Close(ctx)
		return nil, fmt.Errorf("fixture: %w", err)
	}
	if err := f.seedDeposits(ctx, now); err != nil {
		_ = f.Close(ctx)
		return nil, fmt.Errorf("fixture: %w", err)
	}
	return f, nil
}

// publicBaseURL is the API's public origin the survey functions are given
// (capture links are made from it; nothing requests it).
const publicBaseURL = "https://api.coldstart.example"

// Env returns a function's own variables and credentials, pointing it at
// the table and the clip bucket. As deployed, only a function that lists
// a secret gets it (the cursor secret; the webhook sealing key, with
// WEBHOOK_ALLOW_LOOPBACK=1 for the loopback receiver, see webhookEnv; the
// Stripe secrets and stripe-mock's URL, see stripeEnv).
// Every function gets the bucket, the public
// base URL and the S3 endpoint: which functions get them when deployed is
// a rule of the CDK stack (infra/stack, environment), not a manifest
// field, and a variable a function does not read costs it nothing. fn nil
// (the baseline) gets the variables every function gets.
//
// The credentials are MinIO's root credentials without a session token:
// MinIO checks signatures and refuses a session token with them, and
// DynamoDB Local takes any.
func (f *fixture) Env(fn *manifest.Function) []string {
	env := []string{
		settings.Table + "=" + f.table,
		settings.ClipBucket + "=" + f.bucket,
		settings.PublicBaseURL + "=" + publicBaseURL,
		"AWS_ENDPOINT_URL_DYNAMODB=" + f.endpoint,
		"AWS_ENDPOINT_URL_S3=" + f.s3.Endpoint,
		"AWS_ACCESS_KEY_ID=" + f.s3.AccessKey,
		"AWS_SECRET_ACCESS_KEY=" + f.s3.SecretKey,
		"AWS_EC2_METADATA_DISABLED=true",
	}
	if fn != nil && slices.Contains(fn.Secrets, manifest.SecretCursor) {
		env = append(env, settings.CursorSecret+"="+f.secret)
	}
	if fn != nil && slices.Contains(fn.Secrets, manifest.SecretCaptureLink) {
		env = append(env, settings.CaptureLinkKey+"="+f.secret)
	}
	if fn != nil && slices.Contains(fn.Secrets, manifest.SecretWebhookSealing) {
		env = append(env, f.webhookEnv()...)
	}
	if fn != nil {
		env = append(env, f.stripeEnv(*fn)...)
	}
	return env
}

// Close stops the webhook receiver and deletes the table, and the clip
// bucket with its objects.
func (f *fixture) Close(ctx context.Context) error {
	if f.receiver != nil {
		f.receiver.Close()
	}
	err := dynamo.DeleteTables(ctx, f.db, f.table)
	return errors.Join(err, f.deleteBucket(ctx))
}

// deleteBucket deletes every object of the clip bucket, then the bucket.
func (f *fixture) deleteBucket(ctx context.Context) error {
	p := s3.NewListObjectsV2Paginator(f.s3c, &s3.ListObjectsV2Input{Bucket: &f.bucket})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return fmt.Errorf("list clip bucket: %w", err)
		}
		for _, o := range page.Contents {
			if _, err := f.s3c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: &f.bucket, Key: o.Key}); err != nil {
				return fmt.Errorf("delete %s: %w", aws.ToString(o.Key), err)
			}
		}
	}
	if _, err := f.s3c.DeleteBucket(ctx, &s3.DeleteBucketInput{Bucket: &f.bucket}); err != nil {
		return fmt.Errorf("delete clip bucket: %w", err)
	}
	return nil
}

// Target returns the cold start of fn from bin: its environment, its
// event and what the event must be answered with. It fails for a function
// the harness has no event for (an operation not listed in request).
func (f *fixture) Target(fn manifest.Function, bin string) (target, error) {
	switch fn.Trigger() {
	case manifest.TriggerHTTP:
	case manifest.TriggerS3:
		return f.clipTarget(fn, bin), nil
	case manifest.TriggerStream:
		return f.streamTarget(fn, bin), nil
	case manifest.TriggerSchedule:
		return f.scheduleTarget(fn, bin), nil
	case manifest.TriggerQueue:
		return f.queueTarget(fn, bin), nil
	default:
		return target{}, fmt.Errorf("coldstart has no event for %s (trigger %q): add one to fixture.Target", fn.Slug, fn.Trigger())
	}
	rt := fn.HTTP[0]
	rt.Slug = fn.Slug
	req, err := f.request(rt)
	if err != nil {
		return target{}, err
	}
	return target{
		Name: fn.Slug, Bin: bin, Env: f.Env(&fn), Status: req.status, Check: req.check,
		Event: func(ctx context.Context) ([]byte, error) { return f.Event(ctx, req) },
	}, nil
}

// request is one cold start's request to a route.
type request struct {
	route              manifest.Route
	method, path, body string
	// key: the request carries a fresh test key of the route's partner,
	// in the header of the route's auth kind (Authorization: Bearer, or
	// manifest.AgentKeyHeader for the agent tool server).
	key bool
	// headers are further headers ("Name: value").
	headers []string
	// token: the path's parameter is a fresh capture token of the
	// fixture's survey.
	token bool
	// param, when set, makes the path's parameter for each request (a
	// survey id, a view token, a quoted lead, a quote page token).
	param func(context.Context) (string, error)
	// makeBody, when set, makes the body for each request (a deposit for
	// a lead of its own).
	makeBody func(context.Context) (string, error)
	// stripe: the request carries a Stripe-Signature over its body, made
	// when it is sent (the receiver takes five-minute-old ones at most).
	stripe bool
	status int // 0: 200
	// check, when set, replaces the status check (target.Check): the
	// agent tool server's 200 must also carry the tools.
	check func(body []byte) error
}

// request returns the request for rt: a valid one for a partner operation.
func (f *fixture) request(rt manifest.Route) (request, error) {
	switch rt.Operation {
	case manifest.CreateLead:
		return request{route: rt, method: http.MethodPost, path: rt.PilotPath, body: createBody, key: true}, nil
	case manifest.ListLeads:
		return request{route: rt, method: http.MethodGet, path: rt.PilotPath, key: true}, nil
	case manifest.GetLead:
		path := strings.Replace(rt.PilotPath, "{"+manifest.ParamName(rt.PilotPath)+"}", f.leads[rt.Operation], 1)
		return request{route: rt, method: http.MethodGet, path: path, key: true}, nil
	case manifest.GetSurveyLink:
		path := strings.Replace(rt.PilotPath, "{"+manifest.ParamName(rt.PilotPath)+"}", f.leads[rt.Operation], 1)
		return request{route: rt, method: http.MethodPost, path: path, key: true}, nil
	case manifest.CapturePage:
		return request{route: rt, method: http.MethodGet, path: rt.PilotPath, token: true}, nil
	case manifest.CreateSurveyVideoAccess:
		f.accessSurvey = videoSurvey{tenant: auth.Tenant{PartnerID: f.partners[rt.Operation], Mode: auth.Test}}
		return request{route: rt, method: http.MethodPost, path: rt.PilotPath, key: true,
			param: func(ctx context.Context) (string, error) { return f.next(ctx, &f.accessSurvey) }}, nil
	case manifest.VideoPage:
		return request{route: rt, method: http.MethodGet, path: rt.PilotPath, param: f.viewToken}, nil
	case manifest.CreateQuote:
		path := strings.Replace(rt.PilotPath, "{"+manifest.ParamName(rt.PilotPath)+"}", f.leads[rt.Operation], 1)
		return request{route: rt, method: http.MethodPost, path: path, body: quoteBody, key: true}, nil
	case manifest.AcceptQuote:
		return request{route: rt, method: http.MethodPost, path: rt.PilotPath, body: acceptBody, key: true,
			param: f.quotedLeadOf(rt.Operation)}, nil
	case manifest.CreateDeposit:
		return request{route: rt, method: http.MethodPost, path: rt.PilotPath, key: true, makeBody: f.depositBodyOf(rt.Operation)}, nil
	case manifest.GetDeposit:
		return request{route: rt, method: http.MethodGet, path: rt.PilotPath, key: true,
			param: func(context.Context) (string, error) { return f.paid, nil }}, nil
	case manifest.QuotePage:
		return request{route: rt, method: http.MethodGet, path: rt.PilotPath, param: f.quotePageToken}, nil
	case manifest.StripeWebhook:
		path := strings.Replace(rt.PilotPath, "{"+manifest.ParamName(rt.PilotPath)+"}", string(auth.Test), 1)
		return request{route: rt, method: http.MethodPost, path: path, body: ignoredStripeEvent, stripe: true}, nil
	case manifest.ListEvents:
		return request{route: rt, method: http.MethodGet, path: rt.PilotPath, key: true}, nil
	case manifest.GetEvent:
		// No event of the fixture's: the same key check and GetItem, then 404.
		path := strings.Replace(rt.PilotPath, "{"+manifest.ParamName(rt.PilotPath)+"}", "evt_coldstart_none", 1)
		return request{route: rt, method: http.MethodGet, path: path, key: true, status: http.StatusNotFound}, nil
	case manifest.DashboardAsset:
		// The dashboard function's first route: its stylesheet (the init
		// measured is the whole function's).
		path := strings.Replace(rt.PilotPath, "{"+manifest.ParamName(rt.PilotPath)+"}", "dashboard.css", 1)
		return request{route: rt, method: http.MethodGet, path: path}, nil
	case manifest.AgentTools:
		return agentToolsRequest(rt), nil
	case manifest.RouteNotFound:
		return request{route: rt, method: http.MethodGet, path: "/v1-no-such-route", status: http.StatusNotFound}, nil
	}
	return request{}, fmt.Errorf("coldstart has no request for %s (%s): add one to fixture.request", rt.Operation, rt.Slug)
}

// Event returns the JSON of an API Gateway (HTTP API, payload 2.0) event
// for req, authenticated, when req asks for a key, with a test key made
// for it (in X-Partner-Key for the agent tool server's route), or, when it asks for a token, with a capture token issued for
// it. A key or token per request keeps any number of cold starts under
// the rate limits.
func (f *fixture) Event(ctx context.Context, req request) ([]byte, error) {
	headers := slices.Clone(req.headers)
	if req.token {
		req.param = f.captureToken
	}
	if req.param != nil {
		v, err := req.param(ctx)
		if err != nil {
			return nil, err
		}
		req.path = strings.Replace(req.path, "{"+manifest.ParamName(req.path)+"}", v, 1)
	}
	if req.makeBody != nil {
		b, err := req.makeBody(ctx)
		if err != nil {
			return nil, err
		}
		req.body = b
	}
	if req.stripe {
		headers = append(headers, "Stripe-Signature: "+stripeSignature(req.body))
	}
	if req.key {
		key, keyID, err := auth.NewKey(auth.Test)
		if err != nil {
			return nil, err
		}
		err = f.store.CreateKey(ctx, auth.Key{
			KeyID: keyID, Digest: auth.Digest(key), PartnerID: f.partners[req.route.Operation], Mode: auth.Test,
			Scopes: auth.AllScopes, CreatedAt: time.Now(),
		})
		if err != nil {
			return nil, fmt.Errorf("create key: %w", err)
		}
		if req.route.Auth == manifest.AuthAgentKey {
			headers = append(headers, manifest.AgentKeyHeader+": "+key)
		} else {
			headers = append(headers, "Authorization: Bearer "+key)
		}
	}
	return event(req.route, req.method, req.path, req.body, headers...)
}

// helloEvent returns an event for GET /hello, the baseline's request.
func helloEvent(context.Context) ([]byte, error) {
	return event(manifest.Route{Method: http.MethodGet}, http.MethodGet, "/hello", "")
}

// event builds the payload-2.0 event API Gateway sends for the request,
// with the local gateway's own mapping. For the $default route any path
// goes.
func event(rt manifest.Route, method, path, body string, headers ...string) ([]byte, error) {
	template := rt.PilotPath
	if template == "" {
		template = path
	}
	var name, value string
	if !rt.IsDefault() {
		var ok bool
		if ok, name, value = manifest.Match(template, path); !ok {
			return nil, fmt.Errorf("path %s does not match %s", path, template)
		}
	}
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for _, h := range headers {
		k, v, _ := strings.Cut(h, ":")
		req.Header.Set(k, strings.TrimSpace(v))
	}
	return json.Marshal(localgw.Event(req, rt, template, name, value, []byte(body)))
}
