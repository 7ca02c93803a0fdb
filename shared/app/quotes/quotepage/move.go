package quotepage

import (
	"encoding/base64"
	"strconv"
	"time"

	"github.com/moveleads/partnerapi/shared/app/htmlpage"
)

// Move is the move a quote's price is for, as the page lists it
// (quote.Move): what the customer signs.
type Move struct {
	FromAddress, ToAddress string
	MoveDate               string          // YYYY-MM-DD; "" when not known
	Inventory              []InventoryLine // from the survey, in room order
	SpecialItems           []string
	Services               []string
	// FullValueCents is full value protection's cost on top of the price:
	// 0 when included, nil when the mover did not say.
	FullValueCents *int64
}

// InventoryLine is one row of the inventory the price is based on.
type InventoryLine struct {
	Room, Name string
	Count      int
}

// SignedCopy is what a signed quote's copy adds to the terms shown: the
// signature, who gave it, when, and the evidence hash that proves it.
type SignedCopy struct {
	SignerName, SignerEmail string
	SignedAt                time.Time
	EvidenceHash            string
	Liability               string // the election, e.g. "full_value_protection"
	SignaturePNG            []byte // nil when the image could not be read
}

// moveView is the "Your move" card.
type moveView struct {
	From, To, Date string
	Rooms          []roomView
	SpecialItems   []string
	Services       []string
}

type roomView struct {
	Name  string
	Items []itemView
}

type itemView struct{ Name, Count string }

func moveViewOf(m *Move) *moveView {
	if m == nil {
		return nil
	}
	v := &moveView{From: orUnknown(m.FromAddress), To: orUnknown(m.ToAddress), Date: moveDate(m.MoveDate),
		SpecialItems: m.SpecialItems, Services: m.Services}
	for _, l := range m.Inventory {
		if n := len(v.Rooms); n == 0 || v.Rooms[n-1].Name != l.Room {
			v.Rooms = append(v.Rooms, roomView{Name: l.Room})
		}
		r := &v.Rooms[len(v.Rooms)-1]
		r.Items = append(r.Items, itemView{Name: l.Name, Count: "× " + strconv.Itoa(l.Count)})
	}
	return v
}

func orUnknown(s string) string {
	if s == "" {
		return "Not stated"
	}
	return s
}

// moveDate says a YYYY-MM-DD date in words ("Friday, January 15, 2027"),
// which no reader misreads; another text is shown as it is.
func moveDate(s string) string {
	d, err := time.Parse(time.DateOnly, s)
	if err != nil {
		return orUnknown(s)
	}
	return d.Format("Monday, January 2, 2006")
}

// liabilityCost is what an option costs, as its choice says.
func liabilityCost(election string, m *Move, currency, company string) string {
	switch {
	case election == "released_value":
		return "Cost: included in the price, at no extra cost."
	case m == nil || m.FullValueCents == nil:
		return "Cost: not stated. Ask " + company + " before you choose."
	case *m.FullValueCents == 0:
		return "Cost: included in the price."
	}
	return "Cost: " + htmlpage.FormatMoney(*m.FullValueCents, currency) + " on top of the price."
}

// copyView is the signed copy's card.
type copyView struct {
	SignerName, SignerEmail string
	At                      timeView
	EvidenceHash            string
	Liability               string
	SignaturePNG            []byte // nil without one
}

func copyViewOf(c *SignedCopy, options []LiabilityOption) *copyView {
	if c == nil {
		return nil
	}
	v := &copyView{SignerName: c.SignerName, SignerEmail: c.SignerEmail, At: timeOf(c.SignedAt), EvidenceHash: c.EvidenceHash,
		Liability: c.Liability}
	for _, o := range options {
		if o.Election == c.Liability {
			v.Liability = o.Title
		}
	}
	v.SignaturePNG = c.SignaturePNG
	return v
}

// pngURL is png as a data: URL; its characters need no escaping.
func pngURL(png []byte) string {
	return "data:image/png;base64," + base64.StdEncoding.EncodeToString(png)
}
