package survey

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/moveleads/partnerapi/shared/domain/linktoken"
)

func newSurvey(t *testing.T) (Survey, string) {
	t.Helper()
	s, token, err := New("s1", "l1", DefaultTokenLifetime, t0)
	if err != nil {
		t.Fatalf("New error %v", err)
	}
	return s, token
}

func mustHash(t *testing.T, token string) string {
	t.Helper()
	h, err := linktoken.Parse(token)
	if err != nil {
		t.Fatalf("linktoken.Parse(%q) error %v", token, err)
	}
	return h
}

func TestNew(t *testing.T) {
	s, token := newSurvey(t)
	if s.Status != Invited || !s.CreatedAt.Equal(t0) || !s.UpdatedAt.Equal(t0) {
		t.Errorf("New = status %q, created %s, updated %s; want invited at %s", s.Status, s.CreatedAt, s.UpdatedAt, t0)
	}
	if want := t0.Add(7 * 24 * time.Hour); !s.TokenExpiresAt.Equal(want) {
		t.Errorf("TokenExpiresAt = %s; want %s (7 days)", s.TokenExpiresAt, want)
	}
	if len(s.Tokens) != 1 || s.Tokens[0].Hash != mustHash(t, token) {
		t.Fatalf("Tokens = %+v; want the hash of the returned token", s.Tokens)
	}
	for _, st := range s.Tokens {
		if strings.Contains(st.Hash, token) {
			t.Errorf("stored token %+v holds the plain token", st)
		}
	}
	if err := s.Access(mustHash(t, token), t0); err != nil {
		t.Errorf("Access(new token) = %v; want nil", err)
	}
}

func TestNewRefusesLifetime(t *testing.T) {
	for _, d := range []time.Duration{0, time.Minute, 31 * 24 * time.Hour} {
		if _, _, err := New("s", "l", d, t0); !errors.Is(err, ErrLifetime) {
			t.Errorf("New(lifetime %s) error %v; want ErrLifetime", d, err)
		}
	}
}

// TestIssueTokenFreshEachCall: every call gives a new URL, and earlier ones
// keep working until they are pushed out or expire.
func TestIssueTokenFreshEachCall(t *testing.T) {
	s, first := newSurvey(t)
	later := t0.Add(time.Hour)
	second, err := s.IssueToken(24*time.Hour, later)
	if err != nil {
		t.Fatalf("IssueToken error %v", err)
	}
	if second == first {
		t.Fatalf("IssueToken returned the first token again")
	}
	for _, tok := range []string{first, second} {
		if err := s.Access(mustHash(t, tok), later); err != nil {
			t.Errorf("Access(%s…) = %v; want nil", tok[:6], err)
		}
	}
	if !s.UpdatedAt.Equal(t0) {
		t.Errorf("UpdatedAt = %s after IssueToken; want unchanged %s", s.UpdatedAt, t0)
	}
	if want := t0.Add(DefaultTokenLifetime); !s.TokenExpiresAt.Equal(want) {
		t.Errorf("TokenExpiresAt = %s; want the later expiry %s kept", s.TokenExpiresAt, want)
	}
	for i := range MaxTokens - 1 {
		if _, err := s.IssueToken(DefaultTokenLifetime, later.Add(time.Duration(i+1)*time.Minute)); err != nil {
			t.Fatalf("IssueToken error %v", err)
		}
	}
	if err := s.Access(mustHash(t, first), later); !errors.Is(err, ErrTokenUnknown) {
		t.Errorf("Access(first token after %d more) = %v; want ErrTokenUnknown", MaxTokens, err)
	}
	if err := s.Access(mustHash(t, second), later); err != nil {
		t.Errorf("Access(second token) = %v; want nil", err)
	}
}

func TestIssueTokenRefusesFinalSurvey(t *testing.T) {
	for _, st := range []Status{InventoryReady, Failed} {
		s := Survey{ID: "s", Status: st}
		if _, err := s.IssueToken(DefaultTokenLifetime, t0); !errors.Is(err, ErrClosed) {
			t.Errorf("IssueToken on %q error %v; want ErrClosed", st, err)
		}
		if len(s.Tokens) != 0 {
			t.Errorf("IssueToken on %q stored %d tokens; want none", st, len(s.Tokens))
		}
	}
	s := Survey{ID: "s", Status: Processing}
	if _, err := s.IssueToken(DefaultTokenLifetime, t0); err != nil {
		t.Errorf("IssueToken on a processing survey error %v; want a link that shows the status page", err)
	}
}

