package quote

import (
	"slices"
	"strconv"

	"github.com/moveleads/partnerapi/shared/domain/inventory"
	"github.com/moveleads/partnerapi/shared/domain/lead"
)

// Move is the move a quote prices, as the quote page describes it (what
// 49 CFR 375.401–403 has a written estimate state): copied from the lead
// and its survey when the quote is made, so a later edit of either does
// not change what an open or signed quote shows (or its ShownHash).
type Move struct {
	FromAddress  string
	ToAddress    string
	MoveDate     string // YYYY-MM-DD; "" when the lead has none
	Inventory    []Line // the survey's inventory, room by room; nil without a ready survey
	SpecialItems []string
	Services     []string // the services included in the price (createQuote's services)
	// FullValueCents is what full value protection costs on top of the
	// price, in minor units: 0 when it is included, nil when the partner
	// did not say (the page then says to ask). Released value is free.
	FullValueCents *int64
}

// Line is one row of the inventory a quote is based on.
type Line struct {
	Room  string
	Name  string
	Count int
}

// MoveOf returns the move of a quote made from in for a lead with
// details d whose survey's inventory is inv (nil when it has none ready).
func MoveOf(d lead.Details, inv *inventory.Inventory, in CreateInput) Move {
	t := Move{
		FromAddress: d.FromAddress, ToAddress: d.ToAddress, MoveDate: d.MoveDate,
		SpecialItems: slices.Clone(d.SpecialItems), Services: slices.Clone(in.Services),
	}
	if in.FullValueCents != nil {
		v := *in.FullValueCents
		t.FullValueCents = &v
	}
	if inv != nil {
		for _, r := range inv.Rooms {
			for _, it := range r.Items {
				if it.Count > 0 {
					t.Inventory = append(t.Inventory, Line{Room: r.Name, Name: it.Name, Count: it.Count})
				}
			}
		}
	}
	return t
}

// writeShown writes t's fields of Shown's v2 encoding: lists as a count
// followed by their elements, so that no two lists encode alike.
func (t Move) writeShown(c *canonical) {
	c.field("from_address", t.FromAddress)
	c.field("to_address", t.ToAddress)
	c.field("move_date", t.MoveDate)
	c.field("inventory_lines", strconv.Itoa(len(t.Inventory)))
	for _, l := range t.Inventory {
		c.field("room", l.Room)
		c.field("item", l.Name)
		c.field("count", strconv.Itoa(l.Count))
	}
	c.field("special_items", strconv.Itoa(len(t.SpecialItems)))
	for _, s := range t.SpecialItems {
		c.field("special_item", s)
	}
	c.field("services", strconv.Itoa(len(t.Services)))
	for _, s := range t.Services {
		c.field("service", s)
	}
	fv := ""
	if t.FullValueCents != nil {
		fv = strconv.FormatInt(*t.FullValueCents, 10)
	}
	c.field("full_value_protection_cents", fv)
	c.field("released_value_cents", "0")
}
