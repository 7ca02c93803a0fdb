package agenttools_test

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/domain/partner"
	"github.com/moveleads/partnerapi/shared/edge/agenttools"
	"github.com/moveleads/partnerapi/shared/local/repo"
	"github.com/moveleads/partnerapi/shared/spec/manifest"
	"github.com/moveleads/partnerapi/shared/spec/settings"
	"github.com/moveleads/partnerapi/shared/testkit/apitest"
)

// TestMain runs the tests against DynamoDB Local, MinIO (the clip
// bucket) and stripe-mock (Stripe's API), as the local stack does.
func TestMain(m *testing.M) { apitest.MainS3Stripe(m) }

// world is a stack (the local gateway over every function, the agent tool
// transport among them) with one partner enabled for the deposits beta.
type world struct {
	env     *apitest.Env
	partner string
	key     string
}

func newWorld(t *testing.T) *world {
	t.Helper()
	env := apitest.New(t, apitest.Options{S3: true})
	w := &world{env: env}
	w.partner = env.NewPartner(t, "Acme Movers")
	w.key, _ = env.NewKey(t, w.partner, auth.Test)
	ctx := context.Background()
	if _, err := env.Store.SetBeta(ctx, w.partner, []partner.Feature{partner.Deposits}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := env.Store.SetDepositSettings(ctx, w.partner, partner.DepositSettings{
		CarrierLegalName: "Acme Moving LLC", USDOTNumber: "1234567", StripeAccount: "acct_1PartnerTest",
	}); err != nil {
		t.Fatal(err)
	}
	return w
}

// headerTransport adds the agent key header to every request.
type headerTransport struct {
	key  string
	base http.RoundTripper
}

func (h headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set(manifest.AgentKeyHeader, h.key)
	return h.base.RoundTrip(r)
}

// connectHTTP connects the SDK's client to the stack's HTTP transport at
// path with key.
func (w *world) connectHTTP(t *testing.T, path, key string) *mcp.ClientSession {
	t.Helper()
	tr := &mcp.StreamableClientTransport{
		Endpoint:   w.env.Server.URL + path,
		HTTPClient: &http.Client{Transport: headerTransport{key: key, base: http.DefaultTransport}, Timeout: time.Minute},
	}
	return connect(t, tr)
}

func connect(t *testing.T, tr mcp.Transport) *mcp.ClientSession {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "agenttools-test", Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	s, err := c.Connect(ctx, tr, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

var (
	buildOnce sync.Once
	stdioBin  string
	buildErr  error
)

// stdioBinary builds scripts/mcp once per test binary.
func stdioBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		root, err := repo.Root()
		if err != nil {
			buildErr = err
			return
		}
		dir, err := os.MkdirTemp("", "agenttools-mcp-")
		if err != nil {
			buildErr = err
			return
		}
		stdioBin = filepath.Join(dir, "mcp")
		cmd := exec.Command("go", "build", "-o", stdioBin, "./scripts/mcp")
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build ./scripts/mcp: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return stdioBin
}

// stdioCommand is the stdio server for key over w's table, bucket and
// Stripe, run outside the repository (so a running make dev's dev.json
// cannot be chosen instead).
func (w *world) stdioCommand(t *testing.T, key string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(stdioBinary(t))
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(),
		"PARTNER_API_KEY="+key,
		settings.Table+"="+w.env.Store.Table(),
		settings.CursorSecret+"="+hex.EncodeToString(w.env.Secret),
		settings.CaptureLinkKey+"="+hex.EncodeToString(w.env.Secret),
		settings.StripeAPIKeys+"="+apitest.StripeSecrets[manifest.SecretStripeKeys],
	)
	cmd.Stderr = &testLog{t: t}
	return cmd
}

// connectStdio starts the stdio server for key and connects the SDK's
// client to it over CommandTransport.
func (w *world) connectStdio(t *testing.T, key string) *mcp.ClientSession {
	t.Helper()
	return connect(t, &mcp.CommandTransport{Command: w.stdioCommand(t, key)})
}

// testLog writes the server's stderr to the test log.
type testLog struct {
	t  *testing.T
	mu sync.Mutex
}

func (l *testLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, line := range strings.Split(strings.TrimRight(string(p), "\n"), "\n") {
		l.t.Log("server: " + line)
	}
	return len(p), nil
}

// toolResult is a tool call's outcome: its structured content, or its
// error body.
type toolResult struct {
	out     map[string]any
	isError bool
	errBody map[string]any
	text    string
}

func callTool(t *testing.T, s *mcp.ClientSession, name string, args map[string]any) toolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("call %s: %v", name, err)
	}
	var r toolResult
	r.isError = res.IsError
	if len(res.Content) == 1 {
		if tc, ok := res.Content[0].(*mcp.TextContent); ok {
			r.text = tc.Text
		}
	}
	if res.IsError {
		if err := json.Unmarshal([]byte(r.text), &r.errBody); err != nil {
			t.Fatalf("call %s: error text %q is not the API's error body: %v", name, r.text, err)
		}
		return r
	}
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &r.out); err != nil {
		t.Fatalf("call %s: structured content %s: %v", name, b, err)
	}
	if r.text != string(b) && !jsonEqual(t, r.text, string(b)) {
		t.Errorf("call %s: text %q differs from the structured content %s", name, r.text, b)
	}
	return r
}

