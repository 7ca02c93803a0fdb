// Package audit is the trail of who changed what in a partner's account:
// keys, webhook endpoints, their secrets and deliveries, and (the
// dashboard's sign-in) people. An Entry names its Actor (an operator
// through opctl, or a dashboard person), an Action, the target's kind and
// id, a short detail and the time. Entries are written with or right
// after the change they record (shared/adapter/dynamo PutAudit and the
// store methods that take entries) and listed per partner, newest first.
// Never put a secret, key, token or signature in an entry.
package audit

import (
	"errors"
	"time"
)

// ActorKind says who acted.
type ActorKind string

// The kinds of actor.
const (
	Operator ActorKind = "operator" // an operator, through opctl
	Person   ActorKind = "person"   // a person signed in to the dashboard
)

// Actor is who made a change: an operator, or a dashboard person by id
// and email.
type Actor struct {
	Kind     ActorKind
	PersonID string
	Email    string
}

// ByOperator is the actor of opctl's changes.
func ByOperator() Actor { return Actor{Kind: Operator} }

// ByPerson is the actor of a dashboard person's changes.
func ByPerson(id, email string) Actor { return Actor{Kind: Person, PersonID: id, Email: email} }

// IsZero reports whether a is unset (records from before actors were
// kept).
func (a Actor) IsZero() bool { return a == Actor{} }

// Check fails on an actor that is neither an operator nor a person with
// an id.
func (a Actor) Check() error {
	switch {
	case a.Kind == Operator && a.PersonID == "" && a.Email == "":
		return nil
	case a.Kind == Person && a.PersonID != "":
		return nil
	}
	return errors.New("audit: an actor is an operator, or a person with an id")
}

// Action is what was done, "<target>.<verb>".
type Action string

// The actions of keys and webhook endpoints. Other features add theirs.
const (
	KeyCreated            Action = "api_key.created"
	KeyRevoked            Action = "api_key.revoked"
	EndpointAdded         Action = "webhook_endpoint.added"
	EndpointDisabled      Action = "webhook_endpoint.disabled"
	EndpointEnabled       Action = "webhook_endpoint.enabled"
	EndpointSecretRotated Action = "webhook_endpoint.secret_rotated"
	EndpointTestSent      Action = "webhook_endpoint.test_sent"
	DeliveryRedelivered   Action = "webhook_delivery.redelivered"
	// The dashboard's people (shared/domain/dashboard).
	PersonInvited Action = "person.invited"
	PersonJoined  Action = "person.joined"
	PersonRemoved Action = "person.removed"
	PasskeyAdded  Action = "passkey.added"
	// AuditRead: an operator read the trail (opctl audit).
	AuditRead Action = "audit.read"
)

// TargetKind is the kind of thing an action changed.
type TargetKind string

// The kinds of target of keys and webhooks.
const (
	TargetKey      TargetKind = "api_key"
	TargetEndpoint TargetKind = "webhook_endpoint"
	TargetDelivery TargetKind = "webhook_delivery"
	TargetPerson   TargetKind = "person"
	TargetPartner  TargetKind = "partner"
)

// Entry is one change in partner PartnerID's account.
type Entry struct {
	PartnerID  string
	Actor      Actor
	Action     Action
	TargetKind TargetKind
	TargetID   string
	// Detail is a short, secret-free note (a key's mode and scopes, an
	// endpoint's URL).
	Detail string
	At     time.Time
}

// Check fails on an entry without a partner, a valid actor, an action, a
// target or a time.
func (e Entry) Check() error {
	if err := e.Actor.Check(); err != nil {
		return err
	}
	if e.PartnerID == "" || e.Action == "" || e.TargetKind == "" || e.TargetID == "" || e.At.IsZero() {
		return errors.New("audit: an entry needs a partner, an action, a target kind and id, and a time")
	}
	return nil
}
