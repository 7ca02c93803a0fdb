// Package passkey is the WebAuthn adapter of the partner dashboard
// (github.com/go-webauthn/webauthn): it begins and finishes the
// registration of a passkey and the sign-in with a discoverable one, and
// keeps each credential record in dashboard.Credential.Record. A ceremony's
// state is opaque bytes the caller stores between begin and finish. A
// response that does not verify is passkey_failed.
package passkey

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"time"

	"github.com/go-webauthn/webauthn/protocol"
	"github.com/go-webauthn/webauthn/webauthn"

	"github.com/moveleads/partnerapi/shared/domain/dashboard"
	"github.com/moveleads/partnerapi/shared/domain/errcode"
)

// Passkeys runs WebAuthn ceremonies for one relying party.
type Passkeys struct{ w *webauthn.WebAuthn }

// New returns the Passkeys of the dashboard at the public base URL
// baseURL (as dashboard.SiteURL names it): its host is the relying party
// id, its origin the only origin accepted.
func New(baseURL string) (*Passkeys, error) {
	u, err := url.Parse(dashboard.SiteURL(baseURL))
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("passkey: public base URL %q has no host", baseURL)
	}
	w, err := webauthn.New(&webauthn.Config{
		RPID: u.Hostname(), RPDisplayName: "MoveLeads partner dashboard",
		RPOrigins: []string{u.Scheme + "://" + u.Host},
	})
	if err != nil {
		return nil, fmt.Errorf("passkey: %w", err)
	}
	return &Passkeys{w: w}, nil
}

// user is a person as go-webauthn sees one.
type user struct {
	p     dashboard.Person
	creds []webauthn.Credential
}

func (u user) WebAuthnID() []byte                         { return []byte(u.p.ID) }
func (u user) WebAuthnName() string                       { return u.p.Email }
func (u user) WebAuthnDisplayName() string                { return u.p.Email }
func (u user) WebAuthnCredentials() []webauthn.Credential { return u.creds }

func newUser(p dashboard.Person, creds []dashboard.Credential) (user, error) {
	u := user{p: p}
	for _, c := range creds {
		var wc webauthn.Credential
		if err := json.Unmarshal(c.Record, &wc); err != nil {
			return user{}, fmt.Errorf("passkey: stored credential record: %w", err)
		}
		u.creds = append(u.creds, wc)
	}
	return u, nil
}

// BeginRegistration starts registering a passkey for p, who has creds
// already (excluded): the options for navigator.credentials.create and
// the ceremony's state.
func (k *Passkeys) BeginRegistration(p dashboard.Person, creds []dashboard.Credential) (options, state []byte, err error) {
	u, err := newUser(p, creds)
	if err != nil {
		return nil, nil, err
	}
	var exclude []protocol.CredentialDescriptor
	for _, c := range u.creds {
		exclude = append(exclude, c.Descriptor())
	}
	opts, ses, err := k.w.BeginRegistration(u,
		webauthn.WithResidentKeyRequirement(protocol.ResidentKeyRequirementRequired),
		webauthn.WithExclusions(exclude))
	if err != nil {
		return nil, nil, fmt.Errorf("passkey: begin registration: %w", err)
	}
	return marshalBoth(opts, ses)
}

// FinishRegistration verifies the browser's response to a registration
// begun with state, and returns the new passkey of p.
func (k *Passkeys) FinishRegistration(p dashboard.Person, creds []dashboard.Credential, state, response []byte, now time.Time) (dashboard.Credential, error) {
	u, err := newUser(p, creds)
	if err != nil {
		return dashboard.Credential{}, err
	}
	var ses webauthn.SessionData
	if err := json.Unmarshal(state, &ses); err != nil {
		return dashboard.Credential{}, fmt.Errorf("passkey: ceremony state: %w", err)
	}
	parsed, err := protocol.ParseCredentialCreationResponseBody(bytes.NewReader(response))
	if err != nil {
		return dashboard.Credential{}, failed(err)
	}
	c, err := k.w.CreateCredential(u, ses, parsed)
	if err != nil {
		return dashboard.Credential{}, failed(err)
	}
	return credential(p.ID, c, now, now)
}

// BeginSignIn starts a sign-in with a discoverable passkey.
func (k *Passkeys) BeginSignIn() (options, state []byte, err error) {
	opts, ses, err := k.w.BeginDiscoverableLogin(webauthn.WithUserVerification(protocol.VerificationRequired))
	if err != nil {
		return nil, nil, fmt.Errorf("passkey: begin sign-in: %w", err)
	}
	return marshalBoth(opts, ses)
}

// FinishSignIn verifies the browser's assertion for a sign-in begun with
// state and returns the person and the passkey, its sign count updated.
// lookup finds the person the passkey's user handle names, with their
// passkeys.
func (k *Passkeys) FinishSignIn(state, response []byte, lookup func(personID string) (dashboard.Person, []dashboard.Credential, error), now time.Time) (dashboard.Person, dashboard.Credential, error) {
	var ses webauthn.SessionData
	if err := json.Unmarshal(state, &ses); err != nil {
		return dashboard.Person{}, dashboard.Credential{}, fmt.Errorf("passkey: ceremony state: %w", err)
	}
	parsed, err := protocol.ParseCredentialRequestResponseBody(bytes.NewReader(response))
	if err != nil {
		return dashboard.Person{}, dashboard.Credential{}, failed(err)
	}
	var found user
	var created map[string]time.Time
	handler := func(_, userHandle []byte) (webauthn.User, error) {
		p, creds, err := lookup(string(userHandle))
		if err != nil {
			return nil, err
		}
		found, err = newUser(p, creds)
		created = map[string]time.Time{}
		for _, c := range creds {
			created[string(c.ID)] = c.CreatedAt
		}
		return found, err
	}
	_, c, err := k.w.ValidatePasskeyLogin(handler, ses, parsed)
	if err != nil {
		return dashboard.Person{}, dashboard.Credential{}, failed(err)
	}
	cred, err := credential(found.p.ID, c, created[string(c.ID)], now)
	return found.p, cred, err
}

func credential(personID string, c *webauthn.Credential, created, used time.Time) (dashboard.Credential, error) {
	rec, err := json.Marshal(c)
	if err != nil {
		return dashboard.Credential{}, fmt.Errorf("passkey: marshal credential: %w", err)
	}
	var transports []string
	for _, t := range c.Transport {
		transports = append(transports, string(t))
	}
	return dashboard.Credential{ID: c.ID, PersonID: personID, PublicKey: c.PublicKey, SignCount: c.Authenticator.SignCount,
		Transports: transports, Record: rec, CreatedAt: created, LastUsedAt: used}, nil
}

func marshalBoth(opts any, ses *webauthn.SessionData) ([]byte, []byte, error) {
	o, err := json.Marshal(opts)
	if err != nil {
		return nil, nil, fmt.Errorf("passkey: marshal options: %w", err)
	}
	s, err := json.Marshal(ses)
	if err != nil {
		return nil, nil, fmt.Errorf("passkey: marshal ceremony: %w", err)
	}
	return o, s, nil
}

// failed is the client's answer to a response that does not verify; the
// library's reason stays in the log.
func failed(cause error) error {
	e := errcode.New(errcode.PasskeyFailed, "The passkey could not be verified; try again.")
	e.Cause = cause
	return e
}
