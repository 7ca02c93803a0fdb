package partner

import (
	"testing"
	"time"

	"github.com/moveleads/partnerapi/shared/domain/survey"
)

func TestCaptureLinkTTL(t *testing.T) {
	tests := []struct {
		name     string
		lifetime time.Duration
		want     time.Duration
	}{
		{"unset means the default", 0, survey.DefaultTokenLifetime},
		{"minimum", survey.MinTokenLifetime, survey.MinTokenLifetime},
		{"three days", 72 * time.Hour, 72 * time.Hour},
		{"maximum", survey.MaxTokenLifetime, survey.MaxTokenLifetime},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := Partner{ID: "ptn_1", CaptureLinkLifetime: tt.lifetime}
			if got := p.CaptureLinkTTL(); got != tt.want {
				t.Errorf("Partner{CaptureLinkLifetime: %s}.CaptureLinkTTL() = %s; want %s", tt.lifetime, got, tt.want)
			}
		})
	}
}
