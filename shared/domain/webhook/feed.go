package webhook

import (
	"strings"
	"time"
)

// Retention is how long an event is kept and listed (listEvents,
// getEvent): 30 days after it happened. The events table's TTL deletes
// it some time after that, so readers check it themselves (Listed).
const Retention = 30 * 24 * time.Hour

// Position is a place in the events listing's order (newest first): just
// after the event with these values. At is in lead.TimeLayout.
type Position struct {
	At string
	ID string
}

// ListQuery selects a page of a tenant's events, newest first: those that
// happened within Retention of Now and at or after Since (when set), of
// Type and about LeadID (each when set), strictly after After (when set),
// at most Limit of them.
type ListQuery struct {
	Type   Type
	LeadID string
	Since  *time.Time
	After  *Position
	Limit  int
	Now    time.Time
}

// Oldest is the earliest time an event q lists may have happened at: the
// later of Since and the retention's start.
func (q ListQuery) Oldest() time.Time {
	oldest := q.Now.Add(-Retention)
	if q.Since != nil && q.Since.After(oldest) {
		return *q.Since
	}
	return oldest
}

// Listed reports whether the partner's events API shows e at now: it
// happened within Retention, and it is not a webhook.test sent to one
// endpoint (a check of that endpoint, not something that happened to the
// partner's leads).
func (e Event) Listed(now time.Time) bool {
	return e.Endpoint == "" && !e.At.Before(now.Add(-Retention))
}

// maxIDLen bounds an event id ("evt_", a UUID, "_" and the longest type
// is 58 bytes).
const maxIDLen = 128

// ValidID reports whether id has the form of an event id: "evt_" and
// lowercase letters, digits, "_", "." or "-" (the id of what owes it: a
// UUID and a type, or "test_" and hex digits). Any other value names no
// event. A loop, not a regexp: this package is in every function that
// writes events, and a regexp compiled at init costs each cold start.
func ValidID(id string) bool {
	rest, ok := strings.CutPrefix(id, "evt_")
	if !ok || rest == "" || len(id) > maxIDLen {
		return false
	}
	for _, c := range []byte(rest) {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c == '.' || c == '-') {
			return false
		}
	}
	return true
}
