package sandbox

import (
	"os"
	"sync"
)

// sandboxUIDs hands out the uids of SandboxUID runs: the first slot no
// running sandbox of this process holds, from a window of 256 slots chosen
// by the process id. Runs of one broker never share a uid; brokers side by
// side start in the same window when their pids agree modulo 256 (and one
// with more than 256 sandboxes at once runs on into the next window), and
// their runs may then share a uid.
var sandboxUIDs = &uidSlots{base: SandboxUID + uint32(os.Getpid()%256)*256}

type uidSlots struct {
	mu   sync.Mutex
	base uint32
	used map[uint32]bool
}

// take returns a free uid, or false when every one is held; release gives
// it back.
func (s *uidSlots) take() (uint32, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.used == nil {
		s.used = map[uint32]bool{}
	}
	for i := uint32(0); i < SandboxUIDs; i++ {
		uid := SandboxUID + (s.base-SandboxUID+i)%SandboxUIDs
		if !s.used[uid] {
			s.used[uid] = true
			return uid, true
		}
	}
	return 0, false
}

func (s *uidSlots) release(uid uint32) {
	s.mu.Lock()
	delete(s.used, uid)
	s.mu.Unlock()
}
