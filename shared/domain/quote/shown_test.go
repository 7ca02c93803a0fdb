package quote

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// goldenShownNonBinding is the v1 encoding of testQuote(NonBinding) made
// before quotes carried their Move (Move nil), as quotes signed then were
// hashed; with its hash (checked independently with Python's hashlib) it
// must never change, so their evidence still verifies.
const (
	goldenShownNonBinding = "moveleads.quote.shown.v1\n" +
		"estimate_type:11:non_binding\n" +
		"price_cents:6:245000\n" +
		"deposit_cents:5:25000\n" +
		"currency:3:usd\n" +
		"expires_at:27:2025-07-02T15:04:05.123456Z\n" +
		"company_name:14:Ada Movers LLC\n"
	goldenShownNonBindingHash = "08f5b9b5d81bd5f95546172b980739c25f041793a58390b8629fb1488b76c628"
)

// v1Quote is testQuote(typ) as made before quotes carried their Move.
func v1Quote(typ EstimateType) Quote {
	q := testQuote(typ)
	q.Move = nil
	return q
}

func TestShownGolden(t *testing.T) {
	q := v1Quote(NonBinding)
	if got := string(q.Shown()); got != goldenShownNonBinding {
		t.Errorf("Shown() =\n%s\nwant\n%s", got, goldenShownNonBinding)
	}
	if got := q.ShownHash(); got != goldenShownNonBindingHash {
		t.Errorf("ShownHash() = %s; want %s", got, goldenShownNonBindingHash)
	}
}

func TestShownBindingAddsDisclosureAndLiability(t *testing.T) {
	q := v1Quote(Binding)
	want := strings.Replace(goldenShownNonBinding, "estimate_type:11:non_binding", "estimate_type:7:binding", 1) +
		"esign_disclosure_version:13:esign-2025-01\n" +
		"esign_disclosure_sha256:64:" + disclosureSHA256() + "\n" +
		"liability_options_version:17:liability-2025-01\n" +
		"liability_options_sha256:64:" + liabilityOptionsSHA256() + "\n"
	if got := string(q.Shown()); got != want {
		t.Errorf("Shown() =\n%s\nwant\n%s", got, want)
	}
	nte := v1Quote(BindingNotToExceed)
	if !strings.Contains(string(nte.Shown()), "esign_disclosure_version:") {
		t.Error("a binding_not_to_exceed quote's Shown lacks the disclosure")
	}
}

// goldenShownMoveTail is what the v2 encoding of testQuote adds after
// the v1 fields (testMove); goldenShownV2NonBindingHash, the v2 hash of
// testQuote(NonBinding), was checked with Python's hashlib.
const (
	goldenShownMoveTail = "from_address:29:1 Main St, New York, NY 10001\n" +
		"to_address:27:9 Oak Ave, Boston, MA 02108\n" +
		"move_date:10:2025-07-15\n" +
		"inventory_lines:1:3\n" +
		"room:11:Living room\nitem:13:Sofa, 3 seats\ncount:1:1\n" +
		"room:11:Living room\nitem:8:Armchair\ncount:1:2\n" +
		"room:7:Bedroom\nitem:10:Bed, queen\ncount:1:1\n" +
		"special_items:1:1\nspecial_item:5:piano\n" +
		"services:1:2\nservice:7:Packing\nservice:34:Disassembly and reassembly of beds\n" +
		"full_value_protection_cents:5:45000\n" +
		"released_value_cents:1:0\n"
	goldenShownV2NonBindingHash = "4513ef4280a8a8689b5e50f33383894e930d1ce3cf64b9a5159d3f2fbe5f6c12"
)

func TestShownV2CoversTheMove(t *testing.T) {
	q := testQuote(NonBinding)
	want := strings.Replace(goldenShownNonBinding, ShownTagV1, ShownTag, 1) + goldenShownMoveTail
	if got := string(q.Shown()); got != want {
		t.Errorf("Shown() =\n%s\nwant\n%s", got, want)
	}
	if got := q.ShownHash(); got != goldenShownV2NonBindingHash {
		t.Errorf("ShownHash() = %s; want %s", got, goldenShownV2NonBindingHash)
	}
}

