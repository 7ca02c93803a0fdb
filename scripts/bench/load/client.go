package load

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strconv"
	"time"

	"github.com/google/uuid"
)

// op is the kind of one request of the mix.
type op uint8

const (
	opCreate op = iota // createLead, first time (with or without Idempotency-Key)
	opReplay           // createLead repeated with the same Idempotency-Key and body
	opGet              // getLead
	opList             // listLeads, limit=10
	numOps
)

var opNames = [numOps]string{"createLead", "createLead replay", "getLead", "listLeads"}

// The request mix, in percent: half createLead (half of those with an
// Idempotency-Key), a quarter getLead, a quarter listLeads. replayPercent
// of the createLead turns repeat an earlier idempotent create instead.
const (
	createPercent = 50
	getPercent    = 25
	idemPercent   = 50
	replayPercent = 6
	// requestTimeout exceeds the 10 s a duplicate may wait for its original.
	requestTimeout = 15 * time.Second
)

// sample is one request as the client saw it.
type sample struct {
	op      op
	status  int // 0: no response (transport error)
	latency time.Duration
	key     int   // flat index into the run's keySet
	reset   int64 // X-RateLimit-Reset (the window's end); 0 when absent
	// retryAfter reports a Retry-After header; replayed Idempotent-Replayed: true.
	retryAfter, replayed bool
	// expect404 marks a getLead of an id nobody created.
	expect404 bool
	// leadID is createLead's lead_id; wantLead a replay's original lead_id.
	leadID, wantLead string
}

// created is a lead this client created, under partner.
type created struct {
	partner int
	id      string
}

// idemCreate is a createLead this client sent with an Idempotency-Key.
type idemCreate struct {
	key     int
	idemKey string
	body    []byte
	leadID  string
}

// client is one simulated integration: it loops over the request mix on
// its keys until its deadline, sweeping the keys round-robin from its own
// offset so that the clients together spread evenly over all of them.
type client struct {
	http    *http.Client
	base    string
	keys    keySet
	id      int
	offset  int
	rng     *rand.Rand
	step    int
	seq     int
	created []created
	idem    []idemCreate
	samples []sample
}

func newClient(hc *http.Client, base string, keys keySet, id, clients int) *client {
	return &client{
		http: hc, base: base, keys: keys, id: id,
		offset: id * len(keys.keys) / clients,
		rng:    rand.New(rand.NewPCG(uint64(id), 0x10ad)),
	}
}

// run sends requests until deadline or until ctx ends.
func (c *client) run(ctx context.Context, deadline time.Time) {
	for ctx.Err() == nil && time.Now().Before(deadline) {
		c.step++
		switch r := c.rng.IntN(100); {
		case r < createPercent:
			if len(c.idem) > 0 && c.rng.IntN(100) < replayPercent {
				c.replay(ctx)
			} else {
				c.create(ctx)
			}
		case r < createPercent+getPercent:
			c.get(ctx)
		default:
			c.list(ctx)
		}
	}
}

// nextKey returns the flat index of the key for this step.
func (c *client) nextKey() int { return (c.offset + c.step) % len(c.keys.keys) }

// partnerKey returns the flat index of one of partner p's keys.
func (c *client) partnerKey(p int) int {
	return p*c.keys.perPartner + (c.offset+c.step)%c.keys.perPartner
}

func (c *client) create(ctx context.Context) {
	k := c.nextKey()
	c.seq++
	body := leadBody(c.rng, c.id, c.seq)
	var idemKey string
	if c.rng.IntN(100) < idemPercent {
		idemKey = "load-" + uuid.NewString()
	}
	s, b := c.send(ctx, opCreate, http.MethodPost, "/v1/leads", k, body, idemKey)
	if s.status == http.StatusOK {
		s.leadID = leadID(b)
		c.created = append(c.created, created{partner: c.keys.partnerOf(k), id: s.leadID})
		if idemKey != "" {
			c.idem = append(c.idem, idemCreate{key: k, idemKey: idemKey, body: body, leadID: s.leadID})
		}
	}
	c.samples = append(c.samples, s)
}

