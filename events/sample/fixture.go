package sample

import (
	"context"
	"fmt"
	"time"

	"github.com/moveleads/partnerapi/shared/auth"
	"github.com/moveleads/partnerapi/shared/dynamo"
	"github.com/moveleads/partnerapi/shared/estimate"
	"github.com/moveleads/partnerapi/shared/lead"
	"github.com/moveleads/partnerapi/shared/manifest"
)

// The fixtures the sample events refer to. Seed creates them in a local
// table; `make dev` and the tests call it.
//
// APIKey is NOT a secret and must never grant anything real: it is printed
// in this file and in every authenticated event under events/, it is a
// test-mode key (it can only ever see test-mode data), and only local
// tooling creates it, in DynamoDB Local tables. Never seed a deployed table.
const (
	// APIKey is the fixture partner's test-mode key, with all scopes.
	APIKey = "mk_test_0000000000000000000000000000000000000000000000000000000000000001"
	// KeyID names APIKey in listings.
	KeyID = "key_0000000000000001"
	// PartnerID is the fixture partner (default USD rate card).
	PartnerID = "ptn_0000000000000001"
	// PartnerName is the fixture partner's name.
	PartnerName = "Sample Movers (local fixture)"
	// LeadID is the fixture partner's one test-mode lead.
	LeadID = "00000000-0000-4000-8000-000000000001"

	// UnknownAPIKey is well formed but never created: it answers 401.
	UnknownAPIKey = "mk_test_0000000000000000000000000000000000000000000000000000000000000002"
	// UnknownLeadID is a UUID no lead has: it answers 404.
	UnknownLeadID = "00000000-0000-4000-8000-000000000002"
)

// SeededAt is when the fixture records say they were created.
var SeededAt = time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)

// Seed creates the fixture partner, its key APIKey and its lead LeadID in
// store's table, through the same store code the operator CLI and the API
// use. It fails, having written part of them, when any already exists:
// seed a fresh table.
func Seed(ctx context.Context, store *dynamo.Store) error {
	rc := estimate.DefaultRateCard("usd")
	err := store.CreatePartner(ctx, auth.Partner{ID: PartnerID, Name: PartnerName, RateCard: rc, CreatedAt: SeededAt})
	if err != nil {
		return fmt.Errorf("seed partner %s: %w", PartnerID, err)
	}
	err = store.CreateKey(ctx, auth.Key{
		KeyID: KeyID, Digest: auth.Digest(APIKey), PartnerID: PartnerID, Mode: auth.Test,
		Scopes: manifest.AllScopes, CreatedAt: SeededAt,
	})
	if err != nil {
		return fmt.Errorf("seed key %s: %w", KeyID, err)
	}
	l := lead.Build(LeadID, lead.CreateInput{
		CustomerName: "Grace Hopper", Email: "grace@example.com", Phone: "+15555550100",
		FromAddress: "1 Main St, New York, NY 10001", ToAddress: "9 Oak Ave, Boston, MA 02108",
		HomeSize: "2 bedroom", MoveDate: "2027-01-15", Source: "sample-fixture",
	}, rc, SeededAt)
	if err := store.PutLead(ctx, auth.Tenant{PartnerID: PartnerID, Mode: auth.Test}, l, false); err != nil {
		return fmt.Errorf("seed lead %s: %w", LeadID, err)
	}
	return nil
}
