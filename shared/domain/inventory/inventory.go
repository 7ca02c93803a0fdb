package inventory

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strconv"
	"time"

	"github.com/moveleads/partnerapi/shared/domain/survey"
)

// Volume is an amount of space in tenths of a cubic foot. Volumes are
// added as integers, so a total does not depend on the order of the items
// or on floating-point rounding.
type Volume int64

// CubicFeet returns v in cubic feet.
func (v Volume) CubicFeet() float64 { return float64(v) / 10 }

// String renders v as e.g. "41 cu ft" or "1.5 cu ft".
func (v Volume) String() string {
	return strconv.FormatFloat(v.CubicFeet(), 'f', -1, 64) + " cu ft"
}

// VolumeOf returns cubic feet as a Volume, rounded to the nearest tenth.
func VolumeOf(cubicFeet float64) Volume { return Volume(math.Round(cubicFeet * 10)) }

// Entry is one row of the cube sheet.
type Entry struct {
	Key    string // stable identifier, e.g. "sofa_3_seat"
	Name   string // what the capture page shows, e.g. "Sofa, 3 seats"
	Volume Volume // of one such item
	Ref    string // tags of References the value comes from, joined by "+"
	Note   string // where sources differ, or how a value was derived
}

// Lookup returns the cube sheet's entry for key, or false when there is
// none.
func Lookup(key string) (Entry, bool) {
	i := sort.Search(len(sheet), func(i int) bool { return sheet[i].Key >= key })
	if i < len(sheet) && sheet[i].Key == key {
		return sheet[i], true
	}
	return Entry{}, false
}

// Entries returns a copy of the cube sheet, sorted by key.
func Entries() []Entry { return append([]Entry(nil), sheet...) }

// Source says where an item of an inventory comes from.
type Source string

// The item sources.
const (
	FromChecklist Source = "checklist" // the customer ticked it on the capture page
	FromDetector  Source = "detected"  // a detector found it in the survey's frames; the checklist lacks it
)

// Item is one kind of item in a room, with how many there are.
type Item struct {
	Key       string  `json:"key" dynamodbav:"key"`   // a cube sheet key
	Name      string  `json:"name" dynamodbav:"name"` // the cube sheet's name
	Count     int     `json:"count" dynamodbav:"count"`
	CubicFeet float64 `json:"cubic_feet" dynamodbav:"cubic_feet"` // of one item
	Source    Source  `json:"source" dynamodbav:"source"`
	// Detected is how many the detector saw in the room (the most in any
	// one frame), when it saw any: for a checklist item, the detector's
	// corroboration (the customer's Count stands); for a detected item,
	// Count itself.
	Detected int `json:"detected,omitempty" dynamodbav:"detected,omitempty"`
}

// Volume returns the space all Count items take.
func (it Item) Volume() Volume { return VolumeOf(it.CubicFeet) * Volume(it.Count) }

// Room is the items of one room.
type Room struct {
	Name  string `json:"name" dynamodbav:"name"`
	Items []Item `json:"items" dynamodbav:"items"`
}

// Inventory is what a survey found in a home, room by room.
type Inventory struct {
	Rooms []Room `json:"rooms" dynamodbav:"rooms"`
	// Detector reports what the detector did; nil when none ran.
	Detector *DetectorReport `json:"detector,omitempty" dynamodbav:"detector,omitempty"`
}

// Volume returns the space every item of inv takes.
func (inv Inventory) Volume() Volume {
	var v Volume
	for _, r := range inv.Rooms {
		for _, it := range r.Items {
			v += it.Volume()
		}
	}
	return v
}

// TotalCubicFeet returns the space every item of inv takes, in cubic feet.
func (inv Inventory) TotalCubicFeet() float64 { return inv.Volume().CubicFeet() }

// Frame is one picture taken from a clip, as the clip processor left it:
// what the detector made of it (Analyse).
type Frame struct {
	ClipID   string
	Offset   time.Duration // from the clip's start
	Analysis Analysis
}

// Analysis is what a detector made of one frame.
type Analysis struct {
	// Detector names the detector that looked (Detector.Name); "" when
	// none did.
	Detector string `json:"detector,omitempty" dynamodbav:"detector,omitempty"`
	// Detections are what it found, most confident first, at most
	// MaxDetections; no threshold is applied here (Count applies it), so
	// a threshold tuned later applies to frames already analysed.
	Detections []Detection `json:"detections,omitempty" dynamodbav:"detections,omitempty"`
	// Error says why the detector could not look ("" when it did).
	Error string `json:"error,omitempty" dynamodbav:"error,omitempty"`
}

// Input is everything a survey gathered: its clips (only the playable ones
// are worth looking at), frames taken from them, and the customer's
// checklist.
type Input struct {
	Clips     []survey.Clip
	Frames    []Frame
	Checklist Checklist
}

// Builder turns what a survey gathered into an inventory. The pipeline
// depends on this interface alone, so a detector that finds items in the
// frames plugs in as another Builder (or one that merges its findings with
// the checklist) without any change to the pipeline.
type Builder interface {
	// Build returns the inventory of in. It fails when ctx is done or in
	// cannot be read (an unknown item key); an empty inventory is not a
	// failure.
	Build(ctx context.Context, in Input) (Inventory, error)
}

// ChecklistBuilder is the Builder of issue 8: the inventory is exactly the
// customer's checklist. Rooms keep the checklist's order, items with a
// count of 0 and rooms left with no item are left out, every item has its
// volume from the cube sheet and Source FromChecklist, and nothing else is
// added: no item is invented. Clips and frames are not looked at.
type ChecklistBuilder struct{}

// Build implements Builder. It fails when ctx is done, or when the
// checklist holds a key the cube sheet does not know or a count out of
// range, which ParseChecklist never lets through.
func (ChecklistBuilder) Build(ctx context.Context, in Input) (Inventory, error) {
	if err := ctx.Err(); err != nil {
		return Inventory{}, fmt.Errorf("build inventory from checklist: %w", err)
	}
	inv := Inventory{Rooms: []Room{}}
	for _, cr := range in.Checklist.Rooms {
		room := Room{Name: cr.Name}
		for _, ci := range cr.Items {
			e, ok := Lookup(ci.Key)
			if !ok {
				return Inventory{}, fmt.Errorf("build inventory from checklist: room %q: unknown item key %q", cr.Name, ci.Key)
			}
			if ci.Count < 0 || ci.Count > MaxCount {
				return Inventory{}, fmt.Errorf("build inventory from checklist: room %q: %s count %d out of range", cr.Name, ci.Key, ci.Count)
			}
			if ci.Count == 0 {
				continue
			}
			room.Items = append(room.Items, Item{Key: e.Key, Name: e.Name, Count: ci.Count, CubicFeet: e.Volume.CubicFeet(), Source: FromChecklist})
		}
		if len(room.Items) > 0 {
			inv.Rooms = append(inv.Rooms, room)
		}
	}
	return inv, nil
}
