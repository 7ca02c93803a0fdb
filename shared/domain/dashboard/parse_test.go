package dashboard

import (
	"strings"
	"testing"
	"time"

	"github.com/moveleads/partnerapi/shared/domain/linktoken"
)

func TestParseSessionCookie(t *testing.T) {
	tok, _ := linktoken.New()
	for _, tc := range []struct {
		name    string
		headers []string
		ok      bool
	}{
		{"alone", []string{CookieName + "=" + tok}, true},
		{"among others", []string{"a=1; " + CookieName + "=" + tok + "; b=2"}, true},
		{"in a second header", []string{"a=1", CookieName + "=" + tok}, true},
		{"none", []string{"a=1"}, false},
		{"twice", []string{CookieName + "=" + tok + "; " + CookieName + "=" + tok}, false},
		{"not a token", []string{CookieName + "=../../x"}, false},
		{"empty", []string{CookieName + "="}, false},
		{"other name", []string{"dashboard_session=" + tok}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, hash, ok := ParseSessionCookie(tc.headers)
			if ok != tc.ok || ok && (got != tok || len(hash) != 64) {
				t.Errorf("ParseSessionCookie(%q) = %q, %q, %v; want ok %v", tc.headers, got, hash, ok, tc.ok)
			}
		})
	}
}

func TestCSRFIsBoundToItsSession(t *testing.T) {
	a, _ := linktoken.New()
	b, _ := linktoken.New()
	if !CheckCSRF(a, CSRF(a)) {
		t.Error("a session's own CSRF token is refused")
	}
	for _, sent := range []string{"", CSRF(b), CSRF(a)[1:], strings.ToUpper(CSRF(a))} {
		if CheckCSRF(a, sent) {
			t.Errorf("CheckCSRF(a, %q) = true; want false", sent)
		}
	}
	if CheckCSRF("", CSRF("")) {
		t.Error("no session, yet a CSRF token passes")
	}
}

func TestParseForm(t *testing.T) {
	f, ok := ParseForm([]byte("csrf_token=abc&mode=live"))
	if !ok || f["csrf_token"] != "abc" || f["mode"] != "live" {
		t.Errorf("ParseForm = %v, %v", f, ok)
	}
	for _, bad := range []string{"a=1&a=2", "a=%zz", "%zz=1"} {
		if _, ok := ParseForm([]byte(bad)); ok {
			t.Errorf("ParseForm(%q) accepted", bad)
		}
	}
	var many []string
	for i := range 40 {
		many = append(many, "f"+strings.Repeat("x", i)+"=1")
	}
	if _, ok := ParseForm([]byte(strings.Join(many, "&"))); ok {
		t.Error("ParseForm took 40 fields")
	}
}

func TestSessionLifetimes(t *testing.T) {
	t0 := time.Date(2027, 1, 1, 8, 0, 0, 0, time.UTC)
	s := Session{CreatedAt: t0, LastSeen: t0, VerifiedAt: t0}
	for _, tc := range []struct {
		name          string
		lastSeen, now time.Time
		live, recent  bool
	}{
		{"fresh", t0, t0.Add(time.Minute), true, true},
		{"idle 29 min", t0, t0.Add(29 * time.Minute), true, false},
		{"idle 30 min", t0, t0.Add(30 * time.Minute), false, false},
		{"used, 11h59", t0.Add(11*time.Hour + 50*time.Minute), t0.Add(11*time.Hour + 59*time.Minute), true, false},
		{"used, 12h", t0.Add(11*time.Hour + 50*time.Minute), t0.Add(12 * time.Hour), false, false},
	} {
		s.LastSeen = tc.lastSeen
		if s.Live(tc.now) != tc.live || s.Recent(tc.now) != tc.recent {
			t.Errorf("%s: live %v recent %v; want %v %v", tc.name, s.Live(tc.now), s.Recent(tc.now), tc.live, tc.recent)
		}
	}
}

func TestNewInvitation(t *testing.T) {
	now := time.Date(2027, 1, 1, 8, 0, 0, 0, time.UTC)
	tok, inv, err := NewInvitation("p1", "ada@example.com", Admin, OperatorActor, now)
	if err != nil {
		t.Fatal(err)
	}
	hash, _ := linktoken.Parse(tok)
	if inv.Hash != hash || strings.Contains(inv.Hash, tok) || !inv.ExpiresAt.Equal(now.Add(24*time.Hour)) {
		t.Errorf("invitation %+v for token %q; want only its hash, 24 h", inv, tok)
	}
	for _, bad := range []struct {
		email string
		role  Role
	}{{"ada@example.com", "owner"}, {"not-an-email", Admin}, {"@example.com", Viewer}, {"a@", Viewer}} {
		if _, _, err := NewInvitation("p1", bad.email, bad.role, OperatorActor, now); err == nil {
			t.Errorf("NewInvitation(%q, %q) accepted", bad.email, bad.role)
		}
	}
}

func TestSiteURL(t *testing.T) {
	for in, want := range map[string]string{
		"http://127.0.0.1:3000":        "http://localhost:3000",
		"http://127.0.0.1:3000/":       "http://localhost:3000",
		"http://[::1]:8080":            "http://localhost:8080",
		"https://api.example.com":      "https://api.example.com",
		"https://api.example.com:8443": "https://api.example.com:8443",
	} {
		if got := SiteURL(in); got != want {
			t.Errorf("SiteURL(%q) = %q; want %q", in, got, want)
		}
	}
}

// The parsers of what a browser sends never panic, and accept only what
// they can give back.
func FuzzParseSessionCookie(f *testing.F) {
	tok, _ := linktoken.New()
	f.Add(CookieName + "=" + tok)
	f.Add("a=1; " + CookieName + "=" + tok + ";b")
	f.Add(CookieName + "=;" + CookieName)
	f.Fuzz(func(t *testing.T, h string) {
		got, hash, ok := ParseSessionCookie([]string{h})
		if ok {
			if want, err := linktoken.Parse(got); err != nil || want != hash || !strings.Contains(h, got) {
				t.Errorf("accepted %q as %q (%q)", h, got, hash)
			}
		}
	})
}

func FuzzCheckCSRF(f *testing.F) {
	tok, _ := linktoken.New()
	f.Add(tok, CSRF(tok))
	f.Add("", "")
	f.Fuzz(func(t *testing.T, token, sent string) {
		if CheckCSRF(token, sent) && (token == "" || sent != CSRF(token)) {
			t.Errorf("CheckCSRF(%q, %q) = true", token, sent)
		}
	})
}

func FuzzParseForm(f *testing.F) {
	f.Add([]byte("csrf_token=abc&mode=live"))
	f.Add([]byte("a=%2&b"))
	f.Add([]byte("&&=&"))
	f.Fuzz(func(t *testing.T, body []byte) {
		form, ok := ParseForm(body)
		if ok && len(form) > maxFormFields {
			t.Errorf("%d fields accepted", len(form))
		}
	})
}
