package apitest_test

import (
	"os"
	"strings"
	"testing"

	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/domain/survey"
	"github.com/moveleads/partnerapi/shared/spec/settings"
	"github.com/moveleads/partnerapi/shared/testkit/apitest"
)

func TestMain(m *testing.M) { apitest.MainS3(m) }

// TestS3EnvsInParallelTests: two Parallel S3 Envs in parallel tests each mint
// capture links on their own server and get their own clip processed from
// their own bucket; the process environment is left alone. Before, New set
// CLIP_BUCKET and PUBLIC_BASE_URL with t.Setenv, which panics in a
// parallel test.
func TestS3EnvsInParallelTests(t *testing.T) {
	bucket, base := os.Getenv(settings.ClipBucket), os.Getenv(settings.PublicBaseURL)
	t.Run("side by side", func(t *testing.T) {
		for _, name := range []string{"a", "b"} {
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				e := apitest.New(t, apitest.Options{S3: true, Parallel: true})
				key, _ := e.NewKey(t, e.NewPartner(t, "Demo Movers "+name), auth.Test)
				sv := e.PlayableSurvey(t, key, apitest.MP4Clip)
				if len(sv.Clips) != 1 || sv.Status[sv.Clips[0]] != survey.ClipPlayable {
					t.Errorf("clips %v %v; want one, playable", sv.Clips, sv.Status)
				}
				r := apitest.Want(t, e.Do(t, "POST", "/v1/leads/"+sv.LeadID+"/video-survey", key, ""), 200, "")
				if link, _ := r["capture_url"].(string); !strings.HasPrefix(link, e.Server.URL+"/v1-capture/") {
					t.Errorf("capture_url %q; want under this Env's %s", link, e.Server.URL)
				}
			})
		}
	})
	if got := os.Getenv(settings.ClipBucket); got != bucket {
		t.Errorf("%s = %q after the Envs; want it untouched (%q)", settings.ClipBucket, got, bucket)
	}
	if got := os.Getenv(settings.PublicBaseURL); got != base {
		t.Errorf("%s = %q after the Envs; want it untouched (%q)", settings.PublicBaseURL, got, base)
	}
}
