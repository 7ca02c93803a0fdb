// Package webhookhttp sends outgoing webhooks: [Sign] makes a delivery's
// Standard Webhooks headers (with the Standard Webhooks library), and
// [Client.Post] delivers it to the endpoint URL a partner registered,
// guarding against requests into the function's own network.
//
// [CheckURL] validates an endpoint URL at registration: an absolute http or
// https URL with a host, no userinfo and no fragment, https when live; it
// does not resolve the host. [Client.Post] checks the URL again, resolves
// the host on every connection, refuses loopback, private, link-local,
// metadata and other special addresses ([RefusedError]), and dials only the
// address it checked. Redirects are never followed. One deadline (10 s
// unless [Options.Timeout]) covers resolving, connecting, TLS, the answer's
// headers and the first KiB of its body. [Options.AllowLoopback] lets
// test-mode deliveries reach loopback, for make dev only.
//
// Errors: a URL CheckURL rejects wraps [ErrInvalidURL], before any
// connection; a refused address is a [*RefusedError] matching
// [ErrRefusedAddress]; a delivery out of time wraps
// context.DeadlineExceeded. An answer of any status is not an error: the
// caller decides what counts as delivered. Error texts name the host, never
// the path or query; they are for logs, never for a client.
//
// Design (the SSRF guard, DNS rebinding, why signing lives here):
// docs/WEBHOOKS.md.
package webhookhttp
