package coldstart

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/google/uuid"

	"github.com/moveleads/partnerapi/shared/auth"
	"github.com/moveleads/partnerapi/shared/dynamo"
	"github.com/moveleads/partnerapi/shared/estimate"
	"github.com/moveleads/partnerapi/shared/lead"
	"github.com/moveleads/partnerapi/shared/localgw"
	"github.com/moveleads/partnerapi/shared/manifest"
	"github.com/moveleads/partnerapi/shared/settings"
)

// createBody is a complete createLead body: it gets an instant estimate,
// so the first response includes the estimate's work.
const createBody = `{"customer_name":"Ada Lovelace","email":"ada@example.com","phone":"+15551234567",` +
	`"from_address":"1 Main St, New York, NY 10001","to_address":"9 Oak Ave, Boston, MA 02108",` +
	`"home_size":"2 bedroom","move_date":"2027-01-15","special_items":["piano"],"source":"web-form"}`

// fixture is the data the cold starts' requests read: a fresh table on
// DynamoDB Local with, per function, its own partner holding one lead, so
// that each function's request finds the same data in every run.
type fixture struct {
	db       *dynamodb.Client
	store    *dynamo.Store
	table    string
	endpoint string
	secret   string // CURSOR_SECRET, hex
	partners map[manifest.Operation]string
	leads    map[manifest.Operation]string
}

// newFixture creates the table on the DynamoDB at endpoint and seeds it.
func newFixture(ctx context.Context, endpoint string) (*fixture, error) {
	db := dynamodb.New(dynamodb.Options{
		Region:       region,
		BaseEndpoint: aws.String(endpoint),
		Credentials: aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
			return aws.Credentials{AccessKeyID: accessKeyID, SecretAccessKey: secretKey, SessionToken: sessionToken}, nil
		}),
	})
	secret := make([]byte, 32)
	_, _ = rand.Read(secret)
	f := &fixture{
		db: db, endpoint: endpoint, secret: hex.EncodeToString(secret),
		table:    fmt.Sprintf("coldstart-%d", time.Now().UnixNano()),
		partners: map[manifest.Operation]string{}, leads: map[manifest.Operation]string{},
	}
	if err := dynamo.CreateTable(ctx, db, f.table); err != nil {
		return nil, fmt.Errorf("fixture: %w", err)
	}
	f.store = dynamo.New(db, f.table)
	now := time.Now().UTC()
	for _, r := range manifest.PartnerRoutes() {
		p := auth.Partner{
			ID: "ptn_coldstart_" + strings.ReplaceAll(r.Slug, "-", "_"), Name: "Cold start " + r.Slug,
			RateCard: estimate.DefaultRateCard("usd"), CreatedAt: now,
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
	return f, nil
}

// Env returns a function's own variables, pointing it at the table. As
// deployed, only a function that lists the cursor secret gets it; fn nil
// (the baseline) gets the variables every function gets.
func (f *fixture) Env(fn *manifest.Function) []string {
	env := []string{
		settings.Table + "=" + f.table,
		"AWS_ENDPOINT_URL_DYNAMODB=" + f.endpoint,
		"AWS_EC2_METADATA_DISABLED=true",
	}
	if fn != nil && slices.Contains(fn.Secrets, manifest.SecretCursor) {
		env = append(env, settings.CursorSecret+"="+f.secret)
	}
	return env
}

// Close deletes the table.
func (f *fixture) Close(ctx context.Context) error {
	_, err := f.db.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: &f.table})
	return err
}

// Target returns the cold start of fn from bin: its environment, its
// request and the status that request must answer with. It fails for a
// function the harness has no request for (a trigger other than HTTP, or
// an operation not listed in request).
func (f *fixture) Target(fn manifest.Function, bin string) (target, error) {
	if fn.Trigger() != manifest.TriggerHTTP {
		return target{}, fmt.Errorf("coldstart has no event for %s (trigger %q): add one to fixture.Target", fn.Slug, fn.Trigger())
	}
	rt := fn.HTTP[0]
	rt.Slug = fn.Slug
	req, err := f.request(rt)
	if err != nil {
		return target{}, err
	}
	return target{
		Name: fn.Slug, Bin: bin, Env: f.Env(&fn), Status: req.status,
		Event: func(ctx context.Context) ([]byte, error) { return f.Event(ctx, req) },
	}, nil
}

// request is one cold start's request to a route.
type request struct {
	route              manifest.Route
	method, path, body string
	// key: the request carries a fresh test key of the route's partner.
	key    bool
	status int // 0: 200
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
	case manifest.RouteNotFound:
		return request{route: rt, method: http.MethodGet, path: "/v1-no-such-route", status: http.StatusNotFound}, nil
	}
	return request{}, fmt.Errorf("coldstart has no request for %s (%s): add one to fixture.request", rt.Operation, rt.Slug)
}

// Event returns the JSON of an API Gateway (HTTP API, payload 2.0) event
// for req, authenticated, when req asks for a key, with a test key made
// for it. A key per request keeps any number of cold starts under the
// per-key rate limit.
func (f *fixture) Event(ctx context.Context, req request) ([]byte, error) {
	var headers []string
	if req.key {
		key, keyID, err := auth.NewKey(auth.Test)
		if err != nil {
			return nil, err
		}
		err = f.store.CreateKey(ctx, auth.Key{
			KeyID: keyID, Digest: auth.Digest(key), PartnerID: f.partners[req.route.Operation], Mode: auth.Test,
			Scopes: manifest.AllScopes, CreatedAt: time.Now(),
		})
		if err != nil {
			return nil, fmt.Errorf("create key: %w", err)
		}
		headers = append(headers, "Authorization: Bearer "+key)
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