// editMove returns an edit of a quote's move that leaves other quotes'
// moves alone (a copy of q.Move is edited).
func editMove(edit func(*Move)) func(*Quote) {
	return func(q *Quote) {
		m := *q.Move
		m.Inventory = slices.Clone(m.Inventory)
		m.SpecialItems = slices.Clone(m.SpecialItems)
		m.Services = slices.Clone(m.Services)
		edit(&m)
		q.Move = &m
	}
}

func TestShownHashChangesWithEveryShownTerm(t *testing.T) {
	tests := []struct {
		name string
		edit func(*Quote)
	}{
		{"estimate type", func(q *Quote) { q.EstimateType = BindingNotToExceed }},
		{"price", func(q *Quote) { q.PriceCents++ }},
		{"deposit", func(q *Quote) { q.DepositCents++ }},
		{"no deposit", func(q *Quote) { q.DepositCents = 0 }},
		{"currency", func(q *Quote) { q.Currency = "cad" }},
		{"expiry", func(q *Quote) { q.ExpiresAt = q.ExpiresAt.Add(time.Microsecond) }},
		{"company name", func(q *Quote) { q.CompanyName += "." }},
		{"origin", editMove(func(m *Move) { m.FromAddress += "." })},
		{"destination", editMove(func(m *Move) { m.ToAddress += "." })},
		{"move date", editMove(func(m *Move) { m.MoveDate = "2025-07-16" })},
		{"inventory count", editMove(func(m *Move) { m.Inventory[1].Count = 3 })},
		{"inventory item", editMove(func(m *Move) { m.Inventory[0].Name = "Sofa, 2 seats" })},
		{"inventory room", editMove(func(m *Move) { m.Inventory[2].Room = "Bedroom 2" })},
		{"inventory line dropped", editMove(func(m *Move) { m.Inventory = m.Inventory[:2] })},
		{"no inventory", editMove(func(m *Move) { m.Inventory = nil })},
		{"special item", editMove(func(m *Move) { m.SpecialItems = append(m.SpecialItems, "safe") })},
		{"special item moved to services", editMove(func(m *Move) { m.SpecialItems = nil; m.Services = append(m.Services, "piano") })},
		{"service", editMove(func(m *Move) { m.Services = m.Services[:1] })},
		{"full value cost", editMove(func(m *Move) { v := *m.FullValueCents + 1; m.FullValueCents = &v })},
		{"full value included", editMove(func(m *Move) { v := int64(0); m.FullValueCents = &v })},
		{"full value not stated", editMove(func(m *Move) { m.FullValueCents = nil })},
		{"made before moves were shown", func(q *Quote) { q.Move = nil }},
	}
	base := testQuote(Binding)
	seen := map[string]string{base.ShownHash(): "base"}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := base
			tt.edit(&q)
			h := q.ShownHash()
			if other, dup := seen[h]; dup {
				t.Errorf("ShownHash after changing the %s = %s, as for %s", tt.name, h, other)
			}
			seen[h] = tt.name
		})
	}
}

func TestShownHashIgnoresWhatIsNotShown(t *testing.T) {
	tests := []struct {
		name string
		edit func(*Quote)
	}{
		{"id", func(q *Quote) { q.ID = "q-2" }},
		{"lead id", func(q *Quote) { q.LeadID = "lead-2" }},
		{"share link", func(q *Quote) { q.ShareLinkID = "other" }},
		{"created at", func(q *Quote) { q.CreatedAt = q.CreatedAt.Add(time.Hour) }},
		{"stage", func(q *Quote) { q.Stage = StageSigned }},
		{"expiry zone and nanoseconds", func(q *Quote) {
			q.ExpiresAt = q.ExpiresAt.In(time.FixedZone("X", 3600)).Add(999 * time.Nanosecond)
		}},
	}
	base := testQuote(Binding)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := base
			tt.edit(&q)
			if q.ShownHash() != base.ShownHash() {
				t.Errorf("changing the %s changed ShownHash", tt.name)
			}
		})
	}
}
