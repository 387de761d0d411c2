package sandbox

import (
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// treeNode is what a walk of the work tree (gitWalk) found in one
// directory, with the directory's identity and change time as fstat'ed
// before it was listed. Once published in trees it is never changed:
// several walks may read it at once.
type treeNode struct {
	dev, ino uint64
	ctime    int64 // st_ctim, in ns
	// trusted: a later walk may take this node where the directory has
	// the same identity and ctime (treeCache); otherwise it lists it.
	trusted      bool
	entries      int      // what its listing read, . and .. aside (maxGitWalk)
	dotGit, bare bool     // it holds a .git; it is a bare git dir (bareAt)
	dotenv       []string // its dotenv files' names (isDotenv)
	subs         []treeSub
}

// treeSub is an entry of a directory that the walk enters: a
// subdirectory, or one of no known type.
type treeSub struct {
	name string
	// node is nil where it was not listed (skipped, not a directory,
	// one its reader may not list, gone): it is tried anew at each walk.
	node *treeNode
}

// same says whether st is the directory n was recorded from, unchanged.
func (n *treeNode) same(st *unix.Stat_t) bool {
	return st.Mode&unix.S_IFMT == unix.S_IFDIR && uint64(st.Dev) == n.dev && st.Ino == n.ino && st.Ctim.Nano() == n.ctime
}

// racyMargin is how much older than the walk's start (the coarse clock) a
// directory's ctime must be for its node to be trusted: more than a
// file system's timestamp granularity (a second at most among ctimeKept's).
const racyMargin = 2 * time.Second

// maxCachedDirs bounds the directories a walk kept in trees may hold (some
// 150 bytes each): a larger tree is walked whole at each run.
const maxCachedDirs = 250_000

// ctimeKept says whether a file system of type magic (statfs's f_type)
// stamps a directory's ctime from this kernel's clock at every change of
// its entries, its mode, owner or extended attributes: local ones. A
// network or FUSE file system's ctime is its server's, which may lag,
// have another clock, or be cached (NFS's attribute cache, a FUSE
// daemon's), so its directories are listed at every walk.
func ctimeKept(magic int64) bool {
	switch magic {
	case unix.EXT4_SUPER_MAGIC, unix.XFS_SUPER_MAGIC, unix.BTRFS_SUPER_MAGIC, unix.TMPFS_MAGIC,
		unix.OVERLAYFS_SUPER_MAGIC, unix.F2FS_SUPER_MAGIC, zfsSuperMagic:
		return true
	}
	return false
}

// zfsSuperMagic is OpenZFS's statfs f_type.
const zfsSuperMagic = 0x2fc12fc1

// treeCache keeps this process's last walk of each root (and skip): an
// audit or vigiles test runs hundreds of hooks in one broker, each over
// the same tree, and each run's walk would list every directory of it
// again (four system calls a directory). A later walk asks each recorded
// directory for its identity and ctime (one fstatat, relative to root),
// lists only those that changed or are gone, walks whole the ones a
// listing newly names, and takes the rest from their nodes: what a full
// walk would find then. A checkout or .env the host adds while the audit
// runs is seen by every later run (the hooks themselves cannot change the
// host's tree: they write to an overlay).
//
// Why an unchanged ctime means an unchanged listing:
//   - What a listing finds (the names of a directory's entries and their
//     types, what bareAt asks of HEAD, objects and config) changes only by
//     a create, unlink, link, rename or mkdir in that directory, each of
//     which sets its ctime to the kernel's current time; its mode, owner
//     and ACL (whether it may be listed) set it too. Nothing but the
//     kernel sets ctime: utimes sets mtime and atime, which a program may
//     set back. A subdirectory is a node of its own, checked by its own
//     ctime; a mount on one gives another device and inode.
//   - The kernel stamps ctime from the coarse realtime clock (a tick;
//     multigrain timestamps on new kernels give a finer, never an
//     earlier, time), truncated to the file system's granularity. A
//     directory is fstat'ed before it is listed, after the walk read
//     CLOCK_REALTIME_COARSE (t0): a change after the fstat is stamped no
//     earlier than t0 truncated, which is later than any ctime older than
//     t0 less racyMargin. So a node whose ctime was that old (trusted) is
//     not the directory's listing only if the ctime moved. One changed
//     within the margin, in the same tick as its listing perhaps (git's
//     racily clean index entries), is not trusted: it is listed again at
//     the next walk, and recorded anew then.
//   - That holds while the realtime clock is not set back. A timer that
//     the kernel cancels whenever the clock is set (TFD_TIMER_CANCEL_ON_SET),
//     forward or back, and a coarse clock found earlier than at the last
//     walk, each drop the whole cache; a walk that began before a drop is
//     not kept. Where no such timer can be had nothing is kept.
//   - Only file systems that stamp ctime themselves are trusted
//     (ctimeKept); another's directories are listed at every walk.
//
// A walk that fails is not kept; one of more than maxCachedDirs
// directories neither, nor more than maxKeptWalks roots' walks. Walks may
// run at once (--jobs): the last to end is kept.
type treeCache struct {
	mu    sync.Mutex
	clock int   // a timerfd armed with TFD_TIMER_CANCEL_ON_SET; -1: none yet
	last  int64 // the coarse realtime clock at the last walk's start, in ns
	gen   uint64
	uses  uint64                  // walks begun, which orders keptWalk.used
	walks map[[2]string]*keptWalk // by root and skip
	// once are the roots (and skips) walked once, not yet kept: a walk
	// is kept from a root's second on, so that a process that makes one
	// run (vigiles run) pays nothing for the record (an fstat a
	// directory: 118 against 142 ms for 100,000 files in 10,000
	// directories).
	once map[[2]string]bool
}

// keptWalk is a walk kept in treeCache, and when it was last begun from.
type keptWalk struct {
	root *treeNode
	used uint64
}

// maxKeptWalks bounds the roots whose walks are kept (a work tree, the CI
// workspace around it): the least recently walked gives way.
const maxKeptWalks = 4

// trees is this process's cache of walks of work trees.
var trees = treeCache{clock: -1}

// scan is scanTree, taking from the last walk of root and skip what is
// known unchanged since.
func (c *treeCache) scan(root, skip string) (gits, dotenv []string, err error) {
	key := [2]string{root, skip}
	old, t0, gen := c.begin(key)
	w, n, err := walkTree(root, skip, old, t0)
	if err != nil {
		return nil, nil, err
	}
	if t0 != 0 {
		c.keep(key, n, gen, w.listed+w.reused)
	}
	return w.out, w.dotenv, nil
}

// begin returns the last walk kept of key, the coarse realtime clock now
// (0 where none may be kept) and the cache's generation, which a drop
// moves on.
func (c *treeCache) begin(key [2]string) (*treeNode, int64, uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	steady := c.steady()
	now := coarseNow()
	if now == 0 || c.clock < 0 {
		c.drop()
		return nil, 0, c.gen
	}
	if !steady || now < c.last {
		c.drop()
	}
	c.last = now
	c.uses++
	k := c.walks[key]
	if k == nil {
		if !c.once[key] {
			if c.once == nil || len(c.once) >= 4*maxKeptWalks {
				c.once = map[[2]string]bool{}
			}
			c.once[key] = true
			return nil, 0, c.gen
		}
		return nil, now, c.gen
	}
	k.used = c.uses
	return k.root, now, c.gen
}

// keep keeps n, key's walk begun in generation gen of dirs directories,
// where the clock was not set since and nothing was dropped.
func (c *treeCache) keep(key [2]string, n *treeNode, gen uint64, dirs int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.steady() {
		c.drop()
		return
	}
	if gen != c.gen || n == nil || dirs > maxCachedDirs {
		delete(c.walks, key)
		return
	}
	if c.walks == nil {
		c.walks = map[[2]string]*keptWalk{}
	}
	if k := c.walks[key]; k != nil {
		k.root = n
		return
	}
	if len(c.walks) >= maxKeptWalks {
		var least [2]string
		for k, v := range c.walks {
			if _, ok := c.walks[least]; !ok || v.used < c.walks[least].used {
				least = k
			}
		}
		delete(c.walks, least)
	}
	c.walks[key] = &keptWalk{root: n, used: c.uses}
}

// drop forgets every walk.
func (c *treeCache) drop() {
	c.walks = nil
	c.gen++
}

// steady says whether the realtime clock was not set since the cache's
// timer was armed; it arms it anew where it was. The first call makes the
// timer (nothing is kept before it); false where none can be made.
func (c *treeCache) steady() bool {
	if c.clock < 0 {
		fd, err := unix.TimerfdCreate(unix.CLOCK_REALTIME, unix.TFD_NONBLOCK|unix.TFD_CLOEXEC)
		if err != nil {
			return false
		}
		if !armClockTimer(fd) {
			unix.Close(fd)
			return false
		}
		c.clock = fd
		return true
	}
	var b [8]byte
	if _, err := unix.Read(c.clock, b[:]); err == unix.EAGAIN {
		return true
	}
	// ECANCELED: the clock was set. An expiry (a century away) or an
	// error is taken alike.
	if !armClockTimer(c.clock) {
		unix.Close(c.clock)
		c.clock = -1
	}
	return false
}

// coarseNow reads CLOCK_REALTIME_COARSE, the clock the kernel stamps
// ctime from, in ns (0 where it cannot).
func coarseNow() int64 {
	var ts unix.Timespec
	if unix.ClockGettime(unix.CLOCK_REALTIME_COARSE, &ts) != nil {
		return 0
	}
	return ts.Nano()
}

// armClockTimer arms fd, a CLOCK_REALTIME timerfd, to expire a century
// from now and to be cancelled whenever the clock is set.
func armClockTimer(fd int) bool {
	at := unix.NsecToTimespec(time.Now().AddDate(100, 0, 0).UnixNano())
	return unix.TimerfdSettime(fd, unix.TFD_TIMER_ABSTIME|unix.TFD_TIMER_CANCEL_ON_SET, &unix.ItimerSpec{Value: at}, nil) == nil
}
