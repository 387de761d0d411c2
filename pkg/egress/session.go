package egress

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"strconv"
	"strings"
	"sync"

	"github.com/google/nftables"
	"github.com/google/nftables/expr"

	"github.com/vigiles/action/pkg/evidence"
)

var randReader = rand.Reader

// ErrIncomplete is returned by Finish (with the entries it has) when the
// record is not whole: the kernel dropped log messages (with ENOBUFS, or
// without a word: fewer received than the rule set counted) or DNS questions, a
// stream to the stub or the proxy was not read to its end, or a set that
// counts traffic or connections filled up.
var ErrIncomplete = errors.New("egress record incomplete")

// Layer is the egress layer as the sandbox uses it. The zero value works.
type Layer struct {
	// Logf receives diagnostics; nil discards them.
	Logf func(format string, args ...any)
	// DNSListen overrides the stub's addresses (tests); nil means
	// 127.0.0.1:53 and [::1]:53.
	DNSListen []string

	// stopping counts the connectors closed and not yet reaped.
	stopping sync.WaitGroup

	sweepMu sync.Mutex
	swept   map[string]bool // the TMPDIRs Sweep has cleared
}

// Stopped waits until every connector this layer attached and that has
// been closed since is gone. Close does not wait for a connector's exit,
// so that a run's result need not wait for the kernel's teardown of its
// tap; a process about to exit calls Stopped first and leaves none behind
// (a container's pid 1 may never reap an orphan).
func (l *Layer) Stopped() { l.stopping.Wait() }

func (l *Layer) logf(format string, args ...any) {
	if l != nil && l.Logf != nil {
		l.Logf(format, args...)
	}
}

// Session is a wall set up by Setup, with its recorders running.
type Session struct {
	pol   *policy
	rec   *recorder
	log   *nflog
	rs    *ruleset
	dns   *dnsStub
	proxy *proxy
	wall  *wallWriter
	// discards watches the destroyed sockets for the stub's TCP
	// listeners and the proxy, all of them (nil: sock_diag could not be
	// listened to).
	discards *discardWatch

	dnsListen []string
	logf      func(string, ...any)

	// logCounted and logReceived are the packets the rule set counted
	// as it logged them and the messages the log's reader received, as
	// finish compared them (the tests read them).
	logCounted, logReceived uint64

	once     sync.Once
	entries  []evidence.Egress
	dropped  *evidence.Dropped
	finished error
}

