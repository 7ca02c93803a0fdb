package pagecursor

import (
	"bytes"
	"encoding/base64"
	"errors"
	"strings"
	"testing"
)

var (
	cursorSecretA = bytes.Repeat([]byte("a"), 32)
	cursorSecretB = bytes.Repeat([]byte("b"), 32)
	cursorPos     = Position{At: "2026-03-01T12:00:00.000000Z", ID: "3f2b8c1e-8f4a-4b7e-9c1d-2a6b5e4f3d21"}
)

func newTestSigner(t testing.TB, secret []byte) *Signer {
	t.Helper()
	s, err := New(secret)
	if err != nil {
		t.Fatalf("New(%d bytes): %v", len(secret), err)
	}
	return s
}

func TestNewCursorSigner(t *testing.T) {
	tests := []struct {
		name    string
		secret  []byte
		wantErr bool
	}{
		{"nil", nil, true},
		{"empty", []byte{}, true},
		{"31 bytes", bytes.Repeat([]byte("x"), 31), true},
		{"32 bytes", bytes.Repeat([]byte("x"), 32), false},
		{"64 bytes", bytes.Repeat([]byte("x"), 64), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := New(tt.secret)
			if (err != nil) != tt.wantErr {
				t.Fatalf("New(%d bytes) error = %v; want error %v", len(tt.secret), err, tt.wantErr)
			}
			if (s == nil) != tt.wantErr {
				t.Errorf("New(%d bytes) signer = %v; want nil only with an error", len(tt.secret), s)
			}
		})
	}
}

func TestCursorRoundTrip(t *testing.T) {
	s := newTestSigner(t, cursorSecretA)
	tests := []struct {
		name          string
		partner, mode string
		pos           Position
	}{
		{"typical", "ptn_0123456789abcdef", "test", cursorPos},
		{"live mode", "ptn_0123456789abcdef", "live", cursorPos},
		{"unicode and punctuation", "ptn_é\"./", "test", Position{At: "x.y", ID: "a\"b\\c.d"}},
		{"empty partner", "", "live", cursorPos},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := s.Encode(Leads, tt.partner, tt.mode, tt.pos)
			if strings.Count(c, ".") != 1 {
				t.Errorf("Encode = %q; want exactly one dot", c)
			}
			got, err := s.Decode(Leads, tt.partner, tt.mode, c)
			if err != nil {
				t.Fatalf("Decode(Encode(%+v)): %v", tt.pos, err)
			}
			if got != tt.pos {
				t.Errorf("Decode(Encode(%+v)) = %+v; want the same", tt.pos, got)
			}
			if again := s.Encode(Leads, tt.partner, tt.mode, tt.pos); again != c {
				t.Errorf("Encode is not deterministic: %q then %q", c, again)
			}
		})
	}
	t.Run("same secret, another signer", func(t *testing.T) {
		c := s.Encode(Leads, "ptn_1", "test", cursorPos)
		other := newTestSigner(t, bytes.Clone(cursorSecretA))
		if got, err := other.Decode(Leads, "ptn_1", "test", c); err != nil || got != cursorPos {
			t.Errorf("Decode = %+v, %v; want %+v, nil", got, err, cursorPos)
		}
	})
}

// TestCursorDecodeRejectsEveryByteChange changes each byte of a valid cursor to
// every other byte value; none of the results may decode.
func TestCursorDecodeRejectsEveryByteChange(t *testing.T) {
	s := newTestSigner(t, cursorSecretA)
	c := s.Encode(Leads, "ptn_1", "test", cursorPos)
	for i := 0; i < len(c); i++ {
		for b := 0; b < 256; b++ {
			if byte(b) == c[i] {
				continue
			}
			m := c[:i] + string([]byte{byte(b)}) + c[i+1:]
			if got, err := s.Decode(Leads, "ptn_1", "test", m); err == nil {
				t.Errorf("byte %d changed %q→%q: Decode(%q) = %+v, nil; want ErrInvalid", i, c[i], byte(b), m, got)
			}
		}
	}
}

