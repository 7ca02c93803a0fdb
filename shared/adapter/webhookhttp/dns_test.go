package webhookhttp

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"strings"
	"sync"
	"testing"

	"golang.org/x/net/dns/dnsmessage"
)

// dnsServer is a minimal DNS server on loopback UDP that answers A and
// AAAA questions from a table the test controls, so tests can make names
// resolve to refused addresses (or change their answer between
// deliveries) without any network. Unknown names are NXDOMAIN.
type dnsServer struct {
	conn net.PacketConn

	mu      sync.Mutex
	records map[string][]netip.Addr // by lower-case name without the final dot
	queries int
}

// startDNS starts a dnsServer serving records and returns it with a
// Resolver that asks only it. The server stops when the test ends.
func startDNS(t *testing.T, records map[string][]string) (*dnsServer, *net.Resolver) {
	t.Helper()
	conn, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listen udp: %v", err)
	}
	s := &dnsServer{conn: conn, records: map[string][]netip.Addr{}}
	for name, addrs := range records {
		s.set(name, addrs...)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		s.serve(t)
	}()
	t.Cleanup(func() {
		conn.Close()
		<-done
	})
	resolver := &net.Resolver{
		PreferGo: true,
		Dial: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "udp", conn.LocalAddr().String())
		},
	}
	return s, resolver
}

// set replaces the answers for name.
func (s *dnsServer) set(name string, addrs ...string) {
	parsed := make([]netip.Addr, len(addrs))
	for i, a := range addrs {
		parsed[i] = netip.MustParseAddr(a)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.records[strings.ToLower(name)] = parsed
}

// queryCount returns how many questions the server has answered.
func (s *dnsServer) queryCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.queries
}

func (s *dnsServer) serve(t *testing.T) {
	buf := make([]byte, 1500)
	for {
		n, from, err := s.conn.ReadFrom(buf)
		if err != nil {
			if !errors.Is(err, net.ErrClosed) {
				t.Errorf("dns server: read: %v", err)
			}
			return
		}
		answer, err := s.answer(buf[:n])
		if err != nil {
			t.Errorf("dns server: %v", err)
			continue
		}
		if _, err := s.conn.WriteTo(answer, from); err != nil && !errors.Is(err, net.ErrClosed) {
			t.Errorf("dns server: write: %v", err)
		}
	}
}

// answer builds the response to one query message.
func (s *dnsServer) answer(query []byte) ([]byte, error) {
	var p dnsmessage.Parser
	h, err := p.Start(query)
	if err != nil {
		return nil, err
	}
	q, err := p.Question()
	if err != nil {
		return nil, err
	}
	name := strings.ToLower(strings.TrimSuffix(q.Name.String(), "."))
	s.mu.Lock()
	addrs, known := s.records[name]
	s.queries++
	s.mu.Unlock()

	rh := dnsmessage.Header{ID: h.ID, Response: true, Authoritative: true, RecursionAvailable: true}
	if !known {
		rh.RCode = dnsmessage.RCodeNameError
	}
	b := dnsmessage.NewBuilder(nil, rh)
	if err := b.StartQuestions(); err != nil {
		return nil, err
	}
	if err := b.Question(q); err != nil {
		return nil, err
	}
	if err := b.StartAnswers(); err != nil {
		return nil, err
	}
	for _, a := range addrs {
		res := dnsmessage.ResourceHeader{Name: q.Name, Class: dnsmessage.ClassINET, TTL: 0}
		switch {
		case q.Type == dnsmessage.TypeA && a.Is4():
			err = b.AResource(res, dnsmessage.AResource{A: a.As4()})
		case q.Type == dnsmessage.TypeAAAA && a.Is6():
			err = b.AAAAResource(res, dnsmessage.AAAAResource{AAAA: a.As16()})
		}
		if err != nil {
			return nil, err
		}
	}
	return b.Finish()
}
