package report

import (
	"testing"
	"time"
)

// TestShortDuration: trailing zero units are dropped, no others, and
// what is written reads back as the same duration.
func TestShortDuration(t *testing.T) {
	for _, tc := range []struct {
		d    time.Duration
		want string
	}{
		{0, "0s"},
		{250 * time.Millisecond, "250ms"},
		{1500 * time.Millisecond, "1.5s"},
		{30 * time.Second, "30s"},
		{time.Minute, "1m"},
		{90 * time.Second, "1m30s"},
		{10 * time.Minute, "10m"},
		{time.Hour, "1h"},
		{24 * time.Hour, "24h"},
		{90 * time.Minute, "1h30m"},
		{time.Hour + 30*time.Second, "1h0m30s"},
		{-time.Minute, "-1m"},
	} {
		got := ShortDuration(tc.d)
		if got != tc.want {
			t.Errorf("ShortDuration(%v) = %q; want %q", tc.d, got, tc.want)
		}
		if back, err := time.ParseDuration(got); err != nil || back != tc.d {
			t.Errorf("%q reads back as %v (%v); want %v", got, back, err, tc.d)
		}
	}
}