// Setup runs inside the sandbox's init, in its fresh network namespace,
// with CAP_NET_ADMIN and CAP_NET_BIND_SERVICE there. It brings lo up (and,
// for deny and record, routes every destination through it so each attempt
// becomes a packet the wall sees), binds the NFLOG group, loads the whole
// rule set in one batch, and starts the DNS stub and, in record mode, the
// recording proxy. Any failure is an error and the run must be refused.
func (l *Layer) Setup(ctx context.Context, p evidence.EgressPolicy) (*Session, error) {
	pol, err := compilePolicy(p)
	if err != nil {
		return nil, err
	}
	allow := pol.mode == evidence.EgressAllow
	if allow && !pol.upstream.IsValid() && len(pol.allow) > 0 {
		if up := DefaultUpstream(); up != "" {
			pol.upstream, _ = parseUpstream(up)
		}
		if !pol.upstream.IsValid() {
			return nil, errors.New("egress allow: no DNS upstream to resolve allowlisted names: pass --dns-upstream ADDR[:PORT]")
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := setupLoopback(allow); err != nil {
		return nil, fmt.Errorf("egress setup: %w", err)
	}
	if err := unlimitPortUnreachables(); err != nil {
		l.logf("egress: %v (UDP attempts at the sandbox's own addresses that nothing answered, past the kernel's ICMP rate limit, go uncounted)", err)
	}
	if err := openPingSockets(); err != nil {
		return nil, fmt.Errorf("egress setup: %w", err)
	}
	s := &Session{pol: pol, rec: newRecorder(), logf: l.logf}
	if s.log, err = openNFLOG(nflogGroup, s.rec.addPacket); err != nil {
		return nil, fmt.Errorf("egress setup: %w", kernelWallError(err))
	}
	s.rec.sync = s.log.sync
	fail := func(err error) (*Session, error) {
		s.stopRecorders()
		s.log.stop()
		return nil, fmt.Errorf("egress setup: %w", err)
	}
	c, err := nftables.New()
	if err != nil {
		return fail(kernelWallError(fmt.Errorf("opening nftables: %w", err)))
	}
	if s.rs, err = buildRuleset(c, pol); err != nil {
		return fail(kernelWallError(fmt.Errorf("building the rule set: %w", err)))
	}
	if err := c.Flush(); err != nil {
		return fail(kernelWallError(fmt.Errorf("loading the rule set: %w", err)))
	}
	if allow {
		wc, err := nftables.New(nftables.AsLasting())
		if err != nil {
			return fail(fmt.Errorf("opening nftables for the dns stub: %w", err))
		}
		s.wall = &wallWriter{conn: wc, rs: s.rs}
	}
	if s.discards, err = watchDiscards(l.logf); err != nil {
		l.logf("egress: %v (every connection the command resets to the dns stub or the proxy counts as lost)", err)
	}
	s.dns = &dnsStub{pol: pol, rec: s.rec, wall: s.wall, discards: s.discards, logf: l.logf}
	listen := l.DNSListen
	if listen == nil {
		listen = []string{"127.0.0.1:53"}
		if ipv6Available() {
			listen = append(listen, "[::1]:53")
		}
	}
	s.dnsListen = listen
	serve := listen
	if l.DNSListen == nil {
		// resolv.conf names 127.0.0.1 and ::1, but a command may name a
		// resolver itself: systemd-resolved's 127.0.0.53, Debian's
		// 127.0.1.1, Docker's 127.0.0.11. Nothing of the host's listens
		// in the sandbox's namespace, so such a question met no listener
		// and was not recorded at all (loopback is not egress). The stub
		// listens on the unspecified addresses instead, and records and
		// answers a question sent to any address of the namespace.
		serve = []string{"0.0.0.0:53"}
		if ipv6Available() {
			serve = append(serve, "[::]:53")
		}
	}
	if err := s.dns.start(serve); err != nil {
		s.dns = nil
		return fail(err)
	}
	if pol.mode == evidence.EgressRecord {
		if s.proxy, err = startProxy("127.0.0.1:0", s.rec, s.discards, l.logf); err != nil {
			return fail(err)
		}
	}
	return s, nil
}

// unlimitPortUnreachables takes the ICMP and ICMPv6 destination
// unreachable messages out of the kernel's rate limits in this network
// namespace (net.ipv4.icmp_ratemask, net.ipv6.icmp.ratemask, both per
// namespace). A UDP datagram to a local port with no socket is recorded
// through its port unreachable (rules.go, logPrefixLocal), and before
// 6.12 the kernel applied its limit across the namespace (a burst of 50,
// then 1,000 a second) to loopback too, so past it such attempts went
// uncounted. The namespace is the sandbox's own: nothing else sends there.
func unlimitPortUnreachables() error {
	var errs []error
	for _, f := range []struct {
		path string
		edit func(string) string
	}{
		{"/proc/sys/net/ipv4/icmp_ratemask", func(v string) string {
			n, err := strconv.ParseUint(v, 10, 32)
			if err != nil {
				return ""
			}
			return strconv.FormatUint(n&^(1<<3), 10) // type 3, destination unreachable
		}},
		{"/proc/sys/net/ipv6/icmp/ratemask", func(v string) string {
			return ratemaskWithout(v, 1) // type 1, destination unreachable
		}},
	} {
		b, err := os.ReadFile(f.path)
		if errors.Is(err, os.ErrNotExist) {
			continue // no IPv6, or a kernel without the setting
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		v := f.edit(strings.TrimSpace(string(b)))
		if v == "" {
			errs = append(errs, fmt.Errorf("%s: cannot read %q", f.path, b))
			continue
		}
		if err := os.WriteFile(f.path, []byte(v+"\n"), 0); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// openPingSockets lets the command open ping sockets (net.ipv4.
// ping_group_range, which holds for IPv6 too, per namespace) for the
// groups this process's user namespace maps, the command's among them.
// A fresh namespace has them off ("1 0"), where Claude Code's host mostly
// has them on (systemd's default: every group): a hook's ping then failed
// at socket(2), before it named a destination, and left nothing in the
// record, so no-egress passed a hook that pings a host under Claude Code.
// Opened, its echo request is a packet the wall logs and refuses, an icmp
// entry of the address. A ping socket sends echo requests alone (the
// kernel refuses any other ICMP type on it), so the command still sends
// no ICMP error for the wall to take for the kernel's.
func openPingSockets() error {
	// The kernel takes no group above GID_T_MAX there.
	const maxPingGroup = 1<<31 - 1
	const f = "/proc/sys/net/ipv4/ping_group_range"
	b, err := os.ReadFile("/proc/self/gid_map")
	if err != nil {
		return err
	}
	// The first extent: the init's own group, which the command keeps.
	fs := strings.Fields(string(b))
	if len(fs) < 3 {
		return fmt.Errorf("%s: no group mapped in /proc/self/gid_map", f)
	}
	lo, err1 := strconv.ParseUint(fs[0], 10, 32)
	n, err2 := strconv.ParseUint(fs[2], 10, 32)
	if err1 != nil || err2 != nil || n == 0 || lo > maxPingGroup {
		return fmt.Errorf("%s: cannot read /proc/self/gid_map %q", f, b)
	}
	if err := os.WriteFile(f, []byte(fmt.Sprintf("%d %d\n", lo, min(lo+n-1, maxPingGroup))), 0); err != nil {
		return fmt.Errorf("opening ping sockets to the command, whose pings would otherwise go unrecorded: %w", err)
	}
	return nil
}

// ratemaskWithout is net.ipv6.icmp.ratemask's list of types and ranges
// ("0-1,3-127") without typ; "" when it cannot be read.
func ratemaskWithout(v string, typ int) string {
	var out []string
	for _, part := range strings.Split(v, ",") {
		if part == "" {
			continue
		}
		lo, hi, isRange := strings.Cut(part, "-")
		a, err1 := strconv.Atoi(lo)
		b := a
		var err2 error
		if isRange {
			b, err2 = strconv.Atoi(hi)
		}
		if err1 != nil || err2 != nil || b < a {
			return ""
		}
		for _, r := range [][2]int{{a, min(b, typ-1)}, {max(a, typ+1), b}} {
			switch {
			case r[0] > r[1]:
			case r[0] == r[1]:
				out = append(out, strconv.Itoa(r[0]))
			default:
				out = append(out, strconv.Itoa(r[0])+"-"+strconv.Itoa(r[1]))
			}
		}
	}
	if len(out) == 0 {
		return "0" // the kernel takes no empty list; type 0 is an echo reply
	}
	return strings.Join(out, ",")
}

// wallFix names what the egress wall needs of the kernel: every confined
// run sets it up, deny mode too, and is refused without it.
const wallFix = "fix: the kernel needs nf_tables and nfnetlink_log (modprobe nf_tables nfnetlink_log; in a container, on the host), " +
	"usable over netlink in the sandbox's network namespace; vigiles doctor checks it (nftables-in-netns)"

// kernelWallError adds wallFix to an error of the wall's kernel half
// (NFLOG, the nftables rule set), so that the refusal names the fix.
func kernelWallError(err error) error { return fmt.Errorf("%w; %s", err, wallFix) }

// Connected runs in the init once the broker has attached the connector
// (allow mode), before the command starts. slirp4netns is attached
// without --configure, so its tap is brought up and routed here; pasta
// configures its own interface. In deny and record mode it does nothing.
func (s *Session) Connected() error {
	if s.pol.mode != evidence.EgressAllow {
		return nil
	}
	switch s.pol.connector {
	case ConnectorPasta:
		return nil
	case "":
		// Without the name the tap may go unconfigured and the command
		// run with no route out, saying nothing.
		return errors.New("egress allow: the policy names no connector (the broker fills it in from Layer.Connector)")
	}
	if err := configureTap(slirpTap); err != nil {
		return fmt.Errorf("egress allow: configuring slirp4netns's %s: %w", slirpTap, err)
	}
	return nil
}

// HostAddrs hands the session the host's own addresses, which the broker
// lists in its network namespace (allow mode); the init calls it before the
// command starts. Through slirp4netns or pasta a connection to one comes
// from the host itself and reaches services listening there, on that
// address or on all of them; the DNS stub refuses such an address in the
// answer for an allowlisted name, as it refuses private ones (unless
// --allow-ip covers it). In deny and record mode, where the stub forwards
// nothing, it changes nothing.
func (s *Session) HostAddrs(addrs []netip.Prefix) {
	if s.dns != nil {
		s.dns.setHost(addrs)
	}
}

func (s *Session) stopRecorders() {
	var wg sync.WaitGroup
	if s.dns != nil {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.dns.stop()
		}()
	}
	if s.proxy != nil {
		s.proxy.stop()
	}
	wg.Wait()
	if s.discards != nil {
		s.discards.close()
	}
	if s.wall != nil {
		s.wall.mu.Lock()
		_ = s.wall.conn.CloseLasting()
		s.wall.mu.Unlock()
	}
}

// Env is added to the command's environment. In record mode it points
// every proxy variable curl, Node, Python and Go honour at the recording
// proxy, but for the sandbox's own loopback (noProxy); in deny and allow
// modes it is empty (allow mode does not route
// HTTP through a proxy: the wall and the DNS stub see every connection).
func (s *Session) Env() []string {
	if s.proxy == nil {
		return []string{}
	}
	u := "http://" + s.proxy.addr()
	return []string{
		"HTTP_PROXY=" + u, "HTTPS_PROXY=" + u, "http_proxy=" + u, "https_proxy=" + u,
		"ALL_PROXY=" + u, "all_proxy=" + u, "NODE_USE_ENV_PROXY=1",
		// Set, so that none the caller has reaches the command, to the
		// sandbox's own loopback alone: a hook's own local server is
		// no egress (the wall does not record it either), and a
		// session without a proxy reaches it directly.
		"NO_PROXY=" + noProxy, "no_proxy=" + noProxy,
	}
}

// noProxy is the command's NO_PROXY in record mode: the loopback names
// curl, Node, Python and Go each read.
const noProxy = "localhost,127.0.0.1,::1"

// ResolvConf is the command's /etc/resolv.conf: the stub only.
func (s *Session) ResolvConf() []byte {
	var b []byte
	for _, a := range s.dnsListen {
		if ap, err := netip.ParseAddrPort(a); err == nil && ap.Port() == 53 {
			b = append(b, "nameserver "+ap.Addr().String()+"\n"...)
		}
	}
	return append(b, "options timeout:2 attempts:1\n"...)
}

// Finish stops the recorders, reads the NFLOG records and the rule set's
// counters, and returns one entry per destination (Attempts counted),
// ordered by first attempt; never a nil slice. Dropped is non-nil only in
// allow mode. It may be called more than once; later calls return the
// first result.
func (s *Session) Finish() ([]evidence.Egress, *evidence.Dropped, error) {
	s.once.Do(func() { s.entries, s.dropped, s.finished = s.finish() })
	return s.entries, s.dropped, s.finished
}

func (s *Session) finish() ([]evidence.Egress, *evidence.Dropped, error) {
	s.stopRecorders()
	var errs []error
	var flows []flowCount
	var dropped *evidence.Dropped
	c, err := nftables.New()
	if err != nil {
		c = nil
		errs = append(errs, fmt.Errorf("opening nftables: %w", err))
	} else {
		if s.pol.mode == evidence.EgressAllow {
			// The connections the command closed may still be sending
			// what it wrote: ended first, so that nothing passes the
			// wall once its counters are read (orphans.go).
			if err := endOrphans(s.logf); err != nil {
				errs = append(errs, err)
			}
			for _, fam := range []struct{ flows, conns, syns string }{{setFlows4, setConns4, setSyns4}, {setFlows6, setConns6, setSyns6}} {
				if sy, err := c.GetSetElements(s.rs.sets[fam.syns]); err != nil {
					errs = append(errs, fmt.Errorf("reading %s: %w", fam.syns, err))
				} else if len(sy) >= dynSetSize {
					errs = append(errs, fmt.Errorf("the %s set filled up (%d TCP connections): each SYN of a later connection, retransmitted ones too, counted as an attempt: %w", fam.syns, dynSetSize, ErrIncomplete))
				}
				// The connections first: a packet passing between the
				// two reads then adds to the flows, never only to them.
				co, cerr := c.GetSetElements(s.rs.sets[fam.conns])
				if cerr != nil {
					errs = append(errs, fmt.Errorf("reading %s: %w", fam.conns, cerr))
				} else if len(co) >= dynSetSize {
					errs = append(errs, fmt.Errorf("the %s set filled up (%d connections): each packet of a later connection counted as an attempt: %w", fam.conns, dynSetSize, ErrIncomplete))
				}
				fl, err := c.GetSetElements(s.rs.sets[fam.flows])
				if err != nil {
					errs = append(errs, fmt.Errorf("reading %s: %w", fam.flows, err))
					continue
				}
				flows = append(flows, decodeFlows(fl)...)
				if len(fl) >= dynSetSize {
					errs = append(errs, fmt.Errorf("the %s set filled up (%d destinations): traffic to the destinations past them went through uncounted: %w", fam.flows, dynSetSize, ErrIncomplete))
				} else if n := uncounted(fl, co); cerr == nil && n > 0 {
					// The kernel makes an element, and its counter, as
					// the packet passes, and may find no memory for it
					// then (a burst of new destinations): the packet
					// went through, uncounted.
					errs = append(errs, fmt.Errorf("the %s set could not take %d destinations the command connected to (the kernel had no memory for their counters at that moment): traffic to them went through uncounted: %w", fam.flows, n, ErrIncomplete))
				}
			}
			dropped = &evidence.Dropped{}
			rules, err := c.GetRules(s.rs.table, s.rs.output)
			if err != nil {
				errs = append(errs, fmt.Errorf("reading the drop counter: %w", err))
			}
			for _, r := range rules {
				for _, e := range r.Exprs {
					if ctr, ok := e.(*expr.Counter); ok {
						dropped.Packets += ctr.Packets
						dropped.Bytes += ctr.Bytes
					}
				}
			}
		}
	}
	// The packets the rule set logged, read before the log is drained:
	// the command has ended and the stub and the proxy are stopped, so
	// nothing the command sends passes the wall any more, and each message
	// the kernel queued for a packet counted here is read below. (In allow
	// mode the kernel may still answer what the connector delivers late,
	// and log it: a message more than counted, which is no loss.)
	counted, countErr := uint64(0), error(nil)
	if c == nil {
		countErr = errors.New("no nftables connection")
	} else if o, err := c.GetObject(&nftables.CounterObj{Table: s.rs.table, Name: counterLogged}); err != nil {
		countErr = err
	} else if co, ok := o.(*nftables.CounterObj); !ok {
		countErr = fmt.Errorf("the kernel answered %T", o)
	} else {
		counted = co.Packets
	}
	lost, stopErr := s.log.stop()
	if stopErr != nil {
		errs = append(errs, stopErr)
	}
	s.rec.addFlows(mergeICMP(flows))
	if lost > 0 {
		errs = append(errs, fmt.Errorf("the kernel dropped %d batches of packet logs: %w", lost, ErrIncomplete))
	}
	received := s.log.received.Load()
	s.logCounted, s.logReceived = counted, received
	switch {
	case countErr != nil:
		errs = append(errs, fmt.Errorf("reading the count of packets the wall logged, without which no packet log the kernel dropped unsaid can be told (%v): %w", countErr, ErrIncomplete))
	case received < counted && lost == 0 && stopErr == nil:
		// nfnetlink_log drops a message where it finds no memory for
		// it, and says nothing (no ENOBUFS): only the count tells.
		errs = append(errs, fmt.Errorf("the wall logged %d packets and the packet log's reader received %d: the kernel dropped %d packet logs without a word: %w", counted, received, counted-received, ErrIncomplete))
	}
	if s.dns != nil && s.dns.lost > 0 {
		errs = append(errs, fmt.Errorf("the dns stub's queue overflowed and %d questions were lost: %w", s.dns.lost, ErrIncomplete))
	}
	if s.dns != nil && s.dns.tcpLost().total() > 0 {
		l := s.dns.tcpLost()
		errs = append(errs, fmt.Errorf("the dns stub missed what the command sent on %d TCP connections (%s): %w", l.total(), l, ErrIncomplete))
	}
	if s.proxy != nil && s.proxy.lost().total() > 0 {
		l := s.proxy.lost()
		errs = append(errs, fmt.Errorf("the recording proxy missed what the command sent on %d connections (%s): %w", l.total(), l, ErrIncomplete))
	}
	if len(errs) > 0 {
		return s.rec.list(), dropped, fmt.Errorf("egress finish: %w", errors.Join(errs...))
	}
	return s.rec.list(), dropped, nil
}

// uncounted is how many destinations of the connections in conns (address
// . proto . port . source address . port) have no element in flows
// (address . proto . port): each connection's packets pass the rule that
// counts its destination right after the one that adds the connection, so
// a destination missing there is one the kernel could not add.
func uncounted(flows, conns []nftables.SetElement) int {
	have := make(map[string]bool, len(flows))
	for _, el := range flows {
		have[string(el.Key)] = true
	}
	missing := map[string]bool{}
	for _, el := range conns {
		var dst int
		switch len(el.Key) {
		case 20: // 4 . 4 . 4 . 4 . 4 (each field padded to 32 bits)
			dst = 12
		case 44: // 16 . 4 . 4 . 16 . 4
			dst = 24
		default:
			// Not a key this rule set makes: counted as uncounted, so
			// that a change to the rules cannot turn the check off.
			missing[string(el.Key)] = true
			continue
		}
		if k := string(el.Key[:dst]); !have[k] {
			missing[k] = true
		}
	}
	return len(missing)
}

// decodeFlows reads address . proto . port keys (fields padded to 32 bits).
func decodeFlows(els []nftables.SetElement) []flowCount {
	var out []flowCount
	for _, el := range els {
		k := el.Key
		var alen int
		switch len(k) {
		case 12:
			alen = 4
		case 24:
			alen = 16
		default:
			continue
		}
		a, _ := netip.AddrFromSlice(k[:alen])
		f := flowCount{addr: a.Unmap()}
		var ported bool
		f.proto, ported = l4Name(k[alen])
		if ported {
			f.port = binary.BigEndian.Uint16(k[alen+4 : alen+6])
		}
		if el.Counter != nil {
			f.packets, f.bytes = el.Counter.Packets, el.Counter.Bytes
		}
		out = append(out, f)
	}
	return out
}

// mergeICMP folds flows that differ only in a port that is not one (the
// accounting key reads two transport bytes for every protocol).
func mergeICMP(fs []flowCount) []flowCount {
	type key struct {
		a     netip.Addr
		proto string
		port  uint16
	}
	idx := map[key]int{}
	var out []flowCount
	for _, f := range fs {
		k := key{f.addr, f.proto, f.port}
		if i, ok := idx[k]; ok {
			out[i].packets += f.packets
			out[i].bytes += f.bytes
			continue
		}
		idx[k] = len(out)
		out = append(out, f)
	}
	return out
}
