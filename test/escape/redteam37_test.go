package escape

import (
	"slices"
	"strconv"
	"testing"
)

// Round thirty-seven: the run's throwaway /run/lock and /run/user/UID.

// TestRedteam37XDGRuntimeDirSpelledOtherwiseIsPassed: the caller's
// XDG_RUNTIME_DIR that names the runtime directory the run shows by
// another spelling (a trailing slash, a "/." or a ".." back into it) is
// passed as the caller has it, so $XDG_RUNTIME_DIR/x is recorded as the
// path it lands at, where it was left out and the write went to "/x",
// failing unrecorded. A relative value, another uid's runtime directory
// and /run/lock by another spelling are not passed.
func TestRedteam37XDGRuntimeDirSpelledOtherwiseIsPassed(t *testing.T) {
	requireBwrap(t)
	requireRoot(t, "it makes /run/user/UID on the host for each caller")
	hook := `echo "[$XDG_RUNTIME_DIR]"; echo x > "$XDG_RUNTIME_DIR/x" 2>/dev/null; exit 0`
	for _, r := range runners(t) {
		t.Run(r.name, func(t *testing.T) {
			rt := runtimeDirOf(t, r)
			for _, x := range []string{rt + "/", rt + "/.", "/run/user/../user/" + strconv.Itoa(callerUID(r))} {
				res, code := runVigiles(t, r, redteam27Tree(t, nil), []string{"XDG_RUNTIME_DIR=" + x}, "--", "sh", "-c", hook)
				if res.Tier != "confined" || code != 0 || res.Stdout != "["+x+"]\n" {
					t.Errorf("XDG_RUNTIME_DIR=%s: tier %s, exit %d, stdout %q: want it passed\n%s", x, res.Tier, code, res.Stdout, res.raw)
				}
				if got, want := res.writeLines(), []string{"create " + rt + "/x"}; !slices.Equal(got, want) {
					t.Errorf("XDG_RUNTIME_DIR=%s: writes %q, want %q\n%s", x, got, want, res.raw)
				}
			}
			other := "/run/user/" + strconv.Itoa(callerUID(r)+1)
			for _, x := range []string{rt[1:], other, "/run/lock/", "/run/user/../lock"} {
				res, _ := runVigiles(t, r, redteam27Tree(t, nil), []string{"XDG_RUNTIME_DIR=" + x}, "--", "sh", "-c", hook)
				if res.Stdout != "[]\n" || len(res.Writes) != 0 {
					t.Errorf("XDG_RUNTIME_DIR=%s: the hook saw %q and wrote %q: want none passed, no write\n%s", x, res.Stdout, res.writeLines(), res.raw)
				}
			}
		})
	}
}

// TestRedteam37FullRunAreaIsNamed: a hook that fills the scratch through
// /run/lock or the caller's runtime directory, hiding the error, is told
// as the scratch limit (limitHit: scratch), every file it left recorded,
// as one that fills it through /var/tmp is: the run areas are the
// scratch's.
func TestRedteam37FullRunAreaIsNamed(t *testing.T) {
	requireBwrap(t)
	requireRoot(t, "it makes /run/user/UID on the host for each caller")
	for _, r := range runners(t) {
		t.Run(r.name, func(t *testing.T) {
			rt := runtimeDirOf(t, r)
			for _, place := range []string{"/run/lock", rt} {
				hook := "i=0; while [ $i -lt 8 ]; do dd if=/dev/zero of=" + place + "/f$i bs=1M count=8 2>/dev/null; i=$((i+1)); done; exit 0"
				res, code := runVigiles(t, r, redteam27Tree(t, nil), nil, "--limit-scratch", "32MiB", "--", "sh", "-c", hook)
				if res.Tier != "confined" || code != 0 || res.LimitHit != "scratch" || len(res.Writes) != 8 {
					t.Errorf("%s: tier %s, exit %d, limitHit %q, writes %q: want the scratch named and the 8 files recorded\n%s", place, res.Tier, code, res.LimitHit, res.writeLines(), res.raw)
				}
			}
		})
	}
}
