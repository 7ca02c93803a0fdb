package survey

import (
	"errors"
	"strings"
	"testing"
)

func TestParseRoom(t *testing.T) {
	tests := []struct {
		name, in, want string
		ok             bool
	}{
		{"listed", "Kitchen", "Kitchen", true},
		{"listed in another case", "  LIVING ROOM ", "Living room", true},
		{"free text", "Kids' room 2", "Kids' room 2", true},
		{"non-Latin", "Спальня", "Спальня", true},
		{"60 characters", strings.Repeat("é", 60), strings.Repeat("é", 60), true},
		{"61 characters", strings.Repeat("é", 61), "", false},
		{"blank", " \t ", "", false},
		{"empty", "", "", false},
		{"line break", "Bed\nroom", "", false},
		{"tab inside", "Bed\troom", "", false},
		{"NUL", "Bed\x00", "", false},
		{"bidi override", "Bed\u202eroom", "", false},
		{"invalid UTF-8", "Bed\xff", "", false},
		{"replacement character", "Bed\ufffd", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseRoom(tt.in)
			if got != tt.want || (err == nil) != tt.ok {
				t.Errorf("ParseRoom(%q) = %q, %v; want %q, ok = %v", tt.in, got, err, tt.want, tt.ok)
			}
			if err != nil && !errors.Is(err, ErrRoom) {
				t.Errorf("ParseRoom(%q) error %v; want it to wrap ErrRoom", tt.in, err)
			}
		})
	}
}

func TestRoomsAreValidAndDistinct(t *testing.T) {
	seen := map[string]bool{}
	for _, r := range Rooms {
		got, err := ParseRoom(r)
		if err != nil || got != r {
			t.Errorf("ParseRoom(%q) = %q, %v; want it unchanged", r, got, err)
		}
		if seen[strings.ToLower(r)] {
			t.Errorf("room %q listed twice", r)
		}
		seen[strings.ToLower(r)] = true
	}
}