// TestCursorDecodeRejectsInsertions inserts bytes into and around a valid cursor:
// a cursor that is not byte for byte the one issued must not decode.
func TestCursorDecodeRejectsInsertions(t *testing.T) {
	s := newTestSigner(t, cursorSecretA)
	c := s.Encode(Leads, "ptn_1", "test", cursorPos)
	for i := 0; i <= len(c); i++ {
		for _, ins := range []string{"\n", "\r", "A", "=", "."} {
			m := c[:i] + ins + c[i:]
			if got, err := s.Decode(Leads, "ptn_1", "test", m); err == nil {
				t.Errorf("inserted %q at %d: Decode(%q) = %+v, nil; want ErrInvalid", ins, i, m, got)
			}
		}
	}
	for i := 0; i < len(c); i++ {
		m := c[:i] + c[i+1:]
		if got, err := s.Decode(Leads, "ptn_1", "test", m); err == nil {
			t.Errorf("deleted byte %d: Decode(%q) = %+v, nil; want ErrInvalid", i, m, got)
		}
	}
}

func TestCursorDecodeRejects(t *testing.T) {
	s := newTestSigner(t, cursorSecretA)
	valid := s.Encode(Leads, "ptn_1", "test", cursorPos)
	body, sig, _ := strings.Cut(valid, ".")
	// sign returns body.mac for an arbitrary body under cursorSecretA, to reach the
	// checks behind the signature.
	sign := func(payload string) string {
		b := base64.RawURLEncoding.EncodeToString([]byte(payload))
		return b + "." + base64.RawURLEncoding.EncodeToString(s.mac(b))
	}
	long := s.Encode(Leads, "ptn_1", "test", Position{At: cursorPos.At, ID: strings.Repeat("x", 800)})
	tests := []struct {
		name, partner, mode, cursor string
	}{
		{"another partner", "ptn_2", "test", valid},
		{"partner prefix", "ptn_", "test", valid},
		{"another mode", "ptn_1", "live", valid},
		{"another secret", "ptn_1", "test", newTestSigner(t, cursorSecretB).Encode(Leads, "ptn_1", "test", cursorPos)},
		{"empty", "ptn_1", "test", ""},
		{"dot only", "ptn_1", "test", "."},
		{"missing dot", "ptn_1", "test", body + sig},
		{"body only", "ptn_1", "test", body},
		{"body and dot", "ptn_1", "test", body + "."},
		{"signature only", "ptn_1", "test", "." + sig},
		{"two dots", "ptn_1", "test", body + "." + sig + "."},
		{"padded signature", "ptn_1", "test", valid + "=="},
		{"standard base64 signature", "ptn_1", "test", body + "." + base64.StdEncoding.EncodeToString([]byte(sig))},
		{"truncated signature", "ptn_1", "test", valid[:len(valid)-2]},
		{"garbage", "ptn_1", "test", "not-a-cursor"},
		{"garbage with dot", "ptn_1", "test", "abc.def"},
		{"non-ASCII", "ptn_1", "test", "é.é"},
		{"over-long but validly signed", "ptn_1", "test", long},
		{"signed non-JSON", "ptn_1", "test", sign("hello")},
		{"signed wrong version", "ptn_1", "test", sign(`{"v":2,"p":"ptn_1","m":"test","u":"x","l":"y"}`)},
		{"signed no version", "ptn_1", "test", sign(`{"p":"ptn_1","m":"test","u":"x","l":"y"}`)},
		{"signed empty updated_at", "ptn_1", "test", sign(`{"v":1,"p":"ptn_1","m":"test","u":"","l":"y"}`)},
		{"signed empty lead id", "ptn_1", "test", sign(`{"v":1,"p":"ptn_1","m":"test","u":"x"}`)},
		{"signed JSON array", "ptn_1", "test", sign(`[1]`)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := s.Decode(Leads, tt.partner, tt.mode, tt.cursor)
			if !errors.Is(err, ErrInvalid) {
				t.Errorf("Decode(%q, %q, %q) = %+v, %v; want ErrInvalid", tt.partner, tt.mode, tt.cursor, got, err)
			}
			if got != (Position{}) {
				t.Errorf("Decode(%q) position = %+v; want the zero Position", tt.cursor, got)
			}
		})
	}
	t.Run("over-long cursor is really over the limit", func(t *testing.T) {
		if len(long) <= 1024 {
			t.Fatalf("len(long) = %d; want > 1024 for the over-long case to mean anything", len(long))
		}
	})
}

