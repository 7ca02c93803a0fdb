// Package dashboardapp is the partner dashboard's sign-in foundation:
// the invitation page and its passkey registration, passkey sign-in,
// re-authentication, sign-out, the test/live switch, the shell every
// dashboard page shares, and the People and Audit log pages. Every route
// is a manifest.AuthDashboardSession or PerClient route: the request
// pipeline enforces the session, CSRF token, Origin, role and recent
// sign-in before a handler here runs (docs/DASHBOARD.md).
package dashboardapp
