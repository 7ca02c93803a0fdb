// Package dashboard is the partner dashboard's sign-in model: the people of
// a partner (Person, Role), the one-time invitation that lets a person
// register a passkey (Invitation), the passkeys (Credential), the session a
// passkey sign-in opens (Session: only its token's hash is stored, with a
// 30-minute idle and a 12-hour absolute lifetime) and the audit trail
// (AuditEntry). CSRF binds a form to its session; ParseSessionCookie and
// ParseForm read what a browser sends. Plain Go: no HTTP, no storage.
// docs/DASHBOARD.md describes the whole flow.
package dashboard
