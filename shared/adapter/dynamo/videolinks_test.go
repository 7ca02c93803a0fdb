package dynamo

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/domain/errcode"
	"github.com/moveleads/partnerapi/shared/domain/linktoken"
	"github.com/moveleads/partnerapi/shared/domain/videolink"
)

// newGrant returns a grant of surveyID made at at, living ttl, and its
// token.
func newGrant(t testing.TB, surveyID string, at time.Time, ttl time.Duration) (videolink.Grant, string) {
	t.Helper()
	token, err := linktoken.New()
	if err != nil {
		t.Fatal(err)
	}
	return videolink.Grant{
		ID: "grant_" + randomHex(8), SurveyID: surveyID, Label: "for the carrier", TokenHash: linktoken.Hash(token),
		CreatedAt: at, ExpiresAt: at.Add(ttl).Truncate(time.Second),
	}, token
}

// mint mints a grant of sv at at, reading the live set first.
func mint(t testing.TB, s *Store, tn auth.Tenant, surveyID string, at time.Time, ttl time.Duration) (videolink.Grant, string) {
	t.Helper()
	g, token := newGrant(t, surveyID, at, ttl)
	set, err := s.VideoLinkSet(context.Background(), tn, surveyID)
	if err != nil {
		t.Fatalf("VideoLinkSet: %v", err)
	}
	if err := s.MintVideoLink(context.Background(), tn, g, set, at); err != nil {
		t.Fatalf("MintVideoLink: %v", err)
	}
	return g, token
}

func TestSurveyTenant(t *testing.T) {
	s, sv := clipSurvey(t)
	tn, leadID, err := s.SurveyTenant(context.Background(), sv.ID)
	if err != nil || tn != surveyTenant || leadID != "lead_1" {
		t.Fatalf("SurveyTenant = %+v, %q, %v; want %+v, lead_1", tn, leadID, err, surveyTenant)
	}
	_, _, err = s.SurveyTenant(context.Background(), "srv_unknown")
	wantCode(t, err, errcode.NotFound)
}

func TestMintAndRevokeVideoLinks(t *testing.T) {
	ctx := context.Background()
	s, sv := clipSurvey(t)
	g1, _ := mint(t, s, surveyTenant, sv.ID, t0, time.Hour)
	g2, _ := mint(t, s, surveyTenant, sv.ID, t0.Add(time.Minute), 3*time.Hour)
	set, err := s.VideoLinkSet(ctx, surveyTenant, sv.ID)
	if err != nil || len(set.Entries) != 2 || set.Version != 2 {
		t.Fatalf("VideoLinkSet = %+v, %v; want 2 entries at version 2", set, err)
	}

	t.Run("a stale set is refused", func(t *testing.T) {
		stale := set
		stale.Version = 1
		g, _ := newGrant(t, sv.ID, t0, time.Hour)
		wantCause(t, s.MintVideoLink(ctx, surveyTenant, g, stale, t0), errcode.Conflict, ErrChanged)
		if _, err := s.RevokeVideoLinks(ctx, surveyTenant, sv.ID, stale, t0); !errors.Is(err, ErrChanged) {
			t.Errorf("RevokeVideoLinks(stale) = %v; want ErrChanged", err)
		}
	})
	t.Run("unknown or foreign survey", func(t *testing.T) {
		other := auth.Tenant{PartnerID: surveyTenant.PartnerID, Mode: auth.Live}
		_, err := s.VideoLinkSet(ctx, other, sv.ID)
		wantCode(t, err, errcode.NotFound)
		g, _ := newGrant(t, sv.ID, t0, time.Hour)
		wantCode(t, s.MintVideoLink(ctx, other, g, videolink.Set{}, t0), errcode.NotFound)
	})

	// At t0+2h g1 has expired: a revoke closes g2 only, and says so.
	at := t0.Add(2 * time.Hour)
	n, err := s.RevokeVideoLinks(ctx, surveyTenant, sv.ID, set, at)
	if err != nil || n != 1 {
		t.Fatalf("RevokeVideoLinks = %d, %v; want 1 (g1 had expired)", n, err)
	}
	after, err := s.VideoLinkSet(ctx, surveyTenant, sv.ID)
	if err != nil || len(after.Entries) != 0 || after.Version != 3 {
		t.Fatalf("VideoLinkSet after revoke = %+v, %v; want empty at version 3", after, err)
	}
	if n, err := s.RevokeVideoLinks(ctx, surveyTenant, sv.ID, after, at); err != nil || n != 0 {
		t.Errorf("second revoke = %d, %v; want 0, nil", n, err)
	}
	grants, err := s.VideoGrants(ctx, surveyTenant, sv.ID)
	if err != nil || len(grants) != 2 {
		t.Fatalf("VideoGrants = %+v, %v; want 2", grants, err)
	}
	if grants[0].ID != g1.ID || !grants[0].RevokedAt.IsZero() {
		t.Errorf("grant %+v; want g1 first, never revoked (it expired)", grants[0])
	}
	if grants[1].ID != g2.ID || !grants[1].RevokedAt.Equal(at) || grants[1].Label != "for the carrier" || grants[1].TokenHash != g2.TokenHash {
		t.Errorf("grant %+v; want g2 revoked at %s with its label and hash", grants[1], at)
	}
}

