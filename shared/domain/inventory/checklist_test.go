package inventory

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/moveleads/partnerapi/shared/domain/errcode"
	"github.com/moveleads/partnerapi/shared/domain/survey"
)

func TestParseChecklist(t *testing.T) {
	tests := []struct {
		name string
		body string
		want Checklist
	}{
		{"empty", `{"rooms":[]}`, Checklist{Rooms: []ChecklistRoom{}}},
		{"one room", `{"rooms":[{"name":"Living room","items":[{"key":"sofa_3_seat","count":1},{"key":"armchair","count":2}]}]}`,
			Checklist{Rooms: []ChecklistRoom{{Name: "Living room", Items: []ChecklistItem{{"sofa_3_seat", 1}, {"armchair", 2}}}}}},
		{"room name canonical and trimmed", `{"rooms":[{"name":"  KITCHEN ","items":[]}]}`,
			Checklist{Rooms: []ChecklistRoom{{Name: "Kitchen", Items: []ChecklistItem{}}}}},
		{"free-text room, bounds of count, property order", `{"rooms":[{"items":[{"count":0,"key":"box_small"},{"key":"box_medium","count":99}],"name":"Kids' room 2"}]}`,
			Checklist{Rooms: []ChecklistRoom{{Name: "Kids' room 2", Items: []ChecklistItem{{"box_small", 0}, {"box_medium", 99}}}}}},
		{"same item in two rooms", `{"rooms":[{"name":"Bedroom","items":[{"key":"bed_queen","count":1}]},{"name":"Guest room","items":[{"key":"bed_queen","count":1}]}]}`,
			Checklist{Rooms: []ChecklistRoom{{Name: "Bedroom", Items: []ChecklistItem{{"bed_queen", 1}}}, {Name: "Guest room", Items: []ChecklistItem{{"bed_queen", 1}}}}}},
		{"white space around", " \n{\"rooms\" : [ ] }\r\n", Checklist{Rooms: []ChecklistRoom{}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseChecklist([]byte(tt.body))
			if err != nil {
				t.Fatalf("ParseChecklist(%s) error %v", tt.body, err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("ParseChecklist(%s) = %+v; want %+v", tt.body, got, tt.want)
			}
		})
	}
}

func TestParseChecklistRefuses(t *testing.T) {
	room := func(items string) string { return `{"rooms":[{"name":"Kitchen","items":[` + items + `]}]}` }
	many := func(n int, s string) string { return strings.TrimSuffix(strings.Repeat(s+",", n), ",") }
	tests := []struct {
		name   string
		body   string
		code   errcode.Code
		fields []string // for validation_failed: exactly these paths fail
	}{
		{"empty body", ``, errcode.InvalidJSON, nil},
		{"not JSON", `rooms`, errcode.InvalidJSON, nil},
		{"truncated", `{"rooms":[{"name":"Kitchen"`, errcode.InvalidJSON, nil},
		{"trailing comma", `{"rooms":[],}`, errcode.InvalidJSON, nil},
		{"two objects", `{"rooms":[]}{"rooms":[]}`, errcode.InvalidJSON, nil},
		{"trailing garbage", `{"rooms":[]} x`, errcode.InvalidJSON, nil},
		{"array", `[]`, errcode.InvalidJSON, nil},
		{"null", `null`, errcode.InvalidJSON, nil},
		{"invalid UTF-8", "{\"rooms\":[{\"name\":\"K\xff\",\"items\":[]}]}", errcode.InvalidJSON, nil},
		{"too large", `{"rooms":[` + strings.Repeat(" ", MaxChecklistBytes) + `]}`, errcode.PayloadTooLarge, nil},
		{"no rooms", `{}`, errcode.ValidationFailed, []string{"rooms"}},
		{"rooms null", `{"rooms":null}`, errcode.ValidationFailed, []string{"rooms"}},
		{"rooms object", `{"rooms":{}}`, errcode.ValidationFailed, []string{"rooms"}},
		{"unknown top property", `{"rooms":[],"total":5}`, errcode.ValidationFailed, []string{"total"}},
		{"rooms twice", `{"rooms":[],"rooms":[]}`, errcode.ValidationFailed, []string{"rooms"}},
		{"room not an object", `{"rooms":["Kitchen"]}`, errcode.ValidationFailed, []string{"rooms[0]"}},
		{"room without name", `{"rooms":[{"items":[]}]}`, errcode.ValidationFailed, []string{"rooms[0].name"}},
		{"room without items", `{"rooms":[{"name":"Kitchen"}]}`, errcode.ValidationFailed, []string{"rooms[0].items"}},
		{"items null", `{"rooms":[{"name":"Kitchen","items":null}]}`, errcode.ValidationFailed, []string{"rooms[0].items"}},
		{"room name null", `{"rooms":[{"name":null,"items":[]}]}`, errcode.ValidationFailed, []string{"rooms[0].name"}},
		{"room name a number", `{"rooms":[{"name":7,"items":[]}]}`, errcode.ValidationFailed, []string{"rooms[0].name"}},
		{"room name blank", `{"rooms":[{"name":"  ","items":[]}]}`, errcode.ValidationFailed, []string{"rooms[0].name"}},
		{"room name too long", `{"rooms":[{"name":"` + strings.Repeat("x", 61) + `","items":[]}]}`, errcode.ValidationFailed, []string{"rooms[0].name"}},
		{"room name with a line break", `{"rooms":[{"name":"Bed\nroom","items":[]}]}`, errcode.ValidationFailed, []string{"rooms[0].name"}},
		{"room name a lone surrogate", `{"rooms":[{"name":"\ud800","items":[]}]}`, errcode.ValidationFailed, []string{"rooms[0].name"}},
		{"room twice", `{"rooms":[{"name":"Kitchen","items":[]},{"name":"kitchen","items":[]}]}`, errcode.ValidationFailed, []string{"rooms[1].name"}},
		{"unknown room property", `{"rooms":[{"name":"Kitchen","items":[],"photo":"x"}]}`, errcode.ValidationFailed, []string{"rooms[0].photo"}},
		{"too many rooms", `{"rooms":[` + roomsJSON(MaxChecklistRooms+1) + `]}`, errcode.ValidationFailed, []string{"rooms"}},
		{"unknown key", room(`{"key":"hot_tub","count":1}`), errcode.ValidationFailed, []string{"rooms[0].items[0].key"}},
		{"key in another case", room(`{"key":"Sofa_3_seat","count":1}`), errcode.ValidationFailed, []string{"rooms[0].items[0].key"}},
		{"key null", room(`{"key":null,"count":1}`), errcode.ValidationFailed, []string{"rooms[0].items[0].key"}},
		{"item twice", room(`{"key":"stove","count":1},{"key":"stove","count":1}`), errcode.ValidationFailed, []string{"rooms[0].items[1].key"}},
		{"count 100", room(`{"key":"stove","count":100}`), errcode.ValidationFailed, []string{"rooms[0].items[0].count"}},
		{"count negative", room(`{"key":"stove","count":-1}`), errcode.ValidationFailed, []string{"rooms[0].items[0].count"}},
		{"count fractional", room(`{"key":"stove","count":1.5}`), errcode.ValidationFailed, []string{"rooms[0].items[0].count"}},
		{"count 1.0", room(`{"key":"stove","count":1.0}`), errcode.ValidationFailed, []string{"rooms[0].items[0].count"}},
		{"count exponent", room(`{"key":"stove","count":1e1}`), errcode.ValidationFailed, []string{"rooms[0].items[0].count"}},
		{"count huge", room(`{"key":"stove","count":` + strings.Repeat("9", 400) + `}`), errcode.ValidationFailed, []string{"rooms[0].items[0].count"}},
		{"count a string", room(`{"key":"stove","count":"1"}`), errcode.ValidationFailed, []string{"rooms[0].items[0].count"}},
		{"count true", room(`{"key":"stove","count":true}`), errcode.ValidationFailed, []string{"rooms[0].items[0].count"}},
		{"count an object", room(`{"key":"stove","count":{"n":[1,{}]}}`), errcode.ValidationFailed, []string{"rooms[0].items[0].count"}},
		{"count missing", room(`{"key":"stove"}`), errcode.ValidationFailed, []string{"rooms[0].items[0].count"}},
		{"unknown item property", room(`{"key":"stove","count":1,"cubic_feet":1}`), errcode.ValidationFailed, []string{"rooms[0].items[0].cubic_feet"}},
		{"item an array", room(`["stove",1]`), errcode.ValidationFailed, []string{"rooms[0].items[0]"}},
		{"too many items", room(many(len(sheet)+1, `{"key":"stove","count":1}`)), errcode.ValidationFailed, nil},
		{"several problems", `{"rooms":[{"name":"","items":[{"key":"x","count":-2}]}],"extra":1}`, errcode.ValidationFailed,
			[]string{"rooms[0].name", "rooms[0].items[0].key", "rooms[0].items[0].count", "extra"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseChecklist([]byte(tt.body))
			e := errcode.As(err)
			if e == nil || e.Code != tt.code {
				t.Fatalf("ParseChecklist(%.80s) = %+v, %v; want code %s", tt.body, got, err, tt.code)
			}
			fields, _ := e.Details["fields"].(map[string]any)
			if tt.code == errcode.ValidationFailed && len(fields) == 0 {
				t.Errorf("validation_failed without details.fields")
			}
			if tt.fields != nil && len(fields) != len(tt.fields) {
				t.Errorf("details.fields = %v; want exactly %v", fields, tt.fields)
			}
			for _, f := range tt.fields {
				if _, ok := fields[f]; !ok {
					t.Errorf("details.fields = %v; want %q in it", fields, f)
				}
			}
		})
	}
}

func roomsJSON(n int) string {
	rooms := make([]string, n)
	for i := range rooms {
		rooms[i] = `{"name":"Room ` + string(rune('A'+i%26)) + string(rune('a'+i/26)) + `","items":[]}`
	}
	return strings.Join(rooms, ",")
}

// TestParseChecklistTestdata reads the sample checklists under testdata/:
// good-*.json must parse, bad-*.json must fail with a 4xx.
func TestParseChecklistTestdata(t *testing.T) {
	files, err := filepath.Glob("testdata/*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no testdata: %v", err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			body, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			_, err = ParseChecklist(body)
			good := strings.HasPrefix(filepath.Base(f), "good-")
			if good && err != nil {
				t.Errorf("ParseChecklist(%s) error %v; want nil", f, err)
			}
			if !good && (err == nil || errcode.Status(errcode.As(err).Code)/100 != 4) {
				t.Errorf("ParseChecklist(%s) error %v; want a 4xx", f, err)
			}
		})
	}
}

