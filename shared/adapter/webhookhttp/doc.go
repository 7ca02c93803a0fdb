// Package webhookhttp sends outgoing webhooks: [Sign] makes a delivery's
// Standard Webhooks headers, and [Client.Post] delivers it to the endpoint
// URL a partner registered.
//
// Signing uses the Standard Webhooks Go library
// (github.com/standard-webhooks/standard-webhooks/libraries), never
// hand-written HMAC code. It lives here, not in shared/domain/webhook,
// because the library imports net/http, which the domain and feature
// packages do not; the webhooks service gets Sign through its Deps.
//
// Endpoint URLs are untrusted: without a guard, a partner could point one
// at the function's own network (the cloud metadata service, a private
// address, a local port) and read the answers back through the delivery
// log. The client is the guard.
//
//   - [CheckURL] validates an endpoint URL when it is registered: an
//     absolute http or https URL with a host, no userinfo and no
//     fragment, and https when the endpoint is live. It does not resolve
//     the host, because an answer checked at registration says nothing
//     about the answer at delivery time.
//   - [Client.Post] delivers one event. It checks the URL again, then
//     resolves the host itself on every connection and refuses the
//     delivery if any address it resolves to is in one of the refused
//     ranges (loopback, private, link-local, unique-local, cloud metadata
//     and the other special ranges listed on [RefusedError]); it then
//     dials only the address it checked, so a DNS answer that changes
//     between the check and the connect (DNS rebinding) cannot slip
//     through. The dialer's Control hook checks the address of the
//     socket once more just before connect(2), as defence in depth.
//
// Redirects are never followed: a 3xx answer is returned as the answer,
// and it counts as a failure upstream because it is not 2xx. A delivery
// has one deadline (10 s unless [Options.Timeout] says otherwise) for
// resolving, connecting, the TLS handshake, the answer's headers and the
// first KiB of its body. The client uses no proxy from the environment,
// keeps no cookies, sends a fixed User-Agent, and keeps its connections to
// itself.
//
// Test-mode endpoints may use http; live-mode endpoints must use https.
// A local stack delivers test-mode events to servers on the developer's
// machine, so [Options.AllowLoopback] lets test-mode deliveries reach
// 127.0.0.0/8 and ::1. The deployed stack never sets it, it relaxes
// nothing else, and live-mode deliveries refuse loopback regardless.
//
// # Errors
//
// A URL that [CheckURL] rejects fails with an error wrapping
// [ErrInvalidURL], before any resolution or connection. A refused address
// fails with a [*RefusedError], which matches [ErrRefusedAddress] under
// errors.Is and names the address and the range it is in. A delivery that
// runs out of time fails with an error wrapping
// context.DeadlineExceeded. An answer with any status, 3xx, 4xx and 5xx
// included, is not an error: the caller decides what counts as delivered.
// Error texts name the endpoint's host but never its path or query, which
// may hold a partner's token; they are for logs, never for a client.
package webhookhttp