// openAs opens v at at with a fixed client.
func openAs(s *Store, v videolink.View, at time.Time, limit int) (auth.Usage, error) {
	o := videolink.Opening{GrantID: v.GrantID, At: at, UserAgent: "carrier-browser/1", Client: "203.0.113.0"}
	return s.OpenVideoLink(context.Background(), v, o, randomHex(8), limit)
}

func TestOpenVideoLink(t *testing.T) {
	ctx := context.Background()
	s, sv := clipSurvey(t)
	g, token := mint(t, s, surveyTenant, sv.ID, t0, 2*time.Hour)
	v, found, err := s.VideoLinkView(ctx, linktoken.Hash(token))
	if err != nil || !found || v.Tenant != surveyTenant || v.SurveyID != sv.ID || v.GrantID != g.ID || !v.ExpiresAt.Equal(g.ExpiresAt) {
		t.Fatalf("VideoLinkView = %+v, %v, %v; want grant %s of survey %s", v, found, err, g.ID, sv.ID)
	}
	if _, found, err := s.VideoLinkView(ctx, linktoken.Hash("unknown")); found || err != nil {
		t.Errorf("VideoLinkView(unknown) found %v, %v; want false, nil", found, err)
	}

	t.Run("exactly the limit under concurrent opens", func(t *testing.T) {
		const limit, tries = 5, 12
		at := t0.Add(10 * time.Minute)
		var wg sync.WaitGroup
		var mu sync.Mutex
		admitted, refused := 0, 0
		for range tries {
			wg.Add(1)
			go func() {
				defer wg.Done()
				u, err := openAs(s, v, at, limit)
				mu.Lock()
				defer mu.Unlock()
				switch {
				case err != nil:
					t.Errorf("OpenVideoLink: %v", err)
				case u.Admitted:
					admitted++
				default:
					refused++
					// at has a fraction of a second: Reset rounds up.
					if u.Reset != at.Add(time.Hour).Unix()+1 || u.Period != "hour" || u.Remaining != 0 {
						t.Errorf("refused usage %+v; want an hour after the opens (rounded up) and no remaining", u)
					}
				}
			}()
		}
		wg.Wait()
		if admitted != limit || refused != tries-limit {
			t.Fatalf("admitted %d, refused %d; want %d and %d", admitted, refused, limit, tries-limit)
		}
		opens, err := s.VideoOpens(ctx, surveyTenant, sv.ID)
		if err != nil || len(opens) != limit {
			t.Fatalf("VideoOpens = %d, %v; want %d: every admitted open logged, no refused one", len(opens), err, limit)
		}
		if o := opens[0]; o.GrantID != g.ID || !o.At.Equal(at) || o.UserAgent != "carrier-browser/1" || o.Client != "203.0.113.0" {
			t.Errorf("open %+v; want the grant, time and client", o)
		}
		// An hour after those opens, none counts.
		v2, _, _ := s.VideoLinkView(ctx, v.TokenHash)
		if u, err := openAs(s, v2, at.Add(time.Hour), limit); err != nil || !u.Admitted || u.Remaining != limit-1 {
			t.Errorf("open in the next hour = %+v, %v; want admitted with %d remaining", u, err, limit-1)
		}
	})
	t.Run("expired", func(t *testing.T) {
		_, err := openAs(s, v, g.ExpiresAt, 20)
		wantCode(t, err, errcode.NotFound)
	})
	t.Run("unknown token and survey: nothing written", func(t *testing.T) {
		decoy := videolink.View{Tenant: auth.Tenant{PartnerID: "-", Mode: "-"}, SurveyID: "-", GrantID: "-", TokenHash: linktoken.Hash("nope"), ExpiresAt: t0.Add(time.Hour)}
		if _, err := openAs(s, decoy, t0, 20); !errors.Is(err, ErrLinkClosed) {
			t.Errorf("open of a decoy = %v; want ErrLinkClosed", err)
		}
		if opens, _ := s.VideoOpens(ctx, decoy.Tenant, "-"); len(opens) != 0 {
			t.Errorf("decoy opens logged: %+v", opens)
		}
	})
	t.Run("revoked", func(t *testing.T) {
		set, err := s.VideoLinkSet(ctx, surveyTenant, sv.ID)
		if err != nil {
			t.Fatal(err)
		}
		if n, err := s.RevokeVideoLinks(ctx, surveyTenant, sv.ID, set, t0.Add(time.Hour)); err != nil || n != 1 {
			t.Fatalf("RevokeVideoLinks = %d, %v", n, err)
		}
		before, _ := s.VideoOpens(ctx, surveyTenant, sv.ID)
		v3, _, _ := s.VideoLinkView(ctx, v.TokenHash)
		if _, err := openAs(s, v3, t0.Add(time.Hour+time.Minute), 20); !errors.Is(err, ErrLinkClosed) {
			t.Errorf("open after revoke = %v; want ErrLinkClosed", err)
		}
		if after, _ := s.VideoOpens(ctx, surveyTenant, sv.ID); len(after) != len(before) {
			t.Errorf("opens logged after revoke: %d → %d", len(before), len(after))
		}
	})
}

