package videolink

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/moveleads/partnerapi/shared/domain/errcode"
)

func TestParseRequest(t *testing.T) {
	label120 := strings.Repeat("é", 120)
	tests := []struct {
		body       string
		wantTTL    time.Duration
		wantCapped bool
		wantLabel  string
		wantCode   errcode.Code
		wantField  string
	}{
		{body: "", wantTTL: 72 * time.Hour},
		{body: "  \n", wantTTL: 72 * time.Hour},
		{body: "{}", wantTTL: 72 * time.Hour},
		{body: `{"ttl_hours": 24}`, wantTTL: 24 * time.Hour},
		{body: `{"ttl_hours": 1.5}`, wantTTL: 90 * time.Minute},
		{body: `{"ttl_hours": 168}`, wantTTL: 168 * time.Hour},
		{body: `{"ttl_hours": 168.5}`, wantTTL: 168 * time.Hour, wantCapped: true},
		{body: `{"ttl_hours": 500}`, wantTTL: 168 * time.Hour, wantCapped: true},
		{body: `{"ttl_hours": 1e400}`, wantTTL: 168 * time.Hour, wantCapped: true},
		{body: `{"ttl_hours": 0.0003}`, wantTTL: time.Second},
		{body: `{"label": "` + label120 + `", "ttl_hours": 2}`, wantTTL: 2 * time.Hour, wantLabel: label120},
		{body: `{"ttl_hours": 0}`, wantCode: errcode.ValidationFailed, wantField: "ttl_hours"},
		{body: `{"ttl_hours": -1}`, wantCode: errcode.ValidationFailed, wantField: "ttl_hours"},
		{body: `{"ttl_hours": -1e400}`, wantCode: errcode.ValidationFailed, wantField: "ttl_hours"},
		{body: `{"ttl_hours": 1e-400}`, wantCode: errcode.ValidationFailed, wantField: "ttl_hours"},
		{body: `{"ttl_hours": 0.0001}`, wantCode: errcode.ValidationFailed, wantField: "ttl_hours"},
		{body: `{"ttl_hours": "72"}`, wantCode: errcode.ValidationFailed, wantField: "ttl_hours"},
		{body: `{"ttl_hours": null}`, wantCode: errcode.ValidationFailed, wantField: "ttl_hours"},
		{body: `{"ttl_hours": true}`, wantCode: errcode.ValidationFailed, wantField: "ttl_hours"},
		{body: `{"ttl_hours": [1]}`, wantCode: errcode.ValidationFailed, wantField: "ttl_hours"},
		{body: `{"label": "` + strings.Repeat("a", 121) + `"}`, wantCode: errcode.ValidationFailed, wantField: "label"},
		{body: `{"label": "two\nlines"}`, wantCode: errcode.ValidationFailed, wantField: "label"},
		{body: `{"label": 7}`, wantCode: errcode.ValidationFailed, wantField: "label"},
		{body: `{"ttl": 7}`, wantCode: errcode.ValidationFailed, wantField: "ttl"},
		{body: `[]`, wantCode: errcode.InvalidJSON},
		{body: `null`, wantCode: errcode.InvalidJSON},
		{body: `{"ttl_hours": 1`, wantCode: errcode.InvalidJSON},
	}
	for _, tt := range tests {
		t.Run(tt.body, func(t *testing.T) {
			got, err := ParseRequest([]byte(tt.body))
			if tt.wantCode != "" {
				e := errcode.As(err)
				if e == nil || e.Code != tt.wantCode {
					t.Fatalf("ParseRequest = %+v, %v; want %s", got, err, tt.wantCode)
				}
				if tt.wantField != "" {
					fields, _ := e.Details["fields"].(map[string]any)
					if _, ok := fields[tt.wantField]; !ok {
						t.Errorf("details.fields = %v; want %s named", e.Details["fields"], tt.wantField)
					}
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseRequest: %v", err)
			}
			if got.TTL != tt.wantTTL || got.Capped != tt.wantCapped || got.Label != tt.wantLabel {
				t.Errorf("ParseRequest = %+v; want TTL %s, capped %v, label %q", got, tt.wantTTL, tt.wantCapped, tt.wantLabel)
			}
		})
	}
}

func TestParseRevokeBody(t *testing.T) {
	for _, ok := range []string{"", " ", "{}", " { } "} {
		if err := ParseRevokeBody([]byte(ok)); err != nil {
			t.Errorf("ParseRevokeBody(%q) = %v; want nil", ok, err)
		}
	}
	for body, code := range map[string]errcode.Code{
		`{"grant_id": "x"}`: errcode.ValidationFailed,
		`[]`:                errcode.InvalidJSON,
		`"all"`:             errcode.InvalidJSON,
	} {
		if e := errcode.As(ParseRevokeBody([]byte(body))); e == nil || e.Code != code {
			t.Errorf("ParseRevokeBody(%q) = %v; want %s", body, e, code)
		}
	}
}

func TestEntry(t *testing.T) {
	e := Entry{GrantID: "3f1c2d4e-0000-4000-8000-000000000001", ExpiresAt: time.Unix(1_800_000_000, 0).UTC()}
	back, err := ParseEntry(e.String())
	if err != nil || back != e {
		t.Fatalf("ParseEntry(%q) = %+v, %v; want %+v", e.String(), back, err, e)
	}
	for _, bad := range []string{"", "x", "|1", "x|", "x|y", "x|1.5"} {
		if _, err := ParseEntry(bad); err == nil {
			t.Errorf("ParseEntry(%q) = nil error; want one", bad)
		}
	}
	now := time.Unix(1_800_000_000, 0)
	s := Set{Entries: []Entry{{"a", now.Add(-time.Second)}, {"b", now}, {"c", now.Add(time.Second)}}}
	if live := s.Live(now); len(live) != 1 || live[0].GrantID != "c" {
		t.Errorf("Live = %+v; want only c (a and b have expired at now)", live)
	}
	g := Grant{ExpiresAt: now.Add(time.Hour)}
	if !g.Live(true, now) || g.Live(false, now) || g.Live(true, now.Add(time.Hour)) {
		t.Error("Grant.Live: want live only in the set and before expiry")
	}
}

func TestTruncateAddress(t *testing.T) {
	for in, want := range map[string]string{
		"203.0.113.77":                   "203.0.113.0",
		"::ffff:203.0.113.77":            "203.0.113.0",
		"2001:db8:1:2:3:4:5:6":           "2001:db8:1::",
		"fe80::1%eth0":                   "fe80::",
		" 198.51.100.9 ":                 "198.51.100.0",
		"not an address":                 "",
		"":                               "",
		"203.0.113.77:443":               "",
		"2001:db8:1:2:3:4:5:6:7:8:9:1:2": "",
	} {
		if got := TruncateAddress(in); got != want {
			t.Errorf("TruncateAddress(%q) = %q; want %q", in, got, want)
		}
	}
}

func TestTruncateUserAgent(t *testing.T) {
	long := strings.Repeat("é", 200) // 400 bytes
	got := TruncateUserAgent(long)
	if len(got) > MaxUserAgentLen || !utf8.ValidString(got) || len(got) < MaxUserAgentLen-1 {
		t.Errorf("TruncateUserAgent(400 bytes) = %d bytes, valid %v; want at most %d valid bytes", len(got), utf8.ValidString(got), MaxUserAgentLen)
	}
	if got := TruncateUserAgent("Mozilla\r\nX: 1\x00"); got != "Mozilla  X: 1 " {
		t.Errorf("TruncateUserAgent with control characters = %q", got)
	}
	if got := TruncateUserAgent("bad \xff byte"); got != "bad \uFFFD byte" {
		t.Errorf("TruncateUserAgent with invalid UTF-8 = %q", got)
	}
}

func TestNote(t *testing.T) {
	exp := time.Date(2026, 11, 26, 9, 30, 0, 0, time.UTC)
	n := Note(3, exp)
	for _, want := range []string{"3 playable clips", "2026-11-26 09:30 UTC", "revoke", "20 times an hour"} {
		if !strings.Contains(n, want) {
			t.Errorf("Note = %q; want it to contain %q", n, want)
		}
	}
	if strings.Count(n, ".") != 1 || !strings.HasSuffix(n, ".") {
		t.Errorf("Note = %q; want one sentence", n)
	}
	if n := Note(1, exp); !strings.Contains(n, "1 playable clip,") {
		t.Errorf("Note(1) = %q; want the singular", n)
	}
}

// FuzzParseRequest: any body either fails with a 422 code or yields a
// lifetime in [1s, MaxTTL] in whole seconds and a label within the limits.
func FuzzParseRequest(f *testing.F) {
	for _, s := range []string{"", "{}", `{"ttl_hours":500}`, `{"ttl_hours":-0}`, `{"label":"x","ttl_hours":1e308}`, `{"ttl_hours":0.000277}`, `{"ttl_hours":1,"ttl_hours":2}`, `{"label":"\u0085"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		r, err := ParseRequest(body)
		if err != nil {
			e := errcode.As(err)
			if e == nil || errcode.Status(e.Code) != 422 {
				t.Fatalf("ParseRequest(%q) = %v; want a 422 error", body, err)
			}
			return
		}
		if r.TTL < time.Second || r.TTL > MaxTTL || r.TTL%time.Second != 0 {
			t.Fatalf("ParseRequest(%q).TTL = %s; want whole seconds in [1s, %s]", body, r.TTL, MaxTTL)
		}
		if utf8.RuneCountInString(r.Label) > MaxLabelLen || !utf8.ValidString(r.Label) {
			t.Fatalf("ParseRequest(%q).Label = %q; want at most %d valid characters", body, r.Label, MaxLabelLen)
		}
	})
}
