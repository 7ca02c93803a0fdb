package audit

import (
	"testing"
	"time"
)

func TestEntryCheck(t *testing.T) {
	at := time.Unix(1_800_000_000, 0)
	ok := Entry{PartnerID: "ptn_1", Actor: ByOperator(), Action: KeyCreated, TargetKind: TargetKey, TargetID: "key_1", At: at}
	tests := []struct {
		name  string
		edit  func(*Entry)
		valid bool
	}{
		{"operator", func(*Entry) {}, true},
		{"person", func(e *Entry) { e.Actor = ByPerson("per_1", "a@example.com") }, true},
		{"person without id", func(e *Entry) { e.Actor = ByPerson("", "a@example.com") }, false},
		{"operator with an email", func(e *Entry) { e.Actor.Email = "a@example.com" }, false},
		{"no actor", func(e *Entry) { e.Actor = Actor{} }, false},
		{"no partner", func(e *Entry) { e.PartnerID = "" }, false},
		{"no action", func(e *Entry) { e.Action = "" }, false},
		{"no target", func(e *Entry) { e.TargetID = "" }, false},
		{"no time", func(e *Entry) { e.At = time.Time{} }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := ok
			tt.edit(&e)
			if err := e.Check(); (err == nil) != tt.valid {
				t.Errorf("Check() = %v; want valid %v", err, tt.valid)
			}
		})
	}
}