// TestOpenVideoLinkSlidingHour: the limit holds in every 60 minutes, not
// per clock hour: 20 opens just before 03:00 leave none just after, and
// the next is admitted exactly an hour after the oldest. The view is the
// one read before any open, so each open starts from a stale record.
func TestOpenVideoLinkSlidingHour(t *testing.T) {
	ctx := context.Background()
	const limit = videolink.OpensPerHour
	s, sv := clipSurvey(t)
	base := time.Date(2026, 11, 23, 2, 59, 30, 0, time.UTC)
	_, token := mint(t, s, surveyTenant, sv.ID, base.Add(-time.Hour), 4*time.Hour)
	v, _, err := s.VideoLinkView(ctx, linktoken.Hash(token))
	if err != nil {
		t.Fatal(err)
	}
	open := func(at time.Time, wantAdmitted bool) auth.Usage {
		t.Helper()
		u, err := openAs(s, v, at, limit)
		if err != nil || u.Admitted != wantAdmitted {
			t.Fatalf("open at %s = %+v, %v; want admitted %v", at.Format(time.TimeOnly), u, err, wantAdmitted)
		}
		return u
	}
	for i := range limit {
		open(base.Add(time.Duration(i)*time.Second), true)
	}
	// 03:00:10, a new clock hour: the 20 opens of 02:59 still count.
	at := base.Add(40 * time.Second)
	u := open(at, false)
	if u.Reset != base.Add(time.Hour).Unix() || u.RetryAfter(at) != 3560 || u.Remaining != 0 {
		t.Errorf("refused usage %+v, Retry-After %d; want reset 03:59:30, 3560 s", u, u.RetryAfter(at))
	}
	open(base.Add(time.Hour-time.Nanosecond), false)
	u = open(base.Add(time.Hour), true) // exactly an hour after the oldest
	if u.Remaining != 0 || u.Reset != base.Add(time.Hour+time.Second).Unix() {
		t.Errorf("admitted usage %+v; want none remaining until 03:59:31", u)
	}
	u = open(base.Add(time.Hour+500*time.Millisecond), false)
	if u.Reset != base.Add(time.Hour+time.Second).Unix() {
		t.Errorf("refused usage %+v; want reset 03:59:31", u)
	}
	open(base.Add(time.Hour+time.Second), true)

	opens, err := s.VideoOpens(ctx, surveyTenant, sv.ID)
	if err != nil || len(opens) != limit+2 {
		t.Fatalf("VideoOpens = %d, %v; want %d: every admitted open logged, no refused one", len(opens), err, limit+2)
	}
	for i := limit; i < len(opens); i++ {
		if d := opens[i].At.Sub(opens[i-limit].At); d < time.Hour {
			t.Errorf("opens %d and %d are %s apart: %d opens within an hour", i-limit, i, d, limit+1)
		}
	}

	// A revoked link at its limit answers as closed, not as busy.
	set, err := s.VideoLinkSet(ctx, surveyTenant, sv.ID)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.RevokeVideoLinks(ctx, surveyTenant, sv.ID, set, base.Add(time.Hour+time.Second)); err != nil {
		t.Fatal(err)
	}
	// Both as read before any open and as read now (at the limit, so only
	// checked, not written).
	full, _, err := s.VideoLinkView(ctx, v.TokenHash)
	if err != nil || len(full.Opens) != limit {
		t.Fatalf("VideoLinkView = %d recent opens, %v; want %d", len(full.Opens), err, limit)
	}
	for _, view := range []videolink.View{v, full} {
		if _, err := openAs(s, view, base.Add(time.Hour+2*time.Second), limit); !errors.Is(err, ErrLinkClosed) {
			t.Errorf("open of a revoked link at its limit = %v; want ErrLinkClosed", err)
		}
	}
}

