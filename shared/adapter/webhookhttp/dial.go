package webhookhttp

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"syscall"
)

// dialer connects a delivery only to addresses it has checked. A dialer
// holds one policy (allowLoopback) for its whole life: the live and the
// test-mode deliveries of a Client each have their own dialer and their
// own connection pool, so a connection a test-mode delivery opened to
// loopback can never be reused by a live one.
type dialer struct {
	resolver      *net.Resolver
	allowLoopback bool
	// connect dials one IP literal ("ip:port"). It is the DialContext of a
	// net.Dialer whose Control is d.control; tests replace it to record
	// every address a delivery would connect to.
	connect func(ctx context.Context, network, address string) (net.Conn, error)
}

func newDialer(resolver *net.Resolver, allowLoopback bool) *dialer {
	d := &dialer{resolver: resolver, allowLoopback: allowLoopback}
	nd := &net.Dialer{Control: d.control}
	d.connect = nd.DialContext
	return d
}

// dialContext is the transport's DialContext. It resolves the host of
// address itself, refuses the connection if any of its addresses is
// refused, and then dials the checked addresses one after another, by IP
// literal, until one answers: the address that is connected to is always
// one that was checked, whatever the DNS answers next.
func (d *dialer) dialContext(ctx context.Context, network, address string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(address)
	if err != nil {
		return nil, fmt.Errorf("dial %s: %w", address, err)
	}
	addrs, err := d.resolve(ctx, host)
	if err != nil {
		return nil, err
	}
	var errs []error
	for _, a := range addrs {
		conn, err := d.connect(ctx, network, net.JoinHostPort(a.String(), port))
		if err == nil {
			return conn, nil
		}
		errs = append(errs, err)
		if ctx.Err() != nil {
			break
		}
	}
	return nil, errors.Join(errs...)
}

// resolve returns the addresses host stands for: itself when it is an IP
// literal, else every address the resolver answers. It fails with a
// *RefusedError when any of them is refused, not only the first, because
// a client that fell back from an allowed address to a refused one would
// connect to it; and with the resolver's error (a *net.DNSError naming
// the host) when the name does not resolve.
func (d *dialer) resolve(ctx context.Context, host string) ([]netip.Addr, error) {
	var addrs []netip.Addr
	if a, err := netip.ParseAddr(host); err == nil {
		addrs = []netip.Addr{a}
	} else {
		addrs, err = d.resolver.LookupNetIP(ctx, "ip", host)
		if err != nil {
			return nil, err
		}
		if len(addrs) == 0 {
			return nil, &net.DNSError{Err: "no addresses", Name: host, IsNotFound: true}
		}
	}
	for _, a := range addrs {
		if why := refusal(a, d.allowLoopback); why != "" {
			return nil, &RefusedError{Addr: a, Reason: why}
		}
	}
	return addrs, nil
}

// control is the net.Dialer's Control hook: it runs after the socket is
// created and before connect(2), with the address actually connected to.
// dialContext has already checked that address; control checks it again
// so that a change to dialContext that dialed a name, or an unchecked
// address, still cannot reach a refused range.
func (d *dialer) control(_, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return &RefusedError{Reason: fmt.Sprintf("not an IP address and port: %q", address)}
	}
	if why := refusal(ap.Addr(), d.allowLoopback); why != "" {
		return &RefusedError{Addr: ap.Addr(), Reason: why}
	}
	return nil
}