// replay repeats an earlier successful idempotent create on its key.
func (c *client) replay(ctx context.Context) {
	orig := c.idem[c.rng.IntN(len(c.idem))]
	s, b := c.send(ctx, opReplay, http.MethodPost, "/v1/leads", orig.key, orig.body, orig.idemKey)
	if s.status == http.StatusOK {
		s.leadID = leadID(b)
	}
	s.wantLead = orig.leadID
	c.samples = append(c.samples, s)
}

// get reads one of this client's leads, or an id nobody created while it
// has none (a 404 then is the right answer).
func (c *client) get(ctx context.Context) {
	if len(c.created) == 0 {
		s, _ := c.send(ctx, opGet, http.MethodGet, "/v1/leads/"+uuid.NewString(), c.nextKey(), nil, "")
		s.expect404 = true
		c.samples = append(c.samples, s)
		return
	}
	l := c.created[c.rng.IntN(len(c.created))]
	s, _ := c.send(ctx, opGet, http.MethodGet, "/v1/leads/"+l.id, c.partnerKey(l.partner), nil, "")
	c.samples = append(c.samples, s)
}

func (c *client) list(ctx context.Context) {
	s, _ := c.send(ctx, opList, http.MethodGet, "/v1/leads?limit=10", c.nextKey(), nil, "")
	c.samples = append(c.samples, s)
}

// send makes one request with key k and returns its sample and, for
// createLead, the body. The latency includes reading the whole body.
func (c *client) send(ctx context.Context, o op, method, path string, k int, body []byte, idemKey string) (sample, []byte) {
	s := sample{op: o, key: k}
	var rdr io.Reader
	if body != nil {
		rdr = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, rdr)
	if err != nil {
		return s, nil
	}
	req.Header.Set("Authorization", "Bearer "+c.keys.keys[k])
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if idemKey != "" {
		req.Header.Set("Idempotency-Key", idemKey)
	}
	start := time.Now()
	resp, err := c.http.Do(req)
	if err != nil {
		s.latency = time.Since(start)
		return s, nil
	}
	var b []byte
	if o == opCreate || o == opReplay {
		b, err = io.ReadAll(resp.Body)
	} else {
		_, err = io.Copy(io.Discard, resp.Body)
	}
	resp.Body.Close()
	s.latency = time.Since(start)
	if err != nil {
		return s, nil
	}
	s.status = resp.StatusCode
	s.reset, _ = strconv.ParseInt(resp.Header.Get("X-RateLimit-Reset"), 10, 64)
	s.retryAfter = resp.Header.Get("Retry-After") != ""
	s.replayed = resp.Header.Get("Idempotent-Replayed") == "true"
	return s, b
}

// leadID returns createLead's lead_id, or "" when the body has none.
func leadID(body []byte) string {
	var v struct {
		LeadID string `json:"lead_id"`
	}
	_ = json.Unmarshal(body, &v)
	return v.LeadID
}

// moves are address pairs with known ZIP codes, so that most leads get an
// instant estimate as real web forms' leads do.
var moves = [][2]string{
	{"1 Main St, New York, NY 10001", "9 Oak Ave, Boston, MA 02108"},
	{"500 Pine St, Seattle, WA 98101", "20 Elm St, Portland, OR 97201"},
	{"77 Lake Dr, Chicago, IL 60601", "3 Hill Rd, Chicago, IL 60614"},
	{"12 Bay Rd, San Francisco, CA 94105", "8 Palm Ln, Los Angeles, CA 90012"},
}

var homeSizes = []string{"studio", "1 bedroom", "2 bedroom", "3br", "4 bed house", "1,800 sq ft"}

// leadBody returns a createLead body unique to (client, seq).
func leadBody(rng *rand.Rand, client, seq int) []byte {
	m := moves[rng.IntN(len(moves))]
	b, _ := json.Marshal(map[string]any{
		"customer_name": fmt.Sprintf("Load Customer %d-%d", client, seq),
		"email":         fmt.Sprintf("load.%d.%d@example.com", client, seq),
		"phone":         fmt.Sprintf("+1555%07d", (client*100003+seq)%10_000_000),
		"from_address":  m[0],
		"to_address":    m[1],
		"home_size":     homeSizes[rng.IntN(len(homeSizes))],
		"move_date":     "2027-01-15",
		"source":        "load-test",
	})
	return b
}
