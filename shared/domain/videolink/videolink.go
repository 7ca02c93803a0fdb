// Package videolink holds the rules of forwardable video links
// (createSurveyVideoAccess, revokeSurveyVideoAccess and the viewer page),
// free of HTTP and AWS: the request body, the limits, the grant and its
// liveness, and the open log's records.
//
// A video link is a grant on one survey: a secret token (the same form as
// a capture token: 256 bits from crypto/rand, base64url; see
// linktoken.New), of which only the SHA-256 is stored. A grant is live
// while it is in its survey's live set and has not expired; revoking takes
// every grant out of the set at once (see Live). The set lives on the
// survey item, so a mint and a revoke of one survey are ordered by
// DynamoDB's conditional writes on that one item: a revoke's answer counts
// exactly the grants it closed, and a grant minted after it stays live.
package videolink

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/domain/errcode"
)

// Limits of video links (the spec's limits table), and of what the service
// keeps.
const (
	// DefaultTTL is a link's lifetime when the request names none.
	DefaultTTL = 72 * time.Hour
	// MaxTTL caps a link's lifetime: a longer ttl_hours is capped, not
	// refused.
	MaxTTL = 168 * time.Hour
	// MaxLabelLen is the longest label, in characters (Unicode code
	// points).
	MaxLabelLen = 120
	// OpensPerHour is how often one link may be opened in any OpenWindow
	// (a sliding window, not the clock hour); the next open answers 429
	// until the oldest of those opens is OpenWindow old.
	OpensPerHour = 20
	// OpenWindow is the span OpensPerHour counts in.
	OpenWindow = time.Hour
	// AddressTTL is how long each clip address (a presigned S3 GET) on the
	// viewer page lives: a page loaded before a revoke keeps playing for
	// up to this long.
	AddressTTL = 10 * time.Minute
	// MaxLive is how many links may be live on one survey at once. It
	// bounds the survey item's live set and keeps a revoke within one
	// DynamoDB transaction (100 items: the survey and each grant).
	MaxLive = 50
)

// Request is createSurveyVideoAccess's body, parsed.
type Request struct {
	// TTL is the link's lifetime: DefaultTTL, or ttl_hours capped at
	// MaxTTL, in whole seconds.
	TTL time.Duration
	// Capped reports that ttl_hours asked for more than MaxTTL.
	Capped bool
	// Label is the partner's note for the audit trail ("" when none).
	Label string
}

