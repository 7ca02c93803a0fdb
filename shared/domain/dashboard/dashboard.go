package dashboard

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"fmt"
	"github.com/moveleads/partnerapi/shared/domain/audit"
	"strings"
	"time"

	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/domain/linktoken"
)

// Role is what a person may do in the dashboard.
type Role string

// The roles: an admin may also create, revoke, rotate, redeliver, remove
// people and read the audit log; a viewer only reads.
const (
	Admin  Role = "admin"
	Viewer Role = "viewer"
)

// Valid reports whether r is a known role.
func (r Role) Valid() bool { return r == Admin || r == Viewer }

// Lifetimes of the dashboard's secrets.
const (
	InvitationTTL   = 24 * time.Hour
	SessionIdle     = 30 * time.Minute
	SessionAbsolute = 12 * time.Hour
	// RecentSignIn is how long after proving presence (a passkey
	// assertion) a person may create or revoke keys, rotate secrets and
	// remove people without being asked again.
	RecentSignIn = 10 * time.Minute
	// AttemptLimit is how many sign-in and invitation calls one client
	// address, and one invitation, may make a minute.
	AttemptLimit = 30
	// CeremonyTTL bounds a WebAuthn ceremony from begin to finish.
	CeremonyTTL = 5 * time.Minute
)

// Person is someone of a partner who signs in to the dashboard.
type Person struct {
	ID        string
	PartnerID string
	Email     string
	Role      Role
	CreatedAt time.Time
}

// Invitation lets one person register a first passkey. Only the SHA-256
// of its token is stored; it is used once and lives InvitationTTL.
type Invitation struct {
	Hash      string
	PartnerID string
	Email     string
	Role      Role
	CreatedBy string // "operator" or a person id
	CreatedAt time.Time
	ExpiresAt time.Time
}

// Credential is one passkey of a person: the WebAuthn credential record
// (go-webauthn's Credential, marshalled by the adapter, is Record).
type Credential struct {
	ID         []byte // the credential id the authenticator chose
	PersonID   string
	PublicKey  []byte
	SignCount  uint32
	Transports []string
	Record     []byte // the full credential record, as the WebAuthn adapter keeps it
	CreatedAt  time.Time
	LastUsedAt time.Time
}

// Session is a signed-in person's session. The cookie holds the token; the
// table holds Hash only.
type Session struct {
	Hash      string
	PersonID  string
	PartnerID string
	Mode      auth.Mode // the data the person looks at; test by default
	CreatedAt time.Time
	LastSeen  time.Time
	// VerifiedAt is when the person last proved presence with a passkey.
	VerifiedAt time.Time
}

// ExpiresAt is when s ends if unused: the earlier of its idle and its
// absolute end.
func (s Session) ExpiresAt() time.Time {
	idle, abs := s.LastSeen.Add(SessionIdle), s.CreatedAt.Add(SessionAbsolute)
	if idle.Before(abs) {
		return idle
	}
	return abs
}

// Live reports whether s may still be used at now.
func (s Session) Live(now time.Time) bool { return now.Before(s.ExpiresAt()) }

// Recent reports whether s proved presence within RecentSignIn of now.
func (s Session) Recent(now time.Time) bool { return now.Sub(s.VerifiedAt) < RecentSignIn }

// Tenant is the partner and mode s looks at.
func (s Session) Tenant() auth.Tenant { return auth.Tenant{PartnerID: s.PartnerID, Mode: s.Mode} }

// OperatorActor is who invited a person through opctl (Invitation.InvitedBy).
// The audit trail itself is shared/domain/audit's.
const OperatorActor = "operator"

// InvitedEntry is the audit entry of invitation inv, made by actor.
func InvitedEntry(inv Invitation, actor audit.Actor) audit.Entry {
	return audit.Entry{PartnerID: inv.PartnerID, Actor: actor, Action: audit.PersonInvited,
		TargetKind: audit.TargetPerson, TargetID: inv.Email, Detail: inv.Email + " (" + string(inv.Role) + ")", At: inv.CreatedAt}
}

// CSRF returns the CSRF token of the session whose cookie token is token:
// bound to that session, and derived so nothing more is stored.
func CSRF(token string) string {
	sum := sha256.Sum256([]byte("dashboard-csrf\x00" + token))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// CheckCSRF reports whether sent is the CSRF token of the session token.
func CheckCSRF(token, sent string) bool {
	if token == "" || sent == "" {
		return false
	}
	return subtle.ConstantTimeCompare([]byte(CSRF(token)), []byte(sent)) == 1
}

// InvitationPath is the dashboard path of the invitation with token.
func InvitationPath(token string) string { return "/dashboard/invitations/" + token }

// NewInvitation mints an invitation of partnerID for email with role, made
// by createdBy at now: the token for the link (shown once) and the
// Invitation to store (its hash only). A bad role or email is an error.
func NewInvitation(partnerID, email string, role Role, createdBy string, now time.Time) (string, Invitation, error) {
	if !role.Valid() {
		return "", Invitation{}, fmt.Errorf("role %q: want admin or viewer", role)
	}
	if at := strings.IndexByte(email, '@'); at < 1 || at == len(email)-1 || len(email) > 254 || strings.ContainsAny(email, " \t\r\n<>\"") {
		return "", Invitation{}, fmt.Errorf("email %q is not an email address", email)
	}
	token, err := linktoken.New()
	if err != nil {
		return "", Invitation{}, err
	}
	hash, err := linktoken.Parse(token)
	if err != nil {
		return "", Invitation{}, err
	}
	return token, Invitation{Hash: hash, PartnerID: partnerID, Email: email, Role: role, CreatedBy: createdBy,
		CreatedAt: now, ExpiresAt: now.Add(InvitationTTL)}, nil
}
