// This file makes quote page links: the token (a capture-style token from
// linktoken.New, so linktoken.Parse reads it), the record that keeps
// only its hash, and the URL. The deposit functions mint them too, for the
// page Stripe sends the customer back to.

package quotes

import (
	"fmt"
	"strings"
	"time"

	"github.com/moveleads/partnerapi/shared/app/record"
	"github.com/moveleads/partnerapi/shared/domain/linktoken"
)

// TokenAfterExpiry is how long a quote page link keeps opening after the
// quote's own expiry, so a customer who accepted can come back to the
// page (its deposit, its receipt) for a while. An expired quote's page
// says it can no longer be accepted.
const TokenAfterExpiry = 30 * 24 * time.Hour

// PagePath is the path of the quote page of token, under the API's public
// origin.
func PagePath(token string) string { return "/v1-quote/" + token }

// PageURL is the quote page of token under base (the public origin).
func PageURL(base, token string) string { return strings.TrimRight(base, "/") + PagePath(token) }

// NewPageToken mints a quote page token for quote quoteID of lead leadID,
// valid until expiresAt: the token (for the URL only) and its record
// (which holds only its hash).
func NewPageToken(leadID, quoteID string, now, expiresAt time.Time) (string, record.PageToken, error) {
	token, err := linktoken.New()
	if err != nil {
		return "", record.PageToken{}, fmt.Errorf("quote page token: %w", err)
	}
	return token, record.PageToken{Hash: linktoken.Hash(token), LeadID: leadID, QuoteID: quoteID, IssuedAt: now, ExpiresAt: expiresAt}, nil
}
