package sandbox

import (
	"errors"
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

// take returns a free uid, or false when every one is held; release gives
// it back.
func (s *uidSlots) take() (uint32, bool) {
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
			if f, err = lockUID(s.dir, uid); err != nil {
				continue // another broker's run holds it
			}
		}
		s.used[uid] = f
		return uid, true
	}
	return 0, false
}

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
			return nil, errors.New(path + " keeps changing under its lock")
		}
	}
}
