package leads

// listLeads' opaque pagination cursors: a position in the (updated_at,
// lead_id) order, bound to the partner and mode that received it and
// signed with HMAC-SHA256, so a modified cursor or one minted for another
// tenant is rejected instead of revealing other data.

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"

	"github.com/moveleads/partnerapi/shared/domain/lead"
)

// errInvalidCursor is returned for any cursor that does not verify.
var errInvalidCursor = errors.New("invalid cursor")

type cursorPayload struct {
	V         int    `json:"v"`
	PartnerID string `json:"p"`
	Mode      string `json:"m"`
	UpdatedAt string `json:"u"`
	LeadID    string `json:"l"`
}

const cursorMACLen = 16

// cursorSigner mints and verifies cursors with one secret.
type cursorSigner struct{ secret []byte }

// newCursorSigner returns a cursorSigner; secret must be at least 32 bytes.
func newCursorSigner(secret []byte) (*cursorSigner, error) {
	if len(secret) < 32 {
		return nil, errors.New("cursor secret must be at least 32 bytes")
	}
	return &cursorSigner{secret: secret}, nil
}

// Encode returns the cursor for pos, bound to partnerID and mode.
func (s *cursorSigner) Encode(partnerID, mode string, pos lead.Position) string {
	b, _ := json.Marshal(cursorPayload{V: 1, PartnerID: partnerID, Mode: mode, UpdatedAt: pos.UpdatedAt, LeadID: pos.LeadID})
	body := base64.RawURLEncoding.EncodeToString(b)
	return body + "." + base64.RawURLEncoding.EncodeToString(s.mac(body))
}

// Decode verifies c and returns its position. It returns errInvalidCursor
// when c is malformed, was modified, or was minted for another partner or
// mode.
func (s *cursorSigner) Decode(partnerID, mode, c string) (lead.Position, error) {
	body, sig, ok := strings.Cut(c, ".")
	if !ok || len(c) > 1024 {
		return lead.Position{}, errInvalidCursor
	}
	if !hmac.Equal([]byte(sig), []byte(base64.RawURLEncoding.EncodeToString(s.mac(body)))) {
		return lead.Position{}, errInvalidCursor
	}
	raw, err := base64.RawURLEncoding.DecodeString(body)
	if err != nil {
		return lead.Position{}, errInvalidCursor
	}
	var p cursorPayload
	if err := json.Unmarshal(raw, &p); err != nil || p.V != 1 ||
		p.PartnerID != partnerID || p.Mode != mode || p.UpdatedAt == "" || p.LeadID == "" {
		return lead.Position{}, errInvalidCursor
	}
	return lead.Position{UpdatedAt: p.UpdatedAt, LeadID: p.LeadID}, nil
}

func (s *cursorSigner) mac(body string) []byte {
	m := hmac.New(sha256.New, s.secret)
	m.Write([]byte(body))
	return m.Sum(nil)[:cursorMACLen]
}