// ParseRequest reads createSurveyVideoAccess's optional body: empty, or a
// JSON object with at most ttl_hours (a number above 0; more than 168 is
// capped at 168) and label (a string of at most 120 characters without
// control characters). Any other property, a ttl_hours that is zero,
// negative, not a number or too small to last a second, or a label too
// long fails with validation_failed naming each field; a body that is not
// a JSON object fails with invalid_json.
func ParseRequest(body []byte) (Request, error) {
	req := Request{TTL: DefaultTTL}
	if strings.TrimSpace(string(body)) == "" {
		return req, nil
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(body, &fields); err != nil || fields == nil {
		return Request{}, errcode.New(errcode.InvalidJSON, "The request body must be a JSON object (or empty).")
	}
	fe := errcode.FieldErrors{}
	for name, raw := range fields {
		switch name {
		case "ttl_hours":
			ttl, capped, msg := parseTTL(raw)
			if msg != "" {
				fe.Add(name, msg)
				continue
			}
			req.TTL, req.Capped = ttl, capped
		case "label":
			label, msg := parseLabel(raw)
			if msg != "" {
				fe.Add(name, msg)
				continue
			}
			req.Label = label
		default:
			fe.Add(name, "is not a field of this request; the body may hold only ttl_hours and label")
		}
	}
	if err := fe.Err(); err != nil {
		return Request{}, err
	}
	return req, nil
}

// parseTTL reads ttl_hours: a JSON number above 0. It returns the lifetime
// in whole seconds, capped at MaxTTL, or a message for the client.
func parseTTL(raw json.RawMessage) (time.Duration, bool, string) {
	const want = "must be a number of hours above 0 (default 72; more than 168 is capped at 168)"
	s := strings.TrimSpace(string(raw))
	if s == "" || !(s[0] == '-' || '0' <= s[0] && s[0] <= '9') {
		return 0, false, want // a string, boolean, null, object or array
	}
	h, err := strconv.ParseFloat(s, 64)
	if err != nil && !isRangeErr(err) {
		return 0, false, want
	}
	switch {
	case math.IsNaN(h) || h <= 0:
		return 0, false, want
	case h*3600 > MaxTTL.Seconds(): // also +Inf from a huge exponent
		return MaxTTL, true, ""
	}
	secs := int64(h * 3600)
	if secs < 1 {
		return 0, false, "must be at least one second (1/3600 of an hour)"
	}
	return time.Duration(secs) * time.Second, false, ""
}

func isRangeErr(err error) bool {
	ne, ok := err.(*strconv.NumError)
	return ok && ne.Err == strconv.ErrRange
}

// parseLabel reads label: a JSON string of at most MaxLabelLen characters
// without control characters (it is shown in operators' terminals).
func parseLabel(raw json.RawMessage) (string, string) {
	var label string
	if err := json.Unmarshal(raw, &label); err != nil {
		return "", fmt.Sprintf("must be a string of at most %d characters", MaxLabelLen)
	}
	if n := utf8.RuneCountInString(label); n > MaxLabelLen {
		return "", fmt.Sprintf("must be at most %d characters (got %d)", MaxLabelLen, n)
	}
	if strings.IndexFunc(label, unicode.IsControl) >= 0 {
		return "", "must not contain control characters (line breaks, tabs)"
	}
	return label, ""
}

// ParseRevokeBody reads revokeSurveyVideoAccess's body, which must be empty
// or an empty JSON object: a revoke closes every live link of the survey,
// so a body naming anything (a grant id, a label) would suggest otherwise
// and answers 422 rather than being ignored.
func ParseRevokeBody(body []byte) error {
	if strings.TrimSpace(string(body)) == "" {
		return nil
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(body, &fields); err != nil || fields == nil {
		return errcode.New(errcode.InvalidJSON, "The request body must be empty (or {}).")
	}
	fe := errcode.FieldErrors{}
	for name := range fields {
		fe.Add(name, "is not a field of this request: revoke takes no body and closes every live link of the survey")
	}
	return fe.Err()
}

// Grant is one video link of a survey, as the audit trail keeps it.
type Grant struct {
	ID        string
	SurveyID  string
	Label     string
	TokenHash string // linktoken.Hash of the link's token; never the token
	CreatedAt time.Time
	ExpiresAt time.Time
	// RevokedAt is when a revoke closed the grant (zero: never). A grant
	// that expired before any revoke keeps it zero.
	RevokedAt time.Time
}

// Live reports whether g can still be opened at now, given whether it is
// in its survey's live set (the set a revoke empties).
func (g Grant) Live(inSet bool, now time.Time) bool { return inSet && now.Before(g.ExpiresAt) }

// Entry is a grant's member of its survey's live set: its id and expiry,
// so that a revoke counts the live ones without reading each grant.
type Entry struct {
	GrantID   string
	ExpiresAt time.Time // whole seconds
}

// String is the entry as stored: "<grant_id>|<expiry, epoch seconds>".
func (e Entry) String() string {
	return e.GrantID + "|" + strconv.FormatInt(e.ExpiresAt.Unix(), 10)
}

// ParseEntry reads an entry as stored.
func ParseEntry(s string) (Entry, error) {
	id, exp, ok := strings.Cut(s, "|")
	n, err := strconv.ParseInt(exp, 10, 64)
	if !ok || id == "" || err != nil {
		return Entry{}, fmt.Errorf("videolink: live-set entry %q: want <grant_id>|<epoch seconds>", s)
	}
	return Entry{GrantID: id, ExpiresAt: time.Unix(n, 0).UTC()}, nil
}

// Set is a survey's live set as read, with the version that orders writes
// to it (each mint and revoke adds one).
type Set struct {
	Entries []Entry
	Version int64
}

// Live returns the entries that have not expired at now.
func (s Set) Live(now time.Time) []Entry {
	var out []Entry
	for _, e := range s.Entries {
		if now.Before(e.ExpiresAt) {
			out = append(out, e)
		}
	}
	return out
}

// ErrClosed is the cause of an open's error when the link is no longer in
// its survey's live set: revoked, or the survey is gone.
var ErrClosed = errors.New("videolink: link revoked")

// View is what a video link's token resolves to.
type View struct {
	Tenant   auth.Tenant
	SurveyID string
	GrantID  string
	// ExpiresAt is when the link stops working (whole seconds).
	ExpiresAt time.Time
	// TokenHash is the hash it was found by.
	TokenHash string
	// Opens are the link's recent opens as read (at most OpensPerHour;
	// see Admit), and OpensVersion the store's version of them, which
	// every counted open moves.
	Opens        []time.Time
	OpensVersion int64
}

// Entry is v's member of its survey's live set.
func (v View) Entry() Entry { return Entry{GrantID: v.GrantID, ExpiresAt: v.ExpiresAt} }

// Admit decides an open at now of a link whose recent opens are recent
// (in any order), at most limit in any OpenWindow: an open counts while it
// is less than OpenWindow old, so one exactly OpenWindow after the oldest
// is admitted. It returns the recent opens to keep if now is admitted
// (those still counting, and now, oldest first: at most limit) and the
// usage: Reset is the epoch second (rounded up) at which the oldest open
// kept stops counting, for a refused open the one at which an open would
// be admitted again.
func Admit(recent []time.Time, now time.Time, limit int) ([]time.Time, auth.Usage) {
	counting := make([]time.Time, 0, len(recent)+1)
	for _, t := range recent {
		if now.Sub(t) < OpenWindow {
			counting = append(counting, t)
		}
	}
	slices.SortFunc(counting, time.Time.Compare)
	u := auth.Usage{Limit: limit, Period: "hour"}
	if limit < 1 {
		u.Reset = ceilUnix(now.Add(OpenWindow))
		return counting, u
	}
	if n := len(counting); n >= limit {
		u.Reset = ceilUnix(counting[n-limit].Add(OpenWindow))
		return counting, u
	}
	counting = append(counting, now)
	slices.SortFunc(counting, time.Time.Compare)
	u.Admitted, u.Remaining, u.Reset = true, limit-len(counting), ceilUnix(counting[0].Add(OpenWindow))
	return counting, u
}

// ceilUnix is t in epoch seconds, rounded up: a Retry-After from it never
// comes early.
func ceilUnix(t time.Time) int64 {
	if t.Nanosecond() > 0 {
		return t.Unix() + 1
	}
	return t.Unix()
}

// Opening is one open of a link, as the open log keeps it.
type Opening struct {
	GrantID   string
	At        time.Time
	UserAgent string // truncated to MaxUserAgentLen bytes of valid UTF-8
	Client    string // the client's address, truncated (TruncateAddress)
}

// MaxUserAgentLen bounds the user agent kept for an open.
const MaxUserAgentLen = 256

// TruncateUserAgent keeps at most MaxUserAgentLen bytes of ua, cut at a
// character boundary, with control characters replaced by spaces.
func TruncateUserAgent(ua string) string {
	ua = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, strings.ToValidUTF8(ua, "\uFFFD"))
	if len(ua) <= MaxUserAgentLen {
		return ua
	}
	cut := MaxUserAgentLen
	for cut > 0 && !utf8.RuneStart(ua[cut]) {
		cut--
	}
	return ua[:cut]
}

// Note is the response's one sentence on what a link allows and when it
// ends.
func Note(clips int, expires time.Time) string {
	noun := "clips"
	if clips == 1 {
		noun = "clip"
	}
	return fmt.Sprintf("Anyone with this link can watch the survey's %d playable %s, without an account, until %s UTC unless you revoke it first; each open is recorded and a link opens at most %d times an hour.",
		clips, noun, expires.UTC().Format("2006-01-02 15:04"), OpensPerHour)
}

// TruncateAddress keeps the network part of a client's IP address, as
// analytics tools anonymise them: the first three bytes of an IPv4 address
// (a /24, "203.0.113.0") and the first six of an IPv6 one (a /48,
// "2001:db8:1::"). Enough to tell a carrier's office from elsewhere, not
// to name a household. Anything that is not an IP address is "".
func TruncateAddress(ip string) string {
	a, err := netip.ParseAddr(strings.TrimSpace(ip))
	if err != nil {
		return ""
	}
	a = a.Unmap().WithZone("")
	bits := 48
	if a.Is4() {
		bits = 24
	}
	p, err := a.Prefix(bits)
	if err != nil {
		return ""
	}
	return p.Addr().String()
}
