package inventory

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/moveleads/partnerapi/shared/domain/errcode"
	"github.com/moveleads/partnerapi/shared/domain/survey"
)

// Limits of a checklist.
const (
	MaxCount          = 99       // of one item in one room
	MaxChecklistRooms = 30       // rooms in one checklist
	MaxChecklistBytes = 64 << 10 // of the JSON the capture page sends
)

// Checklist is what the customer ticked and counted on the capture page,
// room by room: the page's JSON, and what a survey keeps.
//
//	{"rooms": [{"name": "Living room", "items": [{"key": "sofa_3_seat", "count": 1}]}]}
type Checklist struct {
	Rooms []ChecklistRoom `json:"rooms" dynamodbav:"rooms"`
}

// ChecklistRoom is one room of a checklist.
type ChecklistRoom struct {
	Name  string          `json:"name" dynamodbav:"name"`
	Items []ChecklistItem `json:"items" dynamodbav:"items"`
}

// ChecklistItem is a cube sheet key and how many of it the room holds.
type ChecklistItem struct {
	Key   string `json:"key" dynamodbav:"key"`
	Count int    `json:"count" dynamodbav:"count"`
}

// ParseChecklist reads the checklist JSON of the capture page, strictly:
//
//   - the body is one JSON object of UTF-8 text, at most MaxChecklistBytes,
//     with the property rooms and nothing else;
//   - rooms is an array of at most MaxChecklistRooms objects, each with
//     exactly name and items;
//   - name is a room (see survey.ParseRoom: one of survey.Rooms, or free
//     text of at most 60 characters), each room at most once;
//   - items is an array of objects with exactly key and count, where key is
//     a cube sheet key (see Lookup), at most once per room, and count is a
//     whole number from 0 to MaxCount.
//
// Null is never accepted in place of a value. Room names come back trimmed
// and canonical (see survey.ParseRoom); everything else as sent.
//
// On failure it returns an *errcode.Error: payload_too_large for a body over
// MaxChecklistBytes; invalid_json when the body is not one JSON object of
// UTF-8 text (the message says what is wrong and details.offset where); and
// validation_failed otherwise, whose details.fields maps each failing
// field, named by its path (e.g. "rooms[1].items[0].key"), to the reason.
func ParseChecklist(body []byte) (Checklist, error) {
	if len(body) > MaxChecklistBytes {
		return Checklist{}, errcode.New(errcode.PayloadTooLarge, "The checklist is %d bytes; at most %d are accepted.", len(body), MaxChecklistBytes).
			WithDetail("max_bytes", MaxChecklistBytes)
	}
	if !utf8.Valid(body) {
		return Checklist{}, errcode.New(errcode.InvalidJSON, "The checklist is not UTF-8 JSON text.")
	}
	p := &parser{dec: json.NewDecoder(bytes.NewReader(body)), fields: errcode.FieldErrors{}}
	p.dec.UseNumber()
	c, err := p.checklist()
	if err != nil {
		return Checklist{}, err
	}
	if err := p.fields.Err(); err != nil {
		return Checklist{}, err
	}
	return c, nil
}

func (p *parser) checklist() (Checklist, error) {
	t, err := p.token()
	if err != nil {
		return Checklist{}, err
	}
	if d, ok := t.(json.Delim); !ok || d != '{' {
		return Checklist{}, errcode.New(errcode.InvalidJSON, "The checklist must be a JSON object.")
	}
	c := Checklist{Rooms: []ChecklistRoom{}}
	hasRooms := false
	err = p.object("", func(name, at string) error {
		if name != "rooms" {
			return p.unknown(at, "a checklist has only rooms")
		}
		hasRooms = true
		c.Rooms, err = p.rooms(at)
		return err
	})
	if err != nil {
		return Checklist{}, err
	}
	if _, err := p.dec.Token(); err != io.EOF {
		at := p.dec.InputOffset()
		return Checklist{}, errcode.New(errcode.InvalidJSON, "The checklist must be exactly one JSON object; more data follows it.").WithDetail("offset", at)
	}
	if !hasRooms {
		p.fields.Add("rooms", "is required")
	}
	return c, nil
}

