package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
)

// uidLockDir is where brokers side by side claim SandboxUID uids: one
// file per uid in use, held with flock(2) for the run's life. The kernel
// drops the lock when its holder exits, however it exits, so a killed
// broker leaves no uid claimed.
const uidLockDir = "/run/vigiles/uids"

// sandboxUIDs hands out the uids of SandboxUID runs: the first slot that no
// running sandbox holds, from a window of 256 slots chosen by the process
// id (so brokers side by side seldom try the same uids first). A slot is
// held by this process (used) and, where uidLockDir can be made, by a lock
// on its file there, so that runs of different brokers never share a uid
// either. Without the directory (a read-only /run) only the runs of one
// broker are kept apart.
var sandboxUIDs = &uidSlots{base: SandboxUID + uint32(os.Getpid()%256)*256, dir: uidLockDir}

type uidSlots struct {
	mu   sync.Mutex
	base uint32
	dir  string // "" for this process's runs only
	used map[uint32]*os.File

	dirOnce sync.Once
	dirOK   bool
}

// take returns a free uid; release gives it back. It fails where every
// one is held (errNoUID), and where a uid's lock file can be neither made
// nor opened for another reason than another broker's lock (a directory
// the caller's own Landlock domain or a read-only bind keeps it from
// writing), naming that: each uid would fail alike, and "every uid is
// held" would send the user after sandboxes that are not running.
func (s *uidSlots) take() (uint32, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.used == nil {
		s.used = map[uint32]*os.File{}
	}
	s.dirOnce.Do(func() { s.dirOK = s.dir != "" && lockDir(s.dir) == nil })
	for i := uint32(0); i < SandboxUIDs; i++ {
		uid := SandboxUID + (s.base-SandboxUID+i)%SandboxUIDs
		if _, held := s.used[uid]; held {
			continue
		}
		var f *os.File
		if s.dirOK {
			var err error
			if f, err = lockUID(s.dir, uid); errors.Is(err, syscall.EWOULDBLOCK) {
				continue // another broker's run holds it
			} else if errors.Is(err, syscall.EACCES) || errors.Is(err, syscall.EPERM) || errors.Is(err, syscall.EROFS) {
				// Root refused a file in its own directory: what keeps
				// it is no file's mode but the confinement vigiles runs
				// in, or a read-only mount.
				return 0, fmt.Errorf("%w: claiming uid %d for the sandbox in %s: %w; fix: start vigiles outside the confinement that keeps root from writing there (a Landlock domain, an AppArmor or SELinux profile of whoever started it), or give it a writable %s",
					ErrRefused, uid, s.dir, err, s.dir)
			} else if err != nil {
				return 0, fmt.Errorf("claiming uid %d for the sandbox in %s: %w", uid, s.dir, err)
			}
		}
		s.used[uid] = f
		return uid, nil
	}
	return 0, errNoUID
}

// errNoUID is take's error where every SandboxUID uid is held.
var errNoUID = fmt.Errorf("%d sandboxes run at once: no unprivileged uid is left for another", SandboxUIDs)

func (s *uidSlots) release(uid uint32) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if f := s.used[uid]; f != nil {
		// Unlinked while still locked: a broker that opened the file
		// before this finds, once it has the lock, that its file is no
		// longer the one at the path, and tries again (lockUID).
		os.Remove(f.Name())
		f.Close()
	}
	delete(s.used, uid)
}

// lockDir makes dir, root's alone, or checks that it is: a directory that
// anyone else could write to would let them claim or free uids.
func lockDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	var st syscall.Stat_t
	if err := syscall.Lstat(dir, &st); err != nil {
		return err
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFDIR || st.Uid != uint32(os.Geteuid()) || st.Mode&0o022 != 0 {
		return errors.New(dir + " is not a directory only its owner may write to")
	}
	return nil
}

// lockUID claims uid's file in dir without waiting: the open file, locked,
// or an error when another process holds it.
func lockUID(dir string, uid uint32) (*os.File, error) {
	path := filepath.Join(dir, strconv.FormatUint(uint64(uid), 10))
	for try := 0; ; try++ {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW, 0o600)
		if err != nil {
			return nil, err
		}
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
			f.Close()
			return nil, err
		}
		// The holder before may have unlinked the file between this open
		// and this lock: then the lock is on a file nobody else will see.
		var held, named syscall.Stat_t
		if syscall.Fstat(int(f.Fd()), &held) == nil && syscall.Stat(path, &named) == nil &&
			held.Ino == named.Ino && held.Dev == named.Dev {
			return f, nil
		}
		f.Close()
		if try == 10 {
			// Other brokers' runs keep taking and freeing it: as held.
			return nil, fmt.Errorf("%s keeps changing under its lock: %w", path, syscall.EWOULDBLOCK)
		}
	}
}
