package survey

import (
	"errors"
	"fmt"
)

// Status is a survey's state (survey.status in getLead).
type Status string

// The survey states of the spec. None is what getLead reports for a lead
// that has no survey, and Unknown is reserved for a state this version does
// not know; no survey is ever stored in either.
const (
	None           Status = "none"
	Invited        Status = "invited"
	Recording      Status = "recording"
	Processing     Status = "processing"
	InventoryReady Status = "inventory_ready"
	Failed         Status = "failed"
	Unknown        Status = "unknown"
)

// Statuses lists every state of the spec's enum, in lifecycle order.
var Statuses = []Status{None, Invited, Recording, Processing, InventoryReady, Failed, Unknown}

// AwaitingRecording is the status getSurveyLink reports (Survey link
// response). It is not a survey.status value: the survey itself is Invited.
const AwaitingRecording = "awaiting_recording"

// rank orders the states a stored survey can be in. InventoryReady and
// Failed share the last rank: both are final, and neither follows the other.
// 0 means "not a state a survey can be in".
func (s Status) rank() int {
	switch s {
	case Invited:
		return 1
	case Recording:
		return 2
	case Processing:
		return 3
	case InventoryReady, Failed:
		return 4
	}
	return 0
}

// Final reports whether s is a closed survey's state: InventoryReady or
// Failed. Nothing moves a survey out of a final state; a new survey is
// started instead.
func (s Status) Final() bool { return s == InventoryReady || s == Failed }

// Open reports whether the customer can still record into a survey in
// state s: upload clips, change the checklist, finish. That is Invited and
// Recording; from Processing on, the capture page shows what happens next.
func (s Status) Open() bool { return s == Invited || s == Recording }

// Event is something that happened to a survey. Each event names the state
// it moves the survey to; see Next.
type Event string

// The events of the survey lifecycle.
const (
	// UploadStarted: the capture page requested an upload for a clip. The
	// first one moves an invited survey to Recording.
	UploadStarted Event = "upload_started"
	// FinishRequested: the customer pressed "Finish survey".
	FinishRequested Event = "finish_requested"
	// InventoryBuilt: after the finish, every clip was processed, at least
	// one is playable, and the inventory was built.
	InventoryBuilt Event = "inventory_built"
	// NoPlayableClip: after the finish, every clip was processed and none is
	// playable (or none was uploaded).
	NoPlayableClip Event = "no_playable_clip"
)

// target is the state ev moves a survey to, or "" for an unknown event.
func (ev Event) target() Status {
	switch ev {
	case UploadStarted:
		return Recording
	case FinishRequested:
		return Processing
	case InventoryBuilt:
		return InventoryReady
	case NoPlayableClip:
		return Failed
	}
	return ""
}

// Errors of Next. They mean a programming or data error (a stored status
// this version does not know, an event nobody defined), never a duplicate
// or late event: those are not errors.
var (
	ErrUnknownStatus = errors.New("survey: unknown survey status")
	ErrUnknownEvent  = errors.New("survey: unknown survey event")
)

// Next returns the state a survey in state current is in after ev, and
// whether that differs from current.
//
// Events only move a survey forward: each event names a target state
// (UploadStarted → Recording, FinishRequested → Processing, InventoryBuilt
// → InventoryReady, NoPlayableClip → Failed), and the survey moves there
// only when the target is further along than current. So a duplicate event
// changes nothing, an event that arrives late (an upload start after the
// finish) changes nothing, and an event that arrives early is not lost (a
// replayed InventoryBuilt seen before FinishRequested closes the survey; the
// pipeline emits it only after the finish, so seeing it means the finish
// happened). A final state (InventoryReady, Failed) absorbs every event:
// nothing reopens a closed survey, and the first final event wins.
//
// Next fails with ErrUnknownStatus when current is not a state a stored
// survey can be in (None, Unknown, or anything else) and with
// ErrUnknownEvent for an event it does not define; it then returns current
// unchanged.
func Next(current Status, ev Event) (Status, bool, error) {
	if current.rank() == 0 {
		return current, false, fmt.Errorf("%w %q (event %q)", ErrUnknownStatus, current, ev)
	}
	to := ev.target()
	if to == "" {
		return current, false, fmt.Errorf("%w %q (status %q)", ErrUnknownEvent, ev, current)
	}
	if current.Final() || to.rank() <= current.rank() {
		return current, false, nil
	}
	return to, true, nil
}
