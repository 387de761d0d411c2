package runner

import (
	"strings"
	"testing"
)

// TestParseSize: sizes, as .vigiles.yml and the command line write them,
// are bytes or binary multiples (K, KB and KiB all 1024), whole numbers
// only, and less than 2^64-1: that is RLIM_INFINITY, which would turn a
// memory or file-size limit off (ulimit -v unlimited), not bound it.
func TestParseSize(t *testing.T) {
	for _, tc := range []struct {
		s    string
		want uint64
	}{
		{"0", 0}, {"1", 1}, {"1048576", 1 << 20}, {"007", 7}, {"10B", 10},
		{"64KiB", 64 << 10}, {"64K", 64 << 10}, {"64Ki", 64 << 10}, {"64KB", 64 << 10},
		{"512MiB", 512 << 20}, {"512M", 512 << 20}, {"2GiB", 2 << 30}, {"2G", 2 << 30}, {"2GB", 2 << 30},
		{"1TiB", 1 << 40}, {"3T", 3 << 40}, {" 2GiB ", 2 << 30}, {"2 GiB", 2 << 30},
		{"18446744073709551614", 1<<64 - 2}, {"16777215TiB", 16777215 << 40},
	} {
		if got, err := ParseSize(tc.s); err != nil || got != tc.want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", tc.s, got, err, tc.want)
		}
	}
	for _, s := range []string{"", "2gib", "2GiBs", "2 G iB", "1.5GiB", "-1", "+1", "0x10", "1_000", "2EiB", "GiB", "2iB", "2Bi",
		"18446744073709551615", "18446744073709551616", "16777216TiB", "١٢٣"} {
		if got, err := ParseSize(s); err == nil {
			t.Errorf("ParseSize(%q) = %d; want an error", s, got)
		}
	}
	// One too large says what the largest is, in a unit that can be
	// written back.
	for _, s := range []string{"18446744073709551615", "99999999999999999999", "16777216TiB", "99999999TiB"} {
		if _, err := ParseSize(s); err == nil || !strings.Contains(err.Error(), "too large") || !strings.Contains(err.Error(), "at most 16777215TiB") {
			t.Errorf("ParseSize(%q): %v; want one that names the largest size, 16777215TiB", s, err)
		}
	}
}