func FuzzParseChecklist(f *testing.F) {
	for _, s := range []string{
		`{"rooms":[]}`,
		`{"rooms":[{"name":"Living room","items":[{"key":"sofa_3_seat","count":1},{"key":"box_small","count":0}]}]}`,
		`{"rooms":[{"name":"Kitchen","items":[{"key":"stove","count":1},{"key":"stove","count":2}]},{"name":"kitchen","items":[]}]}`,
		`{"rooms":[{"name":"\ud800","items":[{"key":"x","count":1.5}]}],"x":null}`,
		`{"rooms":[{"name":"a","items":[{"key":"stove","count":1e400}]}]}`,
		`{"rooms":[[[[[[{}]]]]]]}`, `{"rooms":[{"items":{"key":[]}}]}`,
		`{"rooms":[],}`, `{"rooms":[]} {}`, `{`, ``, `null`, "\xff",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		c, err := ParseChecklist(body)
		if err != nil {
			e := errcode.As(err)
			if e == nil || !errors.Is(err, e) {
				t.Fatalf("ParseChecklist(%q) error %v; want an *errcode.Error", body, err)
			}
			if st := errcode.Status(e.Code); st < 400 || st > 499 {
				t.Fatalf("ParseChecklist(%q) code %s answers %d; want a 4xx", body, e.Code, st)
			}
			return
		}
		if len(c.Rooms) > MaxChecklistRooms {
			t.Errorf("ParseChecklist(%q) kept %d rooms; want at most %d", body, len(c.Rooms), MaxChecklistRooms)
		}
		for _, r := range c.Rooms {
			if name, err := survey.ParseRoom(r.Name); err != nil || name != r.Name || !utf8.ValidString(r.Name) {
				t.Errorf("ParseChecklist(%q): room %q is not a canonical room name", body, r.Name)
			}
			seen := map[string]bool{}
			for _, it := range r.Items {
				if _, ok := Lookup(it.Key); !ok || it.Count < 0 || it.Count > MaxCount || seen[it.Key] {
					t.Errorf("ParseChecklist(%q): room %q holds %+v", body, r.Name, it)
				}
				seen[it.Key] = true
			}
		}
		// What ParseChecklist accepts, it accepts again once stored.
		stored, err := json.Marshal(c)
		if err != nil {
			t.Fatalf("marshal %+v: %v", c, err)
		}
		again, err := ParseChecklist(stored)
		if err != nil || !reflect.DeepEqual(again, c) {
			t.Errorf("ParseChecklist(its own output %s) = %+v, %v; want %+v", stored, again, err, c)
		}
		// The checklist builder returns exactly the ticked items.
		inv, err := ChecklistBuilder{}.Build(t.Context(), Input{Checklist: c})
		if err != nil {
			t.Fatalf("Build(parsed checklist) error %v", err)
		}
		checkBuiltFromChecklist(t, c, inv)
	})
}