func (p *parser) rooms(path string) ([]ChecklistRoom, error) {
	ok, err := p.open(path, '[')
	if !ok || err != nil {
		return nil, err
	}
	rooms := []ChecklistRoom{}
	seen := map[string]bool{}
	for i := 0; p.dec.More(); i++ {
		at := fmt.Sprintf("%s[%d]", path, i)
		r, ok, err := p.room(at)
		if err != nil {
			return nil, err
		}
		if i == MaxChecklistRooms {
			p.fields.Add(path, fmt.Sprintf("must hold at most %d rooms", MaxChecklistRooms))
		}
		if !ok {
			continue
		}
		if seen[strings.ToLower(r.Name)] {
			p.fields.Add(at+".name", fmt.Sprintf("names the room %q a second time; send each room once", r.Name))
		}
		seen[strings.ToLower(r.Name)] = true
		rooms = append(rooms, r)
	}
	_, err = p.token() // ']'
	return rooms, err
}

func (p *parser) room(path string) (ChecklistRoom, bool, error) {
	ok, err := p.open(path, '{')
	if !ok || err != nil {
		return ChecklistRoom{}, false, err
	}
	var r ChecklistRoom
	var hasName, hasItems, valid = false, false, true
	err = p.object(path, func(name, at string) error {
		switch name {
		case "name":
			hasName = true
			s, ok, err := p.scalar(at, false, "must be a string")
			if !ok || err != nil {
				valid = false
				return err
			}
			if r.Name, err = survey.ParseRoom(s); err != nil {
				p.fields.Add(at, strings.TrimPrefix(err.Error(), survey.ErrRoom.Error()+": "))
				valid = false
			}
		case "items":
			hasItems = true
			items, ok, err := p.items(at)
			if !ok || err != nil {
				valid = false
				return err
			}
			r.Items = items
		default:
			valid = false
			return p.unknown(at, "a room has only name and items")
		}
		return nil
	})
	if !p.required(path, map[string]bool{"name": hasName, "items": hasItems}) {
		valid = false
	}
	return r, valid, err
}

func (p *parser) items(path string) ([]ChecklistItem, bool, error) {
	ok, err := p.open(path, '[')
	if !ok || err != nil {
		return nil, false, err
	}
	items := []ChecklistItem{}
	seen := map[string]bool{}
	valid := true
	for i := 0; p.dec.More(); i++ {
		at := fmt.Sprintf("%s[%d]", path, i)
		it, ok, err := p.item(at)
		if err != nil {
			return nil, false, err
		}
		if i == len(sheet) {
			p.fields.Add(path, fmt.Sprintf("must hold at most %d items, one per cube sheet key", len(sheet)))
		}
		if !ok {
			valid = false
			continue
		}
		if seen[it.Key] {
			p.fields.Add(at+".key", fmt.Sprintf("lists %q a second time in this room; send each item once with its count", it.Key))
			valid = false
		}
		seen[it.Key] = true
		items = append(items, it)
	}
	_, err = p.token() // ']'
	return items, valid, err
}

func (p *parser) item(path string) (ChecklistItem, bool, error) {
	ok, err := p.open(path, '{')
	if !ok || err != nil {
		return ChecklistItem{}, false, err
	}
	var it ChecklistItem
	var hasKey, hasCount, valid = false, false, true
	err = p.object(path, func(name, at string) error {
		switch name {
		case "key":
			hasKey = true
			s, ok, err := p.scalar(at, false, "must be a string")
			if !ok || err != nil {
				valid = false
				return err
			}
			if _, known := Lookup(s); !known {
				p.fields.Add(at, fmt.Sprintf("%s is not an item of the cube sheet", quoteShort(s)))
				valid = false
			}
			it.Key = s
		case "count":
			hasCount = true
			reason := fmt.Sprintf("must be a whole number from 0 to %d", MaxCount)
			s, ok, err := p.scalar(at, true, reason)
			if !ok || err != nil {
				valid = false
				return err
			}
			n, convErr := strconv.Atoi(s)
			if convErr != nil || n < 0 || n > MaxCount {
				p.fields.Add(at, fmt.Sprintf("%s (got %s)", reason, cut(s)))
				valid = false
			}
			it.Count = n
		default:
			valid = false
			return p.unknown(at, "an item has only key and count")
		}
		return nil
	})
	if !p.required(path, map[string]bool{"key": hasKey, "count": hasCount}) {
		valid = false
	}
	return it, valid, err
}

// unknown records the unknown property at (what says which properties the
// object has) and skips its value.
func (p *parser) unknown(at, what string) error {
	p.fields.Add(at, "unknown property; "+what)
	t, err := p.token()
	if err != nil {
		return err
	}
	return p.skip(t)
}

// required records each property of the object at path that was not sent,
// and reports whether all were.
func (p *parser) required(path string, sent map[string]bool) bool {
	ok := true
	for prop, has := range sent {
		if !has {
			p.fields.Add(join(path, prop), "is required")
			ok = false
		}
	}
	return ok
}
