package record

import (
	"reflect"
	"testing"
	"time"

	"github.com/moveleads/partnerapi/shared/domain/quote"
)

// TestQuoteRefSummary: getLead's quote object reports an open quote at or
// past its expiry as expired, and an accepted or signed one as it is,
// whatever the time.
func TestQuoteRefSummary(t *testing.T) {
	exp := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	at := exp.Add(-48 * time.Hour)
	tests := []struct {
		name string
		ref  QuoteRef
		now  time.Time
		want quote.Summary
	}{
		{"open", QuoteRef{QuoteID: "q1", Stage: quote.StageOpen, ExpiresAt: exp}, exp.Add(-time.Nanosecond),
			quote.Summary{QuoteID: "q1", Stage: quote.StageOpen}},
		{"open at its expiry", QuoteRef{QuoteID: "q1", Stage: quote.StageOpen, ExpiresAt: exp}, exp,
			quote.Summary{QuoteID: "q1", Stage: quote.StageExpired}},
		{"accepted, past its expiry", QuoteRef{QuoteID: "q1", Stage: quote.StageAccepted, ExpiresAt: exp, AcceptedAt: &at}, exp.Add(time.Hour),
			quote.Summary{QuoteID: "q1", Stage: quote.StageAccepted, AcceptedAt: &at}},
		{"signed", QuoteRef{QuoteID: "q1", Stage: quote.StageSigned, ExpiresAt: exp, AcceptedAt: &at, SignedAt: &at}, at,
			quote.Summary{QuoteID: "q1", Stage: quote.StageSigned, AcceptedAt: &at, SignedAt: &at}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.ref.Summary(tt.now); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Summary(%s) = %+v; want %+v", tt.now, got, tt.want)
			}
		})
	}
}
