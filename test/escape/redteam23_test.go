package escape

import (
	"slices"
	"strings"
	"testing"
)

// Round twenty-three: hosts whose /home, /root, /mnt and /srv are links
// (Fedora Atomic desktops, Fedora CoreOS, RHEL for Edge: every ostree
// system), where the masks of maskedDirs, made only where each is a
// directory, were skipped, and every user's home under /var/home, root's
// under /var/roothome, /var/mnt and /var/srv were shown.

// linkedHomesSetup is round twenty-three's set-up, run as root in a mount
// namespace of the test's own: it builds a new root as an overlay of the
// host's / (its upper layer and a layer above / on a tmpfs at $NR, so the
// host's own files are never written) in which /home, /root, /mnt and
// /srv are links, as ostree makes them (home -> var/home, root ->
// var/roothome, mnt -> var/mnt, srv -> var/srv), with another user's
// file readable by every user in /var/home/other, root's 0600 in
// /var/roothome (0700), and a file readable by every user in /var/mnt and
// /var/srv, each with a token; the caller's own home at /var/home/user,
// with a 0600 key in its .ssh, owned by $AS_UID (root where it is
// empty). The host's /dev, /proc, /sys, /tmp, /run and /work are bound
// into it, then it becomes the root (pivot_root: a chroot cannot make
// user namespaces, which bubblewrap needs). Where $PROJ is set, the work
// tree $TREE is bound at /var/home/user/proj, and the run starts there.
const linkedHomesSetup = `[ -n "$NR" ] && [ -n "$TREE" ] || exit 1
mount -t tmpfs -o mode=0755 tmpfs "$NR"
top=$NR/top
mkdir -m 0755 "$top" "$top/var" "$NR/u" "$NR/w" "$NR/r"
for l in home:var/home root:var/roothome mnt:var/mnt srv:var/srv; do
	mkdir -m 0755 "$top/${l#*:}"
	ln -s "${l#*:}" "$top/${l%%:*}"
done
chmod 0700 "$top/var/roothome"
mkdir -m 0755 "$top/var/home/other" "$top/var/mnt/disk"
for f in var/home/other/secret var/mnt/disk/secret var/srv/secret var/roothome/secret; do
	echo "h122-tenant-token /$f" > "$top/$f"
	chmod 0644 "$top/$f"
done
chmod 0600 "$top/var/roothome/secret"
chown 1234:1234 "$top/var/home/other" "$top/var/home/other/secret"
mkdir -m 0711 "$top/var/home/user"
mkdir -m 0700 "$top/var/home/user/.ssh"
echo "h122-tenant-token /var/home/user/.ssh/id_ed25519" > "$top/var/home/user/.ssh/id_ed25519"
chmod 0600 "$top/var/home/user/.ssh/id_ed25519"
chown -R "${AS_UID:-0}:${AS_GID:-0}" "$top/var/home/user"
mkdir -m 0755 "$top/var/home/user/proj"
r=$NR/r
mount -t overlay overlay -o "lowerdir=$top:/,upperdir=$NR/u,workdir=$NR/w" "$r"
[ "$(stat -f -c %T "$r")" = overlayfs ]
for d in dev proc sys tmp run work; do
	mount --rbind "/$d" "$r/$d"
done
if [ -n "$PROJ" ]; then
	mount --bind "$TREE" "$r/var/home/user/proj"
	TREE=/var/home/user/proj
fi
cd "$r"
mkdir .oldroot
pivot_root . .oldroot
cd /
umount -l /.oldroot
rmdir /.oldroot
cd "$TREE"
`

// linkedHomesFiles are the files linkedHomesSetup makes, each by the
// path through its link and by the path it leads to.
var linkedHomesFiles = []string{
	"/home/other/secret", "/var/home/other/secret",
	"/root/secret", "/var/roothome/secret",
	"/mnt/disk/secret", "/var/mnt/disk/secret",
	"/srv/secret", "/var/srv/secret",
	"/home/user/.ssh/id_ed25519", "/var/home/user/.ssh/id_ed25519",
}

// linkedHomesListed are the directories round twenty-three's hook lists,
// and linkedHomesWritten those it writes into (each a mask's tmpfs).
var (
	linkedHomesListed  = []string{"/home/other", "/var/home/other", "/mnt", "/var/mnt", "/srv", "/var/srv"}
	linkedHomesWritten = []string{"/home", "/var/home", "/mnt", "/var/mnt", "/srv", "/var/srv"}
)

