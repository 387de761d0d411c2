package runner

import "testing"

// TestVarTmpIsAnAreaOfItsOwn: a write the run's throwaway /var/tmp took
// is recorded as /var/tmp/…, which its own patterns match, and neither
// TMPDIR's nor the work tree's: "$TMPDIR/**" and "./**" let no such write
// pass wrote-only, and a link into /var/tmp is kept by the baseline as
// that place alone, as one into /dev/shm is.
func TestVarTmpIsAnAreaOfItsOwn(t *testing.T) {
	for _, tc := range []struct {
		pat, path, kind string
		want            bool
	}{
		{"/var/tmp/**", "/var/tmp/x", "file", true},
		{"/var/tmp/**", "/var/tmp", "dir", true},
		{"/var/tmp/**", "/var/tmp", "file", false},
		{"re:^/var/tmp/", "/var/tmp/a/b", "file", true},
		{"$TMPDIR/**", "/var/tmp/x", "file", false},
		{"./**", "/var/tmp/x", "file", false},
		{"/dev/shm/**", "/var/tmp/x", "file", false},
		{"/var/tmp/**", "var/tmp/x", "file", false}, // the work tree's var/tmp
	} {
		p, err := ParsePathPattern(tc.pat)
		if err != nil {
			t.Fatalf("%q: %v", tc.pat, err)
		}
		if got := p.MatchWrite(tc.path, tc.kind); got != tc.want {
			t.Errorf("%q matches %s %q: %v, want %v", tc.pat, tc.kind, tc.path, got, tc.want)
		}
	}
	if treePath("/var/tmp/x") {
		t.Error(`treePath("/var/tmp/x") is true: a write of the run's /var/tmp passed for the work tree's`)
	}
	if a, rel := area("/var/tmp/x/y"); a != "/var/tmp/" || rel != "x/y" {
		t.Errorf(`area("/var/tmp/x/y") = %q, %q; want "/var/tmp/", "x/y"`, a, rel)
	}
	if got := throwawayTarget("/var/tmp/tmp.AbC123/log"); got != "/var/tmp/…/log" {
		t.Errorf("throwawayTarget = %q, want /var/tmp/…/log", got)
	}
}
