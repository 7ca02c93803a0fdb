package main

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/moveleads/partnerapi/scripts/devstack/devfile"
	"github.com/moveleads/partnerapi/scripts/webhook-listen/listener"
	"github.com/moveleads/partnerapi/shared/testkit/openapitest"
)

// hookLog is what a listener registered on the running stack received.
type hookLog struct {
	mu  sync.Mutex
	got []listener.Received
	// stop closes the receiver and disables its endpoint (while the
	// stack still runs).
	stop func()
}

// listen registers a receiver as scripts/webhook-listen does (a test-mode
// endpoint of dev's demo partner on loopback) and records what arrives.
func listen(t *testing.T, dev devfile.File) *hookLog {
	t.Helper()
	store, sealer, err := listener.Open(dev)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ep, secret, err := listener.Register(context.Background(), store, sealer, dev.PartnerID, "http://"+ln.Addr().String()+"/webhooks", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	log := &hookLog{}
	h, err := listener.Handler(secret, io.Discard, func(r listener.Received) {
		log.mu.Lock()
		log.got = append(log.got, r)
		log.mu.Unlock()
	})
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: h}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	log.stop = func() {
		srv.Close()
		if err := listener.Unregister(context.Background(), store, ep, time.Now()); err != nil {
			t.Errorf("unregister: %v", err)
		}
		if cur, err := store.GetEndpoint(context.Background(), ep.ID); err != nil || !cur.Disabled {
			t.Errorf("after unregister the endpoint is %+v (%v); want disabled", cur, err)
		}
	}
	return log
}

// wait checks that, within 30 s, one verified delivery of each of types
// about leadID arrived, each as the OpenAPI document's webhooks describe.
func (l *hookLog) wait(t *testing.T, leadID string, types ...string) {
	t.Helper()
	defer func() {
		v := openapitest.New(t)
		l.mu.Lock()
		defer l.mu.Unlock()
		for _, r := range l.got {
			v.CheckWebhook(t, r.Header, r.Payload)
		}
	}()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		l.mu.Lock()
		var seen []string
		var bad []listener.Received
		for _, r := range l.got {
			var p struct {
				Data struct {
					LeadID string `json:"lead_id"`
				} `json:"data"`
			}
			_ = json.Unmarshal(r.Payload, &p)
			if !r.Verified {
				bad = append(bad, r)
			}
			if r.Verified && p.Data.LeadID == leadID {
				seen = append(seen, r.Type)
			}
		}
		l.mu.Unlock()
		for _, r := range bad {
			t.Fatalf("delivery %s (%s) does not verify: %s", r.WebhookID, r.Type, r.Error)
		}
		missing := slices.DeleteFunc(slices.Clone(types), func(ty string) bool { return slices.Contains(seen, ty) })
		if len(missing) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("after the survey finished, the listener got %v about lead %s; missing %v", seen, leadID, missing)
		}
	}
}