// ok calls a tool that must succeed.
func ok(t *testing.T, s *mcp.ClientSession, name string, args map[string]any) map[string]any {
	t.Helper()
	r := callTool(t, s, name, args)
	if r.isError {
		t.Fatalf("call %s(%v): error %s", name, args, r.text)
	}
	return r.out
}

// fails calls a tool that must fail with code.
func fails(t *testing.T, s *mcp.ClientSession, name string, args map[string]any, code string) map[string]any {
	t.Helper()
	r := callTool(t, s, name, args)
	if !r.isError {
		t.Fatalf("call %s(%v) = %v; want error %s", name, args, r.out, code)
	}
	e, _ := r.errBody["error"].(map[string]any)
	if e == nil || e["code"] != code || e["message"] == "" {
		t.Fatalf("call %s(%v): error %s; want the API's error body with code %s", name, args, r.text, code)
	}
	return e
}

func jsonEqual(t *testing.T, a, b string) bool {
	t.Helper()
	var x, y any
	return json.Unmarshal([]byte(a), &x) == nil && json.Unmarshal([]byte(b), &y) == nil && reflect.DeepEqual(x, y)
}

// apiJSON is the HTTP API's 200 answer to method path, decoded.
func (w *world) apiJSON(t *testing.T, key, method, path, body string, headers ...string) map[string]any {
	t.Helper()
	return apitest.Want(t, w.env.Do(t, method, path, key, body, headers...), 200, "")
}

// same fails unless a and b are equal but for the fields named in except.
func same(t *testing.T, what string, tool, api map[string]any, except ...string) {
	t.Helper()
	a, b := maps(tool), maps(api)
	for _, k := range except {
		if (a[k] == nil) != (b[k] == nil) {
			t.Errorf("%s: %s is %v through the tool, %v through the API", what, k, a[k], b[k])
		}
		delete(a, k)
		delete(b, k)
	}
	if !reflect.DeepEqual(a, b) {
		ta, _ := json.Marshal(a)
		tb, _ := json.Marshal(b)
		t.Errorf("%s: the tool answered\n%s\nthe API\n%s", what, ta, tb)
	}
}

func maps(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

func toolNames(t *testing.T, s *mcp.ClientSession) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := s.ListTools(ctx, nil)
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	var names []string
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
	}
	slices.Sort(names) // the SDK lists tools by name
	return names
}

func allToolNames() []string {
	var names []string
	for _, tl := range agenttools.Tools {
		names = append(names, tl.Name)
	}
	slices.Sort(names)
	return names
}

