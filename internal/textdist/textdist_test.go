package textdist

import "testing"

func TestDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"test", "test", 0}, {"tset", "test", 1}, {"Bahs", "Bash", 1}, {"tes", "test", 1},
		{"audit", "adit", 1}, {"merge", "emrge", 1}, {"doctor", "dcotro", 2}, {"", "run", 3}, {"Édit", "Edit", 1},
	} {
		if got := Distance(tc.a, tc.b); got != tc.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}
