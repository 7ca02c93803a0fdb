package sample_test

import (
	"context"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/moveleads/partnerapi/events/sample"
	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/testkit/apitest"
)

// TestFixtureQuotesCarryAMove: the seeded quotes (make dev's) are for a
// realistic move, so the fixture quote page shows the full page: the
// addresses, date, inventory with quantities, special items, services and
// full value protection's cost.
func TestFixtureQuotesCarryAMove(t *testing.T) {
	env := apitest.New(t)
	ctx := context.Background()
	if err := sample.Seed(ctx, env.Store); err != nil {
		t.Fatal(err)
	}
	tn := auth.Tenant{PartnerID: sample.PartnerID, Mode: auth.Test}
	for _, id := range [][2]string{
		{sample.AcceptLeadID, sample.AcceptQuoteID}, {sample.DepositLeadID, sample.DepositQuoteID},
		{sample.OpenLeadID, sample.OpenQuoteID}, {sample.PaidLeadID, sample.PaidQuoteID},
	} {
		q, err := env.Store.GetQuote(ctx, tn, id[0], id[1])
		if err != nil {
			t.Fatal(err)
		}
		if q.Move == nil || !reflect.DeepEqual(*q.Move, sample.FixtureMove) || len(q.Move.Inventory) == 0 || q.Move.FullValueCents == nil {
			t.Errorf("fixture quote %s is for the move %+v; want sample.FixtureMove %+v", id[1], q.Move, sample.FixtureMove)
		}
	}

	r := env.DoRaw(t, "GET", "/v1-quote/"+sample.QuoteToken, "", "")
	if r.Status != 200 {
		t.Fatalf("the fixture quote page: %d %s", r.Status, r.Body)
	}
	text := regexp.MustCompile(`\s+`).ReplaceAllString(regexp.MustCompile(`(?s)<script.*?</script>|<style.*?</style>|<[^>]*>`).ReplaceAllString(string(r.Body), " "), " ")
	for _, want := range []string{
		"Move date Friday, January 15, 2027", "Living room Sofa, 3 seats × 1 Armchair × 2", "Kitchen Dining table, medium × 1",
		"Piano (upright)", "Disassembly and reassembly of beds",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the fixture quote page does not show %q:\n%s", want, text)
		}
	}
}