// runFlow runs the partner's whole flow through the tools of s and checks
// each result against what the HTTP API answers for the same call.
func (w *world) runFlow(t *testing.T, s *mcp.ClientSession) {
	if got := toolNames(t, s); !slices.Equal(got, allToolNames()) {
		t.Fatalf("tools/list = %v; want every tool %v", got, allToolNames())
	}
	k := w.key
	// Create a lead; the same Idempotency-Key through the API answers the
	// stored answer: the tool's, byte for byte.
	idem := "idem-" + t.Name()
	lead := ok(t, s, "create_lead", map[string]any{
		"customer_name": "Ada Lovelace", "email": "ada@example.com", "phone": "+1 555 0100",
		"from_address": "1 Main St, Springfield, IL 62701", "to_address": "9 Elm St, Chicago, IL 60601",
		"home_size": "2 bedroom", "move_date": "2027-03-01", "special_items": []any{"piano"}, "source": "phone call",
		"idempotency_key": idem,
	})
	leadID, _ := lead["lead_id"].(string)
	if leadID == "" || lead["status"] != "new" || lead["estimate"] == nil {
		t.Fatalf("create_lead = %v; want a new lead with an estimate", lead)
	}
	body := `{"customer_name":"Ada Lovelace","email":"ada@example.com","phone":"+1 555 0100","from_address":"1 Main St, Springfield, IL 62701","to_address":"9 Elm St, Chicago, IL 60601","home_size":"2 bedroom","move_date":"2027-03-01","special_items":["piano"],"source":"phone call"}`
	same(t, "create_lead", lead, w.apiJSON(t, k, "POST", "/v1/leads", body, "Idempotency-Key: "+idem))
	// The same key with other arguments is refused as the API refuses it.
	fails(t, s, "create_lead", map[string]any{"customer_name": "Someone Else", "idempotency_key": idem}, "idempotency_key_reused")

	// The survey link: a fresh capture link each call, the same survey.
	link := ok(t, s, "get_survey_link", map[string]any{"lead_id": leadID})
	apiLink := w.apiJSON(t, k, "POST", "/v1/leads/"+leadID+"/video-survey", "")
	same(t, "get_survey_link", link, apiLink, "capture_url")
	surveyID, _ := link["survey_id"].(string)
	if !strings.Contains(link["capture_url"].(string), "/v1-capture/") || link["capture_url"] == apiLink["capture_url"] {
		t.Errorf("capture links %v and %v; want two fresh capture links", link["capture_url"], apiLink["capture_url"])
	}

	// The lead, read both ways.
	same(t, "get_lead", ok(t, s, "get_lead", map[string]any{"lead_id": leadID}), w.apiJSON(t, k, "GET", "/v1/leads/"+leadID, ""))

	// Listing with a cursor: two more leads, pages of two.
	for _, n := range []string{"Bob", "Cy"} {
		ok(t, s, "create_lead", map[string]any{"customer_name": n})
	}
	page1 := ok(t, s, "list_leads", map[string]any{"limit": 2})
	same(t, "list_leads page 1", page1, w.apiJSON(t, k, "GET", "/v1/leads?limit=2", ""), "next_cursor")
	cursor, _ := page1["next_cursor"].(string)
	if cursor == "" || page1["has_more"] != true {
		t.Fatalf("list_leads page 1 = %v; want a next_cursor", page1)
	}
	page2 := ok(t, s, "list_leads", map[string]any{"limit": 2, "cursor": cursor})
	same(t, "list_leads page 2", page2, w.apiJSON(t, k, "GET", "/v1/leads?limit=2&cursor="+cursor, ""))
	if d := page2["data"].([]any); len(d) != 1 || page2["has_more"] != false {
		t.Errorf("list_leads page 2 = %v; want the third lead, last", page2)
	}

	// Video links: a survey without a clip has none to share; with one,
	// a link is minted, and revoking closes it.
	fails(t, s, "create_video_access", map[string]any{"survey_id": surveyID}, "no_playable_clips")
	filmed := w.env.PlayableSurvey(t, k, apitest.WebMClip).SurveyID
	access := ok(t, s, "create_video_access", map[string]any{"survey_id": filmed, "ttl_hours": 24, "label": "for the carrier"})
	if access["survey_id"] != filmed || !strings.Contains(access["view_url"].(string), "/v1-video/") || access["clip_count"] != float64(1) {
		t.Errorf("create_video_access = %v", access)
	}
	apiAccess := w.apiJSON(t, k, "POST", "/v1/surveys/"+filmed+"/video-access", `{"ttl_hours":24,"label":"for the carrier"}`)
	same(t, "create_video_access", access, apiAccess, "view_url", "grant_id", "expires_at")
	revoked := ok(t, s, "revoke_video_access", map[string]any{"survey_id": filmed})
	if revoked["grants_revoked"] != float64(2) || revoked["revoked"] != true {
		t.Errorf("revoke_video_access = %v; want both links closed", revoked)
	}
	same(t, "revoke_video_access again", ok(t, s, "revoke_video_access", map[string]any{"survey_id": filmed}),
		w.apiJSON(t, k, "DELETE", "/v1/surveys/"+filmed+"/video-access", ""))

	// Beta: quote, accept, deposit.
	qIdem := "quote-" + t.Name()
	quote := ok(t, s, "create_quote", map[string]any{"lead_id": leadID, "estimate_type": "non_binding", "price_cents": 245000, "deposit_cents": 25000, "expires_in_days": 14, "idempotency_key": qIdem})
	same(t, "create_quote", quote, w.apiJSON(t, k, "POST", "/v1/leads/"+leadID+"/quote",
		`{"estimate_type":"non_binding","price_cents":245000,"deposit_cents":25000,"expires_in_days":14}`, "Idempotency-Key: "+qIdem), "quote_url")
	if quote["lead_status"] != "quoted" || !strings.Contains(quote["quote_url"].(string), "/v1-quote/") {
		t.Errorf("create_quote = %v", quote)
	}
	aIdem := "accept-" + t.Name()
	accepted := ok(t, s, "accept_quote", map[string]any{"lead_id": leadID, "accepter_email": "ada@example.com", "idempotency_key": aIdem})
	same(t, "accept_quote", accepted, w.apiJSON(t, k, "POST", "/v1/leads/"+leadID+"/accept", `{"accepter_email":"ada@example.com"}`, "Idempotency-Key: "+aIdem))
	if accepted["status"] != "accepted" || accepted["deposit_required"] != true {
		t.Errorf("accept_quote = %v", accepted)
	}
	dIdem := "deposit-" + t.Name()
	dep := ok(t, s, "create_deposit", map[string]any{"lead_id": leadID, "quote_share_link_id": quote["quote_share_link_id"], "idempotency_key": dIdem})
	same(t, "create_deposit", dep, w.apiJSON(t, k, "POST", "/v1/deposits",
		fmt.Sprintf(`{"lead_id":%q,"quote_share_link_id":%q}`, leadID, quote["quote_share_link_id"]), "Idempotency-Key: "+dIdem))
	if dep["status"] != "checkout_open" || dep["amount_cents"] != float64(25000) || dep["checkout_url"] == "" {
		t.Errorf("create_deposit = %v", dep)
	}
	depID := dep["deposit_id"].(string)
	same(t, "get_deposit", ok(t, s, "get_deposit", map[string]any{"deposit_id": depID}), w.apiJSON(t, k, "GET", "/v1/deposits/"+depID, ""))
	l := ok(t, s, "get_lead", map[string]any{"lead_id": leadID})
	if l["status"] != "deposit_pending" {
		t.Errorf("get_lead after the deposit = %v; want deposit_pending", l)
	}
	// get_lead names the deposit and the quote's share link, so an agent
	// can read the deposit however it was started.
	if d, _ := l["deposit"].(map[string]any); d["deposit_id"] != depID {
		t.Errorf("get_lead deposit = %v; want deposit_id %s", l["deposit"], depID)
	}
	if q, _ := l["quote"].(map[string]any); q["quote_share_link_id"] != quote["quote_share_link_id"] {
		t.Errorf("get_lead quote = %v; want quote_share_link_id %v", l["quote"], quote["quote_share_link_id"])
	}
}

// TestFlowOverHTTP runs the flow through the SDK's own client over the
// streamable HTTP transport, at both paths.
func TestFlowOverHTTP(t *testing.T) {
	w := newWorld(t)
	w.runFlow(t, w.connectHTTP(t, "/v1-mcp", w.key))
	if got := toolNames(t, w.connectHTTP(t, "/v1/mcp", w.key)); !slices.Equal(got, allToolNames()) {
		t.Errorf("tools/list at /v1/mcp = %v", got)
	}
}

// TestFlowOverStdio runs the flow through the SDK's own client over
// CommandTransport, the stdio server running as its own process.
func TestFlowOverStdio(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and starts the stdio server")
	}
	w := newWorld(t)
	w.runFlow(t, w.connectStdio(t, w.key))
}
