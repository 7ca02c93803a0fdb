package auth

import (
	"testing"
	"time"
)

func TestWindow(t *testing.T) {
	base := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC) // a minute boundary
	w := base.Unix() / 60
	tests := []struct {
		name string
		t    time.Time
		want int64
	}{
		{"first second", base, w},
		{"last nanosecond", base.Add(time.Minute - time.Nanosecond), w},
		{"59 seconds in", base.Add(59 * time.Second), w},
		{"next minute", base.Add(time.Minute), w + 1},
		{"previous minute's last second", base.Add(-time.Second), w - 1},
		{"other zone, same instant", base.In(time.FixedZone("UTC+5:30", 5*3600+1800)), w},
		{"epoch", time.Unix(0, 0), 0},
		{"epoch plus 60s", time.Unix(60, 0), 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Window(tt.t); got != tt.want {
				t.Errorf("Window(%v) = %d; want %d", tt.t, got, tt.want)
			}
		})
	}
}

func TestWindowReset(t *testing.T) {
	tests := []struct {
		name    string
		w, want int64
	}{
		{"first window", 0, 60},
		{"second window", 1, 120},
		{"a 2025 window", 29_000_000, 29_000_001 * 60},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := WindowReset(tt.w); got != tt.want {
				t.Errorf("WindowReset(%d) = %d; want %d", tt.w, got, tt.want)
			}
		})
	}
	t.Run("reset is the next window's first second", func(t *testing.T) {
		base := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
		for s := 0; s < 120; s++ {
			now := base.Add(time.Duration(s) * time.Second)
			reset := WindowReset(Window(now))
			if reset <= now.Unix() || reset > now.Unix()+60 {
				t.Fatalf("at %v: reset %d; want in (%d, %d]", now, reset, now.Unix(), now.Unix()+60)
			}
			if Window(time.Unix(reset, 0)) != Window(now)+1 || Window(time.Unix(reset-1, 0)) != Window(now) {
				t.Fatalf("at %v: reset %d is not the first second of the next window", now, reset)
			}
		}
	})
}

func TestRetryAfter(t *testing.T) {
	base := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	u := Usage{Limit: RateLimit, Reset: WindowReset(Window(base))}
	tests := []struct {
		name string
		now  time.Time
		want int64
	}{
		{"window start", base, 60},
		{"mid window", base.Add(30 * time.Second), 30},
		{"half a second into the window", base.Add(500 * time.Millisecond), 60},
		{"last second", base.Add(59 * time.Second), 1},
		{"last nanosecond", base.Add(time.Minute - time.Nanosecond), 1},
		{"at reset", base.Add(time.Minute), 1},
		{"well after reset", base.Add(10 * time.Minute), 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := u.RetryAfter(tt.now); got != tt.want {
				t.Errorf("RetryAfter(%v) with reset %d = %d; want %d", tt.now, u.Reset, got, tt.want)
			}
		})
	}
}