func TestAccess(t *testing.T) {
	s, token := newSurvey(t)
	hash := mustHash(t, token)
	expiry := s.TokenExpiresAt
	other, _ := linktoken.New()
	tests := []struct {
		name   string
		status Status
		hash   string
		at     time.Time
		want   error
	}{
		{"live", Invited, hash, t0, nil},
		{"recording", Recording, hash, expiry.Add(-time.Nanosecond), nil},
		{"unknown token", Invited, linktoken.Hash(other), t0, ErrTokenUnknown},
		{"empty hash", Invited, "", t0, ErrTokenUnknown},
		{"expired at the instant", Recording, hash, expiry, ErrTokenExpired},
		{"expired", Invited, hash, expiry.Add(time.Hour), ErrTokenExpired},
		{"finished", Processing, hash, t0, ErrClosed},
		{"ready", InventoryReady, hash, t0, ErrClosed},
		{"failed", Failed, hash, t0, ErrClosed},
		{"finished and expired", InventoryReady, hash, expiry.Add(time.Hour), ErrClosed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s.Status = tt.status
			if err := s.Access(tt.hash, tt.at); !errors.Is(err, tt.want) || (tt.want == nil) != (err == nil) {
				t.Errorf("Access = %v; want %v", err, tt.want)
			}
		})
	}
}

func TestRecordMovesUpdatedAtOnlyOnChange(t *testing.T) {
	s, _ := newSurvey(t)
	steps := []struct {
		ev      Event
		changed bool
		status  Status
	}{
		{UploadStarted, true, Recording},
		{UploadStarted, false, Recording},
		{FinishRequested, true, Processing},
		{UploadStarted, false, Processing},
		{NoPlayableClip, true, Failed},
		{InventoryBuilt, false, Failed},
	}
	for i, st := range steps {
		at := t0.Add(time.Duration(i+1) * time.Minute)
		before := s.UpdatedAt
		changed, err := s.Record(st.ev, at)
		if err != nil || changed != st.changed || s.Status != st.status {
			t.Fatalf("step %d Record(%q) = %v, %v, status %q; want %v, nil, %q", i, st.ev, changed, err, s.Status, st.changed, st.status)
		}
		if want := map[bool]time.Time{true: at, false: before}[changed]; !s.UpdatedAt.Equal(want) {
			t.Errorf("step %d UpdatedAt = %s; want %s", i, s.UpdatedAt, want)
		}
	}
	if s.FailureReason != "no playable clip" {
		t.Errorf("FailureReason = %q after a replayed failure; want a generic reason", s.FailureReason)
	}
	if _, err := s.Record("bogus", t0); !errors.Is(err, ErrUnknownEvent) {
		t.Errorf("Record(bogus) error %v; want ErrUnknownEvent", err)
	}
}

func TestSettle(t *testing.T) {
	playable := Clip{Status: ClipPlayable, AnnouncedAt: t0}
	rejected := Clip{Status: ClipRejected, AnnouncedAt: t0, RejectReason: "not a video"}
	processing := Clip{Status: ClipProcessing, AnnouncedAt: t0}
	at := t0.Add(time.Hour)
	tests := []struct {
		name    string
		status  Status
		clips   []Clip
		want    Status
		changed bool
		reason  string
		err     error
	}{
		{"ready", Processing, []Clip{rejected, playable}, InventoryReady, true, "", nil},
		{"failed keeps the reason", Processing, []Clip{rejected}, Failed, true, "no playable clip: 1 not a video", nil},
		{"waits for processing", Processing, []Clip{playable, processing}, Processing, false, "", nil},
		{"not finished yet", Recording, []Clip{playable}, Recording, false, "", ErrNotFinished},
		{"late clip never reopens failed", Failed, []Clip{rejected, playable}, Failed, false, "earlier", nil},
		{"late rejection never fails ready", InventoryReady, []Clip{rejected}, InventoryReady, false, "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := Survey{ID: "s", Status: tt.status, UpdatedAt: t0}
			if tt.status == Failed {
				s.FailureReason = "earlier"
			}
			changed, err := s.Settle(tt.clips, at)
			if !errors.Is(err, tt.err) || (tt.err == nil) != (err == nil) {
				t.Fatalf("Settle error %v; want %v", err, tt.err)
			}
			if s.Status != tt.want || changed != tt.changed || s.FailureReason != tt.reason {
				t.Errorf("Settle = %q, %v, reason %q; want %q, %v, %q", s.Status, changed, s.FailureReason, tt.want, tt.changed, tt.reason)
			}
			if wantAt := map[bool]time.Time{true: at, false: t0}[changed]; !s.UpdatedAt.Equal(wantAt) {
				t.Errorf("UpdatedAt = %s; want %s", s.UpdatedAt, wantAt)
			}
		})
	}
}