// TestOpenVideoLinkConcurrentOpens: 30 opens of one link at once, each
// from the record as read before any: exactly 20 are admitted and logged.
func TestOpenVideoLinkConcurrentOpens(t *testing.T) {
	ctx := context.Background()
	const limit, tries = videolink.OpensPerHour, 30
	s, sv := clipSurvey(t)
	_, token := mint(t, s, surveyTenant, sv.ID, t0, time.Hour)
	v, _, err := s.VideoLinkView(ctx, linktoken.Hash(token))
	if err != nil {
		t.Fatal(err)
	}
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		admitted int
	)
	for i := range tries {
		wg.Add(1)
		go func() {
			defer wg.Done()
			u, err := openAs(s, v, t0.Add(time.Duration(i)*time.Millisecond), limit)
			if err != nil {
				t.Errorf("OpenVideoLink: %v", err)
				return
			}
			if u.Admitted {
				mu.Lock()
				admitted++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	opens, err := s.VideoOpens(ctx, surveyTenant, sv.ID)
	if admitted != limit || err != nil || len(opens) != limit {
		t.Fatalf("admitted %d, logged %d (%v); want %d of %d", admitted, len(opens), err, limit, tries)
	}
}

// TestNoVideoTokenInAnyItem: only the hash of a video link's token is
// stored.
func TestNoVideoTokenInAnyItem(t *testing.T) {
	s, sv := clipSurvey(t)
	_, token := mint(t, s, surveyTenant, sv.ID, t0, time.Hour)
	v, _, _ := s.VideoLinkView(context.Background(), linktoken.Hash(token))
	if _, err := openAs(s, v, t0, 20); err != nil {
		t.Fatal(err)
	}
	all := scanStrings(t, s)
	if strings.Contains(all, token) {
		t.Errorf("the token %s… is stored in plain text", token[:6])
	}
	if !strings.Contains(all, linktoken.Hash(token)) {
		t.Error("the token's hash is not stored; the scan saw too little for the check above")
	}
}
