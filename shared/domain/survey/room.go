package survey

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Rooms are the rooms the capture page offers, in the order it walks the
// customer through a home. A room may also be named in free text (see
// ParseRoom), for the homes this list does not fit.
var Rooms = []string{
	"Living room", "Dining room", "Kitchen", "Bedroom", "Office", "Bathroom",
	"Hallway", "Laundry room", "Garage", "Basement", "Attic", "Patio", "Storage",
}

// MaxRoomLen is the longest room name accepted, in characters.
const MaxRoomLen = 60

// ErrRoom is wrapped by every error of ParseRoom.
var ErrRoom = errors.New("survey: invalid room name")

// ParseRoom checks a room name from the customer and returns it trimmed of
// white space. A name that matches one of Rooms ignoring case is returned
// spelled as in Rooms, so "KITCHEN" and "kitchen" are one room. Any other
// text of 1 to MaxRoomLen characters is a room too ("Kids' room 2").
//
// It fails, with an error wrapping ErrRoom whose text says why and can be
// shown to the customer, when the name is blank, longer than MaxRoomLen
// characters, not valid UTF-8 or holding U+FFFD (the mark of a lost
// character), or holds a control character (line breaks and tabs included)
// or a bidirectional override that could disguise it.
func ParseRoom(name string) (string, error) {
	if !utf8.ValidString(name) || strings.ContainsRune(name, utf8.RuneError) {
		return "", fmt.Errorf("%w: must be valid UTF-8 text", ErrRoom)
	}
	name = strings.TrimSpace(name)
	if name == "" {
		return "", fmt.Errorf("%w: must not be blank", ErrRoom)
	}
	if n := utf8.RuneCountInString(name); n > MaxRoomLen {
		return "", fmt.Errorf("%w: must be at most %d characters (got %d)", ErrRoom, MaxRoomLen, n)
	}
	for _, r := range name {
		switch {
		case unicode.Is(unicode.Cc, r) || r == '\u2028' || r == '\u2029':
			return "", fmt.Errorf("%w: contains the control character U+%04X", ErrRoom, r)
		case (r >= '\u202A' && r <= '\u202E') || (r >= '\u2066' && r <= '\u2069'):
			return "", fmt.Errorf("%w: contains the bidirectional formatting character U+%04X", ErrRoom, r)
		}
	}
	for _, known := range Rooms {
		if strings.EqualFold(name, known) {
			return known, nil
		}
	}
	return name, nil
}
