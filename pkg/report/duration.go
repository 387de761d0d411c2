package report

import (
	"strings"
	"time"
)

// ShortDuration writes d as time.Duration's String does, less the units
// at its end that are zero: 1m, 24h, 1h30m, where String writes 1m0s,
// 24h0m0s, 1h30m0s; 1.5s, 250ms and 1h0m30s as String writes them. Every
// duration the report's text says (a run's reason, a finding's message)
// and the CLI shows is written so, as the docs and the policy file write
// them, and each reads back as the same duration (time.ParseDuration).
// The JSON's numbers (durationMs and the like) are not text, and stay
// as they are.
func ShortDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}
