package escape

import (
	"slices"
	"strings"
	"testing"
)

// Round forty: the /run/user/0 alias of a non-root caller's runtime
// directory (mountRuntimeDirAlias).

// TestRedteam40RuntimeDirAliasHolds: a hook, as every caller and with
// --strict-fs, tries to undo or move the alias (umount, a mount over it,
// rename, rmdir), to link across the two spellings (a hard link: EXDEV),
// and writes through it by "..", by a symbolic link from one spelling
// into the other and by a mode change of the alias itself: each attempt
// on the mount fails, each write is recorded once by the caller's path,
// none by /run/user/0, and the host's runtime directory is as it was.
func TestRedteam40RuntimeDirAliasHolds(t *testing.T) {
	requireBwrap(t)
	requireRoot(t, "it makes /run/user/UID on the host for each caller")
	for _, r := range runners(t) {
		for _, mode := range []string{"default", "strict-fs"} {
			t.Run(r.name+"/"+mode, func(t *testing.T) {
				rt := runtimeDirOf(t, r)
				unchanged := hostUnchanged(t, rt)
				hook := strings.Join([]string{
					"umount /run/user/0 2>/dev/null && echo UMOUNTED",
					"umount -l /run/user/0 2>/dev/null && echo UMOUNTED-LAZY",
					"mount -t tmpfs t /run/user/0 2>/dev/null && echo MOUNTED",
					"mount --bind /tmp /run/user/0 2>/dev/null && echo BOUND",
					"mv /run/user/0 /run/user/moved 2>/dev/null && echo RENAMED",
					"rmdir /run/user/0 2>/dev/null && echo REMOVED",
					"chmod 0777 /run/user/0",
					"echo d > /run/user/0/../0/d",
					"echo e > " + rt + "/../0/e",
					"ln -s /run/user/0/d " + rt + "/l",
					"echo via > " + rt + "/l",
					"echo h > " + rt + "/h && ln " + rt + "/h /run/user/0/h2 2>/dev/null && echo LINKED",
					"echo last > /run/user/0/last",
					"exit 0",
				}, "; ")
				args := []string{"--", "sh", "-c", hook}
				if mode == "strict-fs" {
					args = append([]string{"--strict-fs"}, args...)
				}
				res, code := runVigiles(t, r, redteam27Tree(t, nil), nil, args...)
				if res.Tier != "confined" || code != 0 || res.Error != "" || res.Refusal != "" {
					t.Fatalf("tier %s, exit %d, error %q, refusal %q\n%s", res.Tier, code, res.Error, res.Refusal, res.raw)
				}
				// A root caller's runtime directory is /run/user/0: one
				// directory, no alias, so the hard link is one within it.
				printed := ""
				if rt == "/run/user/0" {
					printed = "LINKED\n"
				}
				if res.Stdout != printed {
					t.Errorf("the hook printed %q, want %q: every attempt on the alias's mount fails, and a hard link across the two spellings (EXDEV)\n%s", res.Stdout, printed, res.raw)
				}
				want := []string{
					"modify " + rt,
					"create " + rt + "/d",
					"create " + rt + "/e",
					"create " + rt + "/h",
					"create " + rt + "/l",
					"create " + rt + "/last",
				}
				if rt == "/run/user/0" {
					want = append(want, "create "+rt+"/h2")
				}
				got := res.writeLines()
				slices.Sort(got)
				slices.Sort(want)
				if !slices.Equal(got, want) {
					t.Errorf("writes %q, want %q\n%s", got, want, res.raw)
				}
				unchanged()
			})
		}
	}
}