func FuzzCursorDecode(f *testing.F) {
	s := newTestSigner(f, cursorSecretA)
	const partner, mode = "ptn_1", "test"
	valid := s.Encode(Leads, partner, mode, cursorPos)
	for _, c := range []string{
		valid, valid + "\n", valid[:len(valid)-1], "", ".", "a.b", "not-a-cursor", valid + "==",
		s.Encode(Leads, "ptn_2", mode, cursorPos), s.Encode(Leads, partner, "live", cursorPos),
		newTestSigner(f, cursorSecretB).Encode(Leads, partner, mode, cursorPos),
		strings.Replace(valid, ".", "\r.", 1),
	} {
		f.Add(c)
	}
	f.Fuzz(func(t *testing.T, c string) {
		got, err := s.Decode(Leads, partner, mode, c)
		if err != nil {
			if !errors.Is(err, ErrInvalid) || got != (Position{}) {
				t.Errorf("Decode(%q) = %+v, %v; want the zero Position and ErrInvalid", c, got, err)
			}
			return
		}
		if got.At == "" || got.ID == "" {
			t.Errorf("Decode(%q) = %+v; want both fields set", c, got)
		}
		// Only a cursor this signer issued to this tenant may decode, and
		// issuing is deterministic: re-encoding must give back the input.
		if again := s.Encode(Leads, partner, mode, got); again != c {
			t.Errorf("Decode(%q) = %+v, nil; but Encode of that position is %q: a cursor that was not issued decoded", c, got, again)
		}
	})
}

// TestCursorKindBinding: a cursor of one listing never decodes as another
// listing's, and leads' cursors (issued before kinds existed, no "k") keep
// decoding as leads'.
func TestCursorKindBinding(t *testing.T) {
	s := newTestSigner(t, cursorSecretA)
	leads := s.Encode(Leads, "ptn_1", "test", cursorPos)
	events := s.Encode(Events, "ptn_1", "test", cursorPos)
	if got, err := s.Decode(Events, "ptn_1", "test", leads); !errors.Is(err, ErrInvalid) {
		t.Errorf("Decode(Events, a leads cursor) = %+v, %v; want ErrInvalid", got, err)
	}
	if got, err := s.Decode(Leads, "ptn_1", "test", events); !errors.Is(err, ErrInvalid) {
		t.Errorf("Decode(Leads, an events cursor) = %+v, %v; want ErrInvalid", got, err)
	}
	if got, err := s.Decode(Events, "ptn_1", "test", events); err != nil || got != cursorPos {
		t.Errorf("Decode(Events, an events cursor) = %+v, %v; want %+v, nil", got, err, cursorPos)
	}
	// The leads cursor's payload as it was before kinds: no "k" field.
	body, _, _ := strings.Cut(leads, ".")
	raw, _ := base64.RawURLEncoding.DecodeString(body)
	if strings.Contains(string(raw), `"k"`) {
		t.Errorf("leads cursor payload %s has a kind; want none, as issued before kinds", raw)
	}
}

func FuzzEventsCursorDecode(f *testing.F) {
	s := newTestSigner(f, cursorSecretA)
	const partner, mode = "ptn_1", "live"
	valid := s.Encode(Events, partner, mode, cursorPos)
	for _, c := range []string{valid, s.Encode(Leads, partner, mode, cursorPos), s.Encode(Events, partner, "test", cursorPos), "", ".", valid + "x"} {
		f.Add(c)
	}
	f.Fuzz(func(t *testing.T, c string) {
		got, err := s.Decode(Events, partner, mode, c)
		if err != nil {
			if !errors.Is(err, ErrInvalid) || got != (Position{}) {
				t.Errorf("Decode(%q) = %+v, %v; want the zero Position and ErrInvalid", c, got, err)
			}
			return
		}
		if again := s.Encode(Events, partner, mode, got); again != c {
			t.Errorf("Decode(%q) = %+v, nil; but Encode of that position is %q: a cursor that was not issued decoded", c, got, again)
		}
	})
}
