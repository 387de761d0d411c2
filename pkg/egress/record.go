package egress

import (
	"net/netip"
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/vigiles/action/pkg/evidence"
)

// recorder collects attempts from the DNS stub, the proxy and NFLOG and
// deduplicates them into evidence.Egress entries.
type recorder struct {
	mu      sync.Mutex
	seq     uint64
	entries map[string]*recEntry
	// names maps an address to the first allowlisted (or refused) name the
	// DNS stub saw resolve to it, so connects can be named.
	names map[netip.Addr]string
}

type recEntry struct {
	first time.Time
	seq   uint64
	e     evidence.Egress
}

// maxEntries caps distinct destinations kept per run (a hostile command
// could otherwise grow the record without bound).
const maxEntries = 10000

const overflowDetail = "more destinations than vigiles records one by one"

func newRecorder() *recorder {
	return &recorder{entries: map[string]*recEntry{}, names: map[netip.Addr]string{}}
}

func entryKey(e evidence.Egress) string {
	return string(e.Via) + "\x00" + e.Host + "\x00" + e.IP + "\x00" + strconv.Itoa(e.Port) + "\x00" +
		e.Proto + "\x00" + strconv.FormatBool(e.Allowed) + "\x00" + e.Detail
}

// add records one attempt (e.Attempts is ignored; each call is one).
func (r *recorder) add(at time.Time, e evidence.Egress) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.addLocked(at, e, 1)
}

func (r *recorder) addLocked(at time.Time, e evidence.Egress, attempts int) *recEntry {
	k := entryKey(e)
	if _, ok := r.entries[k]; !ok && len(r.entries) >= maxEntries {
		// A run that tries this many destinations is recorded in full up
		// to the cap; the rest are counted in one entry per kind.
		e = evidence.Egress{Via: e.Via, Proto: e.Proto, Allowed: e.Allowed, Detail: overflowDetail}
		k = entryKey(e)
	}
	if x, ok := r.entries[k]; ok {
		x.e.Attempts += attempts
		if at.Before(x.first) {
			x.first = at
		}
		return x
	}
	r.seq++
	e.Attempts = attempts
	x := &recEntry{first: at, seq: r.seq, e: e}
	r.entries[k] = x
	return x
}

// nameAddr remembers that host resolved to a.
func (r *recorder) nameAddr(a netip.Addr, host string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.names[a]; !ok && len(r.names) < maxEntries {
		r.names[a] = host
	}
}

func (r *recorder) nameOf(a netip.Addr) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.names[a]
}

// flowCount is one accounted flow read back from the rule set.
type flowCount struct {
	addr    netip.Addr
	proto   string
	port    uint16
	packets uint64
	bytes   uint64
}

// addPacket turns a logged packet into a connect entry.
func (r *recorder) addPacket(ev packetEvent) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.addLocked(ev.at, connectEntry(r.names[ev.dst], ev.dst, ev.proto, ev.port, !ev.dropped), 1)
}

// addFlows adds packet and byte counts to the allowed connect entries;
// a flow without a logged start still gets an entry (with no attempts
// counted), so nothing that went through is left out.
func (r *recorder) addFlows(flows []flowCount) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, f := range flows {
		e := connectEntry(r.names[f.addr], f.addr, f.proto, f.port, true)
		x, ok := r.entries[entryKey(e)]
		if !ok {
			x = r.addLocked(time.Now(), e, 0)
		}
		x.e.Packets += f.packets
		x.e.Bytes += f.bytes
	}
}

func connectEntry(host string, a netip.Addr, proto string, port uint16, allowed bool) evidence.Egress {
	return evidence.Egress{Host: host, IP: a.String(), Port: int(port), Proto: proto, Via: evidence.ViaConnect, Allowed: allowed}
}

// list returns the entries ordered by first attempt; never nil.
func (r *recorder) list() []evidence.Egress {
	r.mu.Lock()
	defer r.mu.Unlock()
	xs := make([]*recEntry, 0, len(r.entries))
	for _, x := range r.entries {
		xs = append(xs, x)
	}
	sort.Slice(xs, func(i, j int) bool {
		if !xs[i].first.Equal(xs[j].first) {
			return xs[i].first.Before(xs[j].first)
		}
		return xs[i].seq < xs[j].seq
	})
	out := make([]evidence.Egress, 0, len(xs))
	for _, x := range xs {
		out = append(out, x.e)
	}
	return out
}