// TestRedteam23LinkedHomesAreHidden: round twenty-three's attempt
// (scripts/redteam23.py), on a host whose /home, /root, /mnt and /srv
// are links: a hook reads another user's file in /var/home, root's in
// /var/roothome (a --root-sandbox run is the host's root), the files in
// /var/mnt and /var/srv, the caller's own key under its HOME (given as
// /home/user, the link's path), each through the link and at the path
// it leads to, lists /home/other, /mnt and /srv, each at both, and
// writes into /home, /mnt and /srv, each at both. Each mask is made at
// the path the link leads to, read-only for the command as every mask
// is: every read finds nothing, every listing is empty, no write is
// made, and each is a read-only file system. Every run there was refused before, too ("mounting HOME: mount
// destination /root (symlinks are not followed)"): the command's HOME
// is mounted where /root leads.
func TestRedteam23LinkedHomesAreHidden(t *testing.T) {
	requireBwrap(t)
	requireRoot(t, "the test builds a root whose /home is a link, in a mount namespace of its own")
	requireTools(t, "python3", "unshare", "setpriv", "pivot_root")
	for _, c := range callers(t) {
		t.Run(c.name(), func(t *testing.T) {
			dir := workTree(t)
			args := slices.Concat([]string{"--", "python3", "redteam23.py"}, linkedHomesFiles,
				[]string{"--list"}, linkedHomesListed, []string{"--write"}, linkedHomesWritten)
			res := vigilesInMountNS(t, c.runner, dir, linkedHomesSetup,
				[]string{"NR=" + t.TempDir(), "TREE=" + dir, "HOME=/home/user"}, c.withArgs(args)...)
			checkScriptRan(t, res, len(linkedHomesFiles)+len(linkedHomesListed)+2*len(linkedHomesWritten))
		})
	}
}

// TestRedteam23TreeInLinkedHomeIsShown: with /var/home masked, a work
// tree in the caller's home there (/var/home/user/proj, HOME=/home/user,
// the link's path) is still shown at its path, and the run's writes to it
// and to its own HOME (/root, mounted where /root's link leads) are
// recorded; the caller's key beside it, and another user's home, are
// not read.
func TestRedteam23TreeInLinkedHomeIsShown(t *testing.T) {
	requireBwrap(t)
	requireRoot(t, "the test builds a root whose /home is a link, in a mount namespace of its own")
	requireTools(t, "python3", "unshare", "setpriv", "pivot_root")
	for _, c := range callers(t) {
		t.Run(c.name(), func(t *testing.T) {
			dir := workTree(t)
			args := []string{"--workdir", "/var/home/user/proj", "--", "sh", "-c", "[ \"$HOME\" = /root ] && echo made > ~/home.txt && echo made > made.txt && exec python3 redteam21state.py /home/user/.ssh/id_ed25519 /var/home/user/.ssh/id_ed25519 /var/home/other/secret"}
			res := vigilesInMountNS(t, c.runner, dir, linkedHomesSetup,
				[]string{"NR=" + t.TempDir(), "TREE=" + dir, "PROJ=1", "HOME=/home/user"}, c.withArgs(args)...)
			checkScriptRan(t, res, 3)
			for _, p := range []string{"made.txt", "~/home.txt"} {
				found := false
				for _, w := range res.Writes {
					found = found || w.Path == p
				}
				if !found {
					t.Errorf("the write to %s (the tree at /var/home/user/proj, the command's HOME where /root leads) was not recorded: %+v", p, res.Writes)
				}
			}
		})
	}
}

// TestRedteam23HomesAsTreeIsRefused: a work tree that holds every user's
// home at the path /home leads to (/var/home) is refused, as /home is
// (hiddenInTree): the tree is shown whole, and would show the homes the
// mask hides.
func TestRedteam23HomesAsTreeIsRefused(t *testing.T) {
	requireBwrap(t)
	requireRoot(t, "the test builds a root whose /home is a link, in a mount namespace of its own")
	requireTools(t, "python3", "unshare", "setpriv", "pivot_root")
	for _, c := range callers(t) {
		t.Run(c.name(), func(t *testing.T) {
			dir := workTree(t)
			res := vigilesInMountNSAny(t, c.runner, dir, linkedHomesSetup,
				[]string{"NR=" + t.TempDir(), "TREE=" + dir},
				c.withArgs([]string{"--workdir", "/var/home", "--", "cat", "/var/home/other/secret"})...)
			if res.Tier != "refused" || !strings.Contains(res.Refusal, "holds /var/home,") {
				t.Fatalf("tier %s (refusal %q, error %q), stdout %q: want the tree /var/home refused", res.Tier, res.Refusal, res.Error, res.Stdout)
			}
		})
	}
}

// TestRedteam23LinkedHomesWithStrictFS: a --strict-fs run on such a host
// sees none of them either (only the system directories, /opt and the
// tree), and its HOME is /root as anywhere.
func TestRedteam23LinkedHomesWithStrictFS(t *testing.T) {
	requireBwrap(t)
	requireRoot(t, "the test builds a root whose /home is a link, in a mount namespace of its own")
	requireTools(t, "python3", "unshare", "setpriv", "pivot_root")
	for _, c := range callers(t) {
		t.Run(c.name(), func(t *testing.T) {
			dir := workTree(t)
			args := slices.Concat([]string{"--strict-fs", "--", "sh", "-c", `[ -d /root ] && [ ! -L /root ] && [ "$HOME" = /root ] && echo x > ~/made && exec python3 redteam23.py "$@"`, "sh"},
				linkedHomesFiles, []string{"--list"}, linkedHomesListed, []string{"--write"})
			res := vigilesInMountNS(t, c.runner, dir, linkedHomesSetup,
				[]string{"NR=" + t.TempDir(), "TREE=" + dir, "HOME=/home/user"}, c.withArgs(args)...)
			checkScriptRan(t, res, len(linkedHomesFiles)+len(linkedHomesListed))
		})
	}
}
