package sandbox

import (
	"os"
	"sync"
)

// sandboxUIDs hands out the uids of SandboxUID runs: in this process, the
// lowest slot no running sandbox holds, in a window of 256 slots chosen by
// the process id, so that runs of one broker never share a uid and runs of
// brokers side by side share one only when their pids agree modulo 256
// and they run more than 256 sandboxes at once.
var sandboxUIDs = &uidSlots{base: SandboxUID + uint32(os.Getpid()%256)*256}

type uidSlots struct {
	mu   sync.Mutex
	base uint32
	used map[uint32]bool
}

// take returns a free uid; release gives it back.
func (s *uidSlots) take() uint32 {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.used == nil {
		s.used = map[uint32]bool{}
	}
	for i := uint32(0); ; i++ {
		uid := SandboxUID + (s.base-SandboxUID+i)%SandboxUIDs
		if !s.used[uid] {
			s.used[uid] = true
			return uid
		}
	}
}

func (s *uidSlots) release(uid uint32) {
	s.mu.Lock()
	delete(s.used, uid)
	s.mu.Unlock()
}
