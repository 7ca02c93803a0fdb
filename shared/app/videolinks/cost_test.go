package videolinks_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/domain/linktoken"
	"github.com/moveleads/partnerapi/shared/testkit/apitest"
	"github.com/moveleads/partnerapi/shared/testkit/dynamometer"
)

// TestUnknownTokenCostsOneRead counts the viewer's requests to DynamoDB
// Local: an unknown token costs one GetItem and writes nothing, a
// malformed one costs none, and a live link (the meter's own check) costs
// its lookup, the clips' Query and the open's transaction.
func TestUnknownTokenCostsOneRead(t *testing.T) {
	m := &dynamometer.Meter{}
	e := &env{Env: apitest.New(t, apitest.Options{S3: true, DynamoDB: m.Install})}
	e.Clock.Set(time.Now().UTC().Truncate(time.Second))
	e.partner = e.NewPartner(t, "Demo Movers")
	e.key, _ = e.NewKey(t, e.partner, auth.Test)
	sv := e.PlayableSurvey(t, e.key, apitest.WebMClip)
	live := viewPath(t, want(t, e.mint(t, e.key, sv.SurveyID, ""), 200, "")["view_url"].(string))
	e.open(t, live) // the partner's settings cached, as on a warm instance

	unknown, err := linktoken.New()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, path string
		status     int
		want       string
	}{
		{"unknown token", "/v1-video/" + unknown, 404, "GetItem"},
		{"malformed token", "/v1-video/short", 404, ""},
		{"live link", live, 200, "GetItem Query TransactWriteItems"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m.Take()
			r := e.open(t, tc.path)
			s := m.Take()
			trips := s.Trips
			if len(trips) > 1 {
				slices.Sort(trips[1:]) // a live link's Query and open run at once
			}
			if got := strings.Join(trips, " "); r.Status != tc.status || got != tc.want {
				t.Errorf("open -> %d with round trips %q; want %d with %q", r.Status, got, tc.status, tc.want)
			}
			if tc.status == 404 && s.Write != 0 {
				t.Errorf("open -> %.1f WCU; want none", s.Write)
			}
		})
	}
}
