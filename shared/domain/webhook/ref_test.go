package webhook

import (
	"strings"
	"testing"
	"time"
)

func TestRefRoundTrip(t *testing.T) {
	at := time.Date(2026, 3, 1, 12, 0, 0, 123456789, time.UTC)
	d := Delivery{EndpointID: "we_abc", Event: Event{ID: "evt_9f1c-2a_survey.completed", At: at}, Attempts: 1}
	r := RefOf(d)
	got, err := ParseRef(r.Body())
	if err != nil {
		t.Fatal(err)
	}
	if got != r || !got.EventAt.Equal(at) || got.ID() != d.ID() {
		t.Errorf("ParseRef(Body()) = %+v; want %+v", got, r)
	}
}

func TestParseRefRefuses(t *testing.T) {
	ok := `{"endpoint_id":"we_a","event_id":"evt_b","event_at":"2026-03-01T12:00:00Z","attempts":0}`
	if _, err := ParseRef(ok); err != nil {
		t.Fatalf("valid body: %v", err)
	}
	for name, body := range map[string]string{
		"empty":          ``,
		"not json":       `hello`,
		"array":          `[]`,
		"unknown field":  strings.Replace(ok, `"attempts"`, `"extra":1,"attempts"`, 1),
		"trailing data":  ok + `{}`,
		"no endpoint":    strings.Replace(ok, `"we_a"`, `""`, 1),
		"wrong prefix":   strings.Replace(ok, `"we_a"`, `"ep_a"`, 1),
		"bad character":  strings.Replace(ok, `"evt_b"`, `"evt_b#x"`, 1),
		"no time":        strings.Replace(ok, `"2026-03-01T12:00:00Z"`, `"0001-01-01T00:00:00Z"`, 1),
		"bad time":       strings.Replace(ok, `"2026-03-01T12:00:00Z"`, `"yesterday"`, 1),
		"negative count": strings.Replace(ok, `"attempts":0`, `"attempts":-1`, 1),
		"huge count":     strings.Replace(ok, `"attempts":0`, `"attempts":1000`, 1),
		"too long":       strings.Replace(ok, `"we_a"`, `"we_`+strings.Repeat("a", 2000)+`"`, 1),
	} {
		if r, err := ParseRef(body); err == nil {
			t.Errorf("%s: ParseRef(%.80q) = %+v; want an error", name, body, r)
		}
	}
}

// FuzzParseRef: a queue message body either parses into a Ref that
// round-trips through Body, or is refused; never a panic.
func FuzzParseRef(f *testing.F) {
	f.Add(`{"endpoint_id":"we_a","event_id":"evt_b","event_at":"2026-03-01T12:00:00Z","attempts":0}`)
	f.Add(`{"endpoint_id":"we_a","event_id":"evt_b","event_at":"2026-03-01T12:00:00.5+02:00","attempts":3} `)
	f.Add(`{}`)
	f.Add(`null`)
	f.Fuzz(func(t *testing.T, body string) {
		r, err := ParseRef(body)
		if err != nil {
			return
		}
		again, err := ParseRef(r.Body())
		if err != nil {
			t.Fatalf("ParseRef(%q) = %+v, whose Body does not parse: %v", body, r, err)
		}
		if again.EndpointID != r.EndpointID || again.EventID != r.EventID || !again.EventAt.Equal(r.EventAt) || again.Attempts != r.Attempts {
			t.Fatalf("round trip %+v → %+v", r, again)
		}
	})
}
