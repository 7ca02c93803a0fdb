package auth

import (
	"fmt"
	"strings"
)

// Scope is a permission carried by an API key. Routes name the scope they
// need (manifest.Route.Scope).
type Scope string

// The scopes a key can carry. A key created without explicit scopes gets All.
const (
	LeadsRead     Scope = "leads:read"
	LeadsWrite    Scope = "leads:write"
	SurveysRead   Scope = "surveys:read"
	SurveysWrite  Scope = "surveys:write"
	DepositsRead  Scope = "deposits:read"
	DepositsWrite Scope = "deposits:write"
	// EventsRead reads the partner's events (listEvents, getEvent). Keys
	// made before it existed do not carry it: 403 insufficient_scope
	// until the operator makes a key with it.
	EventsRead Scope = "events:read"
)

// AllScopes lists every scope, in a stable order. It is the default for new keys.
var AllScopes = []Scope{LeadsRead, LeadsWrite, SurveysRead, SurveysWrite, DepositsRead, DepositsWrite, EventsRead}

// ParseScope returns the scope named s, or an error naming the known scopes.
func ParseScope(s string) (Scope, error) {
	for _, sc := range AllScopes {
		if string(sc) == s {
			return sc, nil
		}
	}
	names := make([]string, len(AllScopes))
	for i, sc := range AllScopes {
		names[i] = string(sc)
	}
	return "", fmt.Errorf("unknown scope %q (known: %s)", s, strings.Join(names, ", "))
}
