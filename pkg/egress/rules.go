package egress

import (
	"encoding/binary"
	"net/netip"
	"slices"

	"github.com/google/nftables"
	"github.com/google/nftables/expr"
	"golang.org/x/sys/unix"

	"github.com/vigiles/action/pkg/evidence"
)

// Names and numbers of the rule set. They are constants of vigiles, never
// derived from anything a run supplies.
const (
	tableName = "vigiles"
	// nflogGroup is the NFLOG group the rule set logs to; groups are per
	// network namespace, so a fixed number is safe.
	nflogGroup = 0x7669
	// dnsMark is the SO_MARK of the DNS stub's upstream sockets. Setting
	// SO_MARK needs CAP_NET_ADMIN, which the command never holds, so only
	// the stub's own questions to the upstream match it.
	dnsMark = 0x7669

	// counterLogged is the named counter every rule that logs to
	// nflogGroup adds to as it logs (the expression right before the
	// log's: buildRuleset's add puts it there): Finish compares it with
	// the messages the log's reader received, so that a message the
	// kernel dropped without a word (nfnetlink_log finds no memory for
	// it) makes the record incomplete.
	counterLogged = "logged"

	logPrefixDrop   = "vigiles-drop"
	logPrefixAccept = "vigiles-acc"
	// logPrefixLocal logs the kernel's answer to an attempt at one of the
	// namespace's own addresses that nothing there took: the reset of a
	// TCP connect, the port unreachable of a UDP datagram (nflog.go turns
	// it back into the attempt).
	logPrefixLocal = "vigiles-lo"
	// logPrefixLocalSent logs an attempt at one of the namespace's own
	// addresses that its kernel never answers (a signed SYN, a UDP
	// datagram over IPv6 without a checksum): the packet itself, as sent.
	logPrefixLocalSent = "vigiles-lo-sent"
	// logPrefixLocalFrom logs a packet to one of the namespace's own
	// addresses from an address it does not hold (IPV6_FREEBIND), which
	// the wall drops: the packet itself, as sent, with room for a
	// question (logSnaplenDNS).
	logPrefixLocalFrom = "vigiles-lo-from"
	// logPrefixMLD logs an MLD report or done the allow-mode wall lets
	// through to the connector's link: the groups it names that the
	// command joined are recorded (nflog.go's membershipGroups).
	logPrefixMLD = "vigiles-mld"

	// logSnaplen is how much of a logged packet NFLOG copies: the IP
	// header (IPv4 options included, 60 bytes at most; an IPv6 fragment
	// header) and the transport ports. The command cannot add IPv6
	// hop-by-hop or destination options (they need CAP_NET_RAW); the
	// routing header it can add is logged with logSnaplenRouted: the
	// IPv6 header, the longest routing header (2,048 bytes), a fragment
	// header and the ports.
	logSnaplen = 128
	// logSnaplenRouted also holds a DNS question after the ports (the
	// longest TCP header and the message's length, the DNS header, the
	// longest name, its type and class), so that a routed datagram or
	// SYN to port 53 is named as any other is (logSnaplenDNS).
	logSnaplenRouted = 40 + 2048 + 8 + 60 + 2 + 12 + 255 + 4
	// logSnaplenLocal is the snapshot of a port unreachable the kernel
	// sends for a datagram to a local port: its IPv4 header (the options
	// of the datagram echoed, 60 bytes at most), the ICMP header, the
	// datagram's IPv4 header (60 at most) and its ports. ICMPv6 needs
	// less (40, 8, 40, a fragment header, 8).
	logSnaplenLocal = 60 + 8 + 60 + 8
	// logSnaplenDNS is the snapshot of a refused datagram to port 53, a
	// DNS question asked of a resolver other than the sandbox's stub, or
	// to mDNS's or LLMNR's port (questionPorts: their questions are in
	// DNS's format): the IP header (60 at most; IPv6's 40 and a fragment
	// header), the UDP header, the DNS header and a question with the
	// longest name (255 bytes on the wire, its type and class), so that
	// nflog.go can name what was asked. A TCP segment to port 53 takes it
	// too, with room for the longest TCP header (60) and the message's
	// length (2) in place of the UDP header: a SYN carries a question
	// when the command sends it with TCP_FASTOPEN_NO_COOKIE, which needs
	// no privilege.
	logSnaplenDNS = 60 + 60 + 2 + 12 + 255 + 4
	// logSnaplenMembership is the room an IGMP or MLD membership report
	// is logged with: an IPv6 header with a hop-by-hop header (the
	// router alert), MLDv2's header and one record of a group with the
	// 64 sources a socket may name at most (net.ipv6.mld_max_msf), so
	// that the groups and sources the command joined are recorded
	// (nflog.go's membershipGroups; IGMPv3 needs less).
	logSnaplenMembership = 40 + 8 + 8 + 20 + 64*16

	// IPv4 options that route the packet (RFC 791), the nftables
	// extension header operation that finds IPv4 options (x/sys and
	// google/nftables name only the IPv6 and TCP ones), and the TCP RST
	// flag.
	ipoptLSRR    = 131
	ipoptSSRR    = 137
	exthdrOpIPv4 = expr.ExthdrOp(2) // NFT_EXTHDR_OP_IPV4
	tcpSYNFlag   = 0x02
	tcpRST       = 0x04
	tcpACK       = 0x10
	// tcpFlags masks the TCP flags a reset's match looks at (FIN, SYN,
	// RST, PSH, ACK, URG).
	tcpFlags = 0x3f
	// TCP option kinds of a signed segment: TCP-MD5 (RFC 2385) and
	// TCP-AO (RFC 5925).
	tcpoptMD5 = 19
	tcpoptAO  = 29

	// Set names. allow4/6 hold addresses resolved for allowlisted names
	// without a port; allowp4/6 address . protocol . port for names with
	// one; allowip4/6 the --allow-ip ranges; flows4/6 are the per
	// destination accounting (address . protocol . port, with a counter);
	// dests4/6 hold the same keys without a counter, for the input chain
	// to look replies up in (a lookup in flows4/6 itself would count the
	// reply once more: the kernel updates an element's counter on every
	// lookup that finds it); conns4/6 the connections seen so far
	// (destination address . protocol . port . source address . port),
	// whose first packet is logged as an attempt; syns4/6 the TCP SYNs
	// seen so far (destination address . port . source address . port .
	// sequence number), each of which is a connection's first packet.
	setAllow4   = "allow4"
	setAllow6   = "allow6"
	setAllowP4  = "allowp4"
	setAllowP6  = "allowp6"
	setAllowIP4 = "allowip4"
	setAllowIP6 = "allowip6"
	setFlows4   = "flows4"
	setFlows6   = "flows6"
	setDests4   = "dests4"
	setDests6   = "dests6"
	setConns4   = "conns4"
	setConns6   = "conns6"
	setSyns4    = "syns4"
	setSyns6    = "syns6"
)

// loIfindex is lo's interface index, 1 in every network namespace.
const loIfindex = 1

// dynSetSize bounds each set the wall fills as packets pass (flows,
// dests, conns). A full one takes no more elements: Finish then calls the
// record incomplete.
//
// The kernel also takes the bound as the hash table's starting size hint:
// it allocates and zeroes a bucket table for it when the set is made, one
// per set, eight per allow-mode run. At 65,535 that was 131,072 pointers
// and a header, a 2 MiB allocation each, whose page clearing took 20-30
// ms of every run here; at 16,383 it is 32,768 pointers, a 512 KiB
// allocation, and the batch costs what it costs without a bound
// (docs/performance.md, item 20).
const dynSetSize = 16383

// ruleset is the compiled wall: the table and the sets the DNS stub and
// Finish touch at run time.
type ruleset struct {
	table *nftables.Table
	sets  map[string]*nftables.Set
	// output is the output chain, whose counters Finish adds up as
	// egressDropped (every rule there with a counter drops; the named
	// counterLogged, which counts logged packets, is not one of them).
	output *nftables.Chain
}

// buildRuleset queues the whole rule set for pol on c; nothing reaches the
// kernel until the caller's single c.Flush(). It only ever emits addresses
// and fixed constants into rules: no name, no string from the run.
func buildRuleset(c *nftables.Conn, pol *policy) (*ruleset, error) {
	rs := &ruleset{sets: map[string]*nftables.Set{}}
	t := c.AddTable(&nftables.Table{Family: nftables.TableFamilyINet, Name: tableName})
	rs.table = t
	c.AddObj(&nftables.CounterObj{Table: t, Name: counterLogged})

	allow := pol.mode == evidence.EgressAllow
	if allow {
		addr4, addr6 := nftables.TypeIPAddr, nftables.TypeIP6Addr
		proto, port := nftables.TypeInetProto, nftables.TypeInetService
		defs := []*nftables.Set{
			{Name: setAllow4, KeyType: addr4},
			{Name: setAllow6, KeyType: addr6},
			{Name: setAllowP4, KeyType: nftables.MustConcatSetType(addr4, proto, port), Concatenation: true},
			{Name: setAllowP6, KeyType: nftables.MustConcatSetType(addr6, proto, port), Concatenation: true},
			{Name: setAllowIP4, KeyType: addr4, Interval: true},
			{Name: setAllowIP6, KeyType: addr6, Interval: true},
			{Name: setFlows4, KeyType: nftables.MustConcatSetType(addr4, proto, port), Concatenation: true, Dynamic: true, Size: dynSetSize},
			{Name: setFlows6, KeyType: nftables.MustConcatSetType(addr6, proto, port), Concatenation: true, Dynamic: true, Size: dynSetSize},
			{Name: setDests4, KeyType: nftables.MustConcatSetType(addr4, proto, port), Concatenation: true, Dynamic: true, Size: dynSetSize},
			{Name: setDests6, KeyType: nftables.MustConcatSetType(addr6, proto, port), Concatenation: true, Dynamic: true, Size: dynSetSize},
			{Name: setConns4, KeyType: nftables.MustConcatSetType(addr4, proto, port, addr4, port), Concatenation: true, Dynamic: true, Size: dynSetSize},
			{Name: setConns6, KeyType: nftables.MustConcatSetType(addr6, proto, port, addr6, port), Concatenation: true, Dynamic: true, Size: dynSetSize},
			{Name: setSyns4, KeyType: nftables.MustConcatSetType(addr4, port, addr4, port, nftables.TypeInteger), Concatenation: true, Dynamic: true, Size: dynSetSize},
			{Name: setSyns6, KeyType: nftables.MustConcatSetType(addr6, port, addr6, port, nftables.TypeInteger), Concatenation: true, Dynamic: true, Size: dynSetSize},
		}
		elems := allowIPElements(pol.allowIP)
		for _, s := range defs {
			s.Table = t
			if err := c.AddSet(s, elems[s.Name]); err != nil {
				return nil, err
			}
			rs.sets[s.Name] = s
		}
	}

	out := c.AddChain(&nftables.Chain{
		Name: "output", Table: t, Type: nftables.ChainTypeFilter,
		Hooknum: nftables.ChainHookOutput, Priority: nftables.ChainPriorityFilter,
		Policy: ptr(nftables.ChainPolicyDrop),
	})
	rs.output = out
	// add queues a rule on ch. Every log expression gets the named
	// counter counterLogged right before it, so each message the rule
	// set logs is counted as it is logged (nothing between the two can
	// end the rule).
	add := func(ch *nftables.Chain, e ...expr.Any) {
		var exprs []expr.Any
		for _, x := range e {
			if _, ok := x.(*expr.Log); ok {
				exprs = append(exprs, &expr.Objref{Type: int(nftables.ObjTypeCounter), Name: counterLogged})
			}
			exprs = append(exprs, x)
		}
		c.AddRule(&nftables.Rule{Table: t, Chain: ch, Exprs: exprs})
	}

	// A packet that names its route carries its real destination
	// further in: an IPv6 routing header (IPV6_RTHDR, which needs no
	// privilege) or an IPv4 loose or strict source route option
	// (IP_OPTIONS) puts the first hop in the destination address the
	// rest of the wall matches. Such a packet is refused in every mode,
	// logged (nflog.go records its final destination) and counted, and
	// gets no answer. The IPv6 log takes the whole routing header, so
	// the transport ports are in the snapshot however long it is. These
	// rules come first, before the loopback accept: a segment routing
	// header whose first segment is ::1 (or a source route through
	// 127.0.0.1) makes the packet's destination local, and that accept
	// let it through unrecorded (the kernel then dropped it on lo, but
	// the record lost its final destination). A routed packet to a local
	// address has no use here.
	add(out,
		&expr.Meta{Key: expr.MetaKeyNFPROTO, Register: 1},
		&expr.Cmp{Op: expr.CmpOpEq, Register: 1, Data: []byte{unix.NFPROTO_IPV6}},
		&expr.Exthdr{DestRegister: 1, Type: unix.IPPROTO_ROUTING, Len: 1, Flags: unix.NFT_EXTHDR_F_PRESENT, Op: expr.ExthdrOpIpv6},
		&expr.Cmp{Op: expr.CmpOpEq, Register: 1, Data: []byte{1}},
		&expr.Counter{}, logToLen(logPrefixDrop, logSnaplenRouted), drop())
	for _, opt := range []uint8{ipoptLSRR, ipoptSSRR} {
		add(out,
			&expr.Meta{Key: expr.MetaKeyNFPROTO, Register: 1},
			&expr.Cmp{Op: expr.CmpOpEq, Register: 1, Data: []byte{unix.NFPROTO_IPV4}},
			&expr.Exthdr{DestRegister: 1, Type: opt, Len: 1, Flags: unix.NFT_EXTHDR_F_PRESENT, Op: exthdrOpIPv4},
			&expr.Cmp{Op: expr.CmpOpEq, Register: 1, Data: []byte{1}},
			&expr.Counter{}, logToLen(logPrefixDrop, logSnaplenDNS), drop())
	}

	// An attempt at one of the namespace's own addresses (loopback, any
	// address it holds) that nothing in the namespace answered: under
	// Claude Code that address and port are the host's, where a service
	// of the host's may listen (a local daemon, a Docker API on TCP), and
	// the namespace's loopback, its own, never reaches it. The attempt
	// itself is let through (below), so a hook's own server in the
	// sandbox, the DNS stub and the proxy are reached and leave nothing;
	// what is logged is the kernel's answer when nothing took it:
	//
	//   - a TCP SYN to a port nothing listens on gets a reset whose flags
	//     are RST|ACK and whose sequence number is 0 (tcp_v4_send_reset,
	//     tcp_v6_send_response, for a segment without ACK: only a SYN),
	//     from the address and port tried, to the command's local
	//     socket. The wall's own resets (addRefusal) come from the remote
	//     address they refuse, not a local one; a reset on a connection
	//     that exists carries its sequence number.
	//   - a UDP datagram to a port with no socket gets an ICMP (ICMPv6)
	//     port unreachable carrying the datagram's header, to the local
	//     sender. The wall's own refusals of UDP are ICMP port
	//     unreachables to a local address too (icmp_send picks a local
	//     source); nflog.go keeps only those sent from the address the
	//     datagram went to, which the kernel does for a local
	//     destination alone.
	//
	// Both are logged here, before the rules that let local traffic
	// through and before the FREEBIND drop below (which never drops
	// them: their source is local), and go on to those rules.
	add(out,
		&expr.Meta{Key: expr.MetaKeyL4PROTO, Register: 1},
		&expr.Cmp{Op: expr.CmpOpEq, Register: 1, Data: []byte{unix.IPPROTO_TCP}},
		&expr.Payload{DestRegister: 1, Base: expr.PayloadBaseTransportHeader, Offset: 13, Len: 1},
		&expr.Bitwise{SourceRegister: 1, DestRegister: 1, Len: 1, Mask: []byte{tcpFlags}, Xor: []byte{0}},
		&expr.Cmp{Op: expr.CmpOpEq, Register: 1, Data: []byte{tcpRST | tcpACK}},
		&expr.Payload{DestRegister: 1, Base: expr.PayloadBaseTransportHeader, Offset: 4, Len: 4},
		&expr.Cmp{Op: expr.CmpOpEq, Register: 1, Data: []byte{0, 0, 0, 0}},
		&expr.Fib{Register: 1, FlagDADDR: true, ResultADDRTYPE: true},
		&expr.Cmp{Op: expr.CmpOpEq, Register: 1, Data: nativeU32(unix.RTN_LOCAL)},
		&expr.Fib{Register: 1, FlagSADDR: true, ResultADDRTYPE: true},
		&expr.Cmp{Op: expr.CmpOpEq, Register: 1, Data: nativeU32(unix.RTN_LOCAL)},
		logTo(logPrefixLocal))
	for _, e := range []struct{ nfproto, l4proto, typ, code byte }{
		{unix.NFPROTO_IPV4, unix.IPPROTO_ICMP, 3, 3},   // destination unreachable, port unreachable
		{unix.NFPROTO_IPV6, unix.IPPROTO_ICMPV6, 1, 4}, // the same, ICMPv6
	} {
		add(out,
			&expr.Meta{Key: expr.MetaKeyNFPROTO, Register: 1},
			&expr.Cmp{Op: expr.CmpOpEq, Register: 1, Data: []byte{e.nfproto}},
			&expr.Meta{Key: expr.MetaKeyL4PROTO, Register: 1},
			&expr.Cmp{Op: expr.CmpOpEq, Register: 1, Data: []byte{e.l4proto}},
			&expr.Payload{DestRegister: 1, Base: expr.PayloadBaseTransportHeader, Offset: 0, Len: 2},
			&expr.Cmp{Op: expr.CmpOpEq, Register: 1, Data: []byte{e.typ, e.code}},
			&expr.Fib{Register: 1, FlagDADDR: true, ResultADDRTYPE: true},
			&expr.Cmp{Op: expr.CmpOpEq, Register: 1, Data: nativeU32(unix.RTN_LOCAL)},
			logToLen(logPrefixLocal, logSnaplenLocal))
	}

	// A packet to the namespace's own addresses from an address it does
	// not hold (a socket bound with IPV6_FREEBIND, which needs no
	// privilege) is dropped: delivered it would pass for a packet from
	// outside. The DNS stub's upstream socket took such a datagram, from
	// the upstream's address and port, as the upstream's answer: a
	// command that guessed the question's id put any address it liked
	// into the allow sets. It is logged first (nflog.go reads the attempt
	// from the packet itself, a question in it too): under Claude Code
	// the host's kernel delivers it, a datagram from 2001:db8::9 to
	// [::1]:8125 reaching the host's service there, and the drop left it
	// out of the record. The wall's own TCP resets (below) are sent from
	// the address of the packet they refuse, to the command's socket,
	// and must get through; a reset carries nothing. Its other refusals,
	// ICMP errors, come from a local address (icmp_send's choice), and
	// never reach this rule.
	isLocal := []expr.Any{
		&expr.Fib{Register: 1, FlagDADDR: true, ResultADDRTYPE: true},
		&expr.Cmp{Op: expr.CmpOpEq, Register: 1, Data: nativeU32(unix.RTN_LOCAL)},
	}
	add(out, slices.Concat(isLocal, isTCPReset(), []expr.Any{accept()})...)
	add(out, slices.Concat(isLocal, []expr.Any{
		&expr.Fib{Register: 1, FlagSADDR: true, ResultADDRTYPE: true},
		&expr.Cmp{Op: expr.CmpOpNeq, Register: 1, Data: nativeU32(unix.RTN_LOCAL)},
		logToLen(logPrefixLocalFrom, logSnaplenDNS), drop()})...)

	// Two attempts at the namespace's own addresses get no answer from
	// its kernel where nothing takes them, so the rules above never see
	// them: a SYN signed with TCP-MD5 or TCP-AO (TCP_MD5SIG,
	// TCP_AO_ADD_KEY, no privilege needed), which a port without a
	// socket holding its key does not reset (RFC 2385, RFC 5925), and a
	// UDP datagram over IPv6 without a checksum (UDP_NO_CHECK6_TX, no
	// privilege either), which is discarded where no socket takes one. A
	// hook's signed connect to localhost:4000 (under Claude Code the
	// host's service) or to 10.254.254.1 (another machine's address) left
	// nothing in the record. Each is logged as it is sent (nflog.go reads
	// the attempt from the packet itself) and dropped: what nothing
	// answers could not be told from what something took, and nothing
	// in the sandbox needs either. The client of a signed SYN ignores the
	// unsigned reset the wall would send, so none is sent.
	for _, kind := range []byte{tcpoptMD5, tcpoptAO} {
		add(out, slices.Concat(isLocal, isTCP(), tcpSYN(), []expr.Any{
			&expr.Exthdr{DestRegister: 1, Type: kind, Len: 1, Flags: unix.NFT_EXTHDR_F_PRESENT, Op: expr.ExthdrOpTcpopt},
			&expr.Cmp{Op: expr.CmpOpEq, Register: 1, Data: []byte{1}},
			logTo(logPrefixLocalSent), drop()})...)
	}
	add(out, slices.Concat(isLocal, []expr.Any{
		&expr.Meta{Key: expr.MetaKeyNFPROTO, Register: 1},
		&expr.Cmp{Op: expr.CmpOpEq, Register: 1, Data: []byte{unix.NFPROTO_IPV6}},
		&expr.Meta{Key: expr.MetaKeyL4PROTO, Register: 1},
		&expr.Cmp{Op: expr.CmpOpEq, Register: 1, Data: []byte{unix.IPPROTO_UDP}},
		&expr.Payload{DestRegister: 1, Base: expr.PayloadBaseTransportHeader, Offset: 6, Len: 2},
		&expr.Cmp{Op: expr.CmpOpEq, Register: 1, Data: []byte{0, 0}},
		logTo(logPrefixLocalSent), drop()})...)

	// An echo request to one of the namespace's own addresses is always
	// answered, by its kernel: a ping of deny mode's route address
	// 10.254.254.1 or of a connector's tap address, each under Claude
	// Code another machine's, left nothing in the record. Off the
	// loopback (whose ping the host's kernel answers alike under Claude
	// Code) it is logged as sent and dropped, as a connect there that
	// nothing answered is recorded.
	v6loopback := netip.IPv6Loopback().As16()
	for _, e := range []struct {
		nfproto byte
		off     uint32
		data    []byte
		mask    []byte
	}{
		{unix.NFPROTO_IPV4, 16, []byte{127}, []byte{0xff}}, // not 127.0.0.0/8
		{unix.NFPROTO_IPV6, 24, v6loopback[:], nil},        // not ::1
	} {
		dst := []expr.Any{&expr.Payload{DestRegister: 1, Base: expr.PayloadBaseNetworkHeader, Offset: e.off, Len: uint32(len(e.data))}}
		if e.mask != nil {
			dst = append(dst, &expr.Bitwise{SourceRegister: 1, DestRegister: 1, Len: uint32(len(e.data)), Mask: e.mask, Xor: make([]byte, len(e.data))})
		}
		add(out, slices.Concat(isLocal, []expr.Any{
			&expr.Meta{Key: expr.MetaKeyNFPROTO, Register: 1},
			&expr.Cmp{Op: expr.CmpOpEq, Register: 1, Data: []byte{e.nfproto}},
		}, icmpEcho(e.nfproto, false), dst, []expr.Any{
			&expr.Cmp{Op: expr.CmpOpNeq, Register: 1, Data: e.data},
			logTo(logPrefixLocalSent), drop()})...)
	}

	// Traffic to the namespace's own addresses (loopback, and the
	// source address of the deny mode's route) never leaves it.
	add(out,
		&expr.Fib{Register: 1, FlagDADDR: true, ResultADDRTYPE: true},
		&expr.Cmp{Op: expr.CmpOpEq, Register: 1, Data: nativeU32(unix.RTN_LOCAL)},
		accept())

	if allow {
		// IPv6 needs neighbour discovery (router and neighbour
		// solicitations and advertisements, ICMPv6 types 133-136) and
		// MLD (reports and done: types 131, 132 and 143, to the link's
		// multicast addresses, ff02::/16) to reach the connector's
		// gateway at all; they never leave the link. Only the kernel
		// sends them: the command's ping socket sends echo requests
		// alone. Any other ICMPv6 to ff02::/16 went through once, so an
		// echo request to every node of the link (ff02::1), with a
		// payload of the command's, left no entry; it is refused and
		// recorded now, as any other ping.
		isICMPv6 := []expr.Any{
			&expr.Meta{Key: expr.MetaKeyNFPROTO, Register: 1},
			&expr.Cmp{Op: expr.CmpOpEq, Register: 1, Data: []byte{unix.NFPROTO_IPV6}},
			&expr.Meta{Key: expr.MetaKeyL4PROTO, Register: 1},
			&expr.Cmp{Op: expr.CmpOpEq, Register: 1, Data: []byte{unix.IPPROTO_ICMPV6}},
		}
		add(out, slices.Concat(isICMPv6, []expr.Any{
			&expr.Payload{DestRegister: 1, Base: expr.PayloadBaseTransportHeader, Offset: 0, Len: 1},
			&expr.Range{Op: expr.CmpOpEq, Register: 1, FromData: []byte{133}, ToData: []byte{136}},
			accept()})...)
		toLink := func() []expr.Any {
			return slices.Concat(isICMPv6, []expr.Any{
				&expr.Payload{DestRegister: 1, Base: expr.PayloadBaseNetworkHeader, Offset: 24, Len: 2},
				&expr.Cmp{Op: expr.CmpOpEq, Register: 1, Data: []byte{0xff, 0x02}},
				&expr.Payload{DestRegister: 1, Base: expr.PayloadBaseTransportHeader, Offset: 0, Len: 1},
			})
		}
		// An MLD report names the groups its sender joined, and the
		// command joins groups of its choosing (IPV6_JOIN_GROUP, no
		// privilege needed): each report is logged as it goes, and the
		// groups it names that are not the kernel's own are recorded.
		// It went out unrecorded, with 112 bits of the command's choice
		// in each group, to every multicast router and snooping switch
		// of the link under Claude Code.
		add(out, slices.Concat(toLink(), []expr.Any{
			&expr.Range{Op: expr.CmpOpEq, Register: 1, FromData: []byte{131}, ToData: []byte{132}},
			logToLen(logPrefixMLD, logSnaplenMembership), accept()})...)
		add(out, slices.Concat(toLink(), []expr.Any{
			&expr.Cmp{Op: expr.CmpOpEq, Register: 1, Data: []byte{143}},
			logToLen(logPrefixMLD, logSnaplenMembership), accept()})...)
		// ICMP errors the kernel sends are dropped here, before the allow
		// sets (icmpErrorDrops); ICMPv6's are types 1-4, none of the
		// neighbour discovery above.
		for _, r := range icmpErrorDrops() {
			add(out, r...)
		}
		acc := c.AddChain(&nftables.Chain{Name: "accepted", Table: t})
		if up := pol.upstream; up.IsValid() {
			for _, l4 := range []byte{unix.IPPROTO_UDP, unix.IPPROTO_TCP} {
				e := []expr.Any{
					&expr.Meta{Key: expr.MetaKeyMARK, Register: 1},
					&expr.Cmp{Op: expr.CmpOpEq, Register: 1, Data: nativeU32(dnsMark)},
				}
				e = append(e, matchDaddr(up.Addr())...)
				e = append(e, matchDport(l4, up.Port())...)
				e = append(e, accept())
				add(out, e...)
			}
			// Any other packet to the upstream's address on its port
			// (and on 53) is the command asking the upstream around the
			// stub: refused and recorded here, before the allow sets,
			// which hold the upstream's address when an --allow-ip range
			// covers it or an allowlisted name resolves to it. Through
			// them the command could ask the upstream about names off
			// the list, and the names would leave in its questions.
			// The output chain's rule counts the packet (Finish adds up
			// that chain's counters); the chain logs and refuses it.
			// An IPv4 upstream is refused at its NAT64 address too
			// (64:ff9b::/96, which a NAT64 gateway leads to it), which an
			// --allow-ip range of IPv6 may cover.
			refuse := c.AddChain(&nftables.Chain{Name: "refused", Table: t})
			ports := []uint16{up.Port()}
			if up.Port() != 53 {
				ports = append(ports, 53)
			}
			addrs := []netip.Addr{up.Addr()}
			if up.Addr().Is4() {
				addrs = append(addrs, nat64Of(up.Addr()))
			}
			for _, port := range ports {
				for _, l4 := range []byte{unix.IPPROTO_UDP, unix.IPPROTO_TCP} {
					for _, a := range addrs {
						add(out, slices.Concat(matchDaddr(a), matchDport(l4, port), []expr.Any{
							&expr.Counter{},
							&expr.Verdict{Kind: expr.VerdictGoto, Chain: refuse.Name}})...)
					}
				}
			}
			add(refuse, logToLen(logPrefixDrop, logSnaplenDNS))
			addRefusal(add, refuse)
		}
		// A packet bound out through lo is one the connector gives no
		// route (IPv6 before slirp4netns's router advertisement arrives,
		// a family pasta found no route for on the host): setupLoopback's
		// fallback route took it so that it exists and is recorded. It
		// leads nowhere, whatever the allow sets say: refused and
		// recorded here, so the client fails fast. (Traffic to the
		// namespace's own addresses, which also leaves through lo, was
		// accepted above.)
		noRoute := c.AddChain(&nftables.Chain{Name: "noroute", Table: t})
		add(out,
			&expr.Meta{Key: expr.MetaKeyOIF, Register: 1},
			&expr.Cmp{Op: expr.CmpOpEq, Register: 1, Data: nativeU32(loIfindex)},
			&expr.Counter{},
			&expr.Verdict{Kind: expr.VerdictGoto, Chain: noRoute.Name})
		add(noRoute, logTo(logPrefixDrop))
		addRefusal(add, noRoute)
		for _, fam := range []struct {
			nfproto               byte
			off, alen             uint32
			plain, ported, ranges string
		}{
			{unix.NFPROTO_IPV4, 16, 4, setAllow4, setAllowP4, setAllowIP4},
			{unix.NFPROTO_IPV6, 24, 16, setAllow6, setAllowP6, setAllowIP6},
		} {
			isFam := []expr.Any{
				&expr.Meta{Key: expr.MetaKeyNFPROTO, Register: 1},
				&expr.Cmp{Op: expr.CmpOpEq, Register: 1, Data: []byte{fam.nfproto}},
			}
			daddr := &expr.Payload{DestRegister: 1, Base: expr.PayloadBaseNetworkHeader, Offset: fam.off, Len: fam.alen}
			gotoAcc := &expr.Verdict{Kind: expr.VerdictGoto, Chain: acc.Name}
			add(out, slices.Concat(isFam, []expr.Any{daddr,
				&expr.Lookup{SourceRegister: 1, SetName: fam.plain, SetID: rs.sets[fam.plain].ID}, gotoAcc})...)
			add(out, slices.Concat(isFam, flowKey(fam.off, fam.alen, false), []expr.Any{
				&expr.Lookup{SourceRegister: 8, SetName: fam.ported, SetID: rs.sets[fam.ported].ID}, gotoAcc})...)
			add(out, slices.Concat(isFam, []expr.Any{daddr,
				&expr.Lookup{SourceRegister: 1, SetName: fam.ranges, SetID: rs.sets[fam.ranges].ID}, gotoAcc})...)
		}

		// accepted: log each new connection (its first packet names the
		// destination and counts an attempt), account every packet.
		// Connections are told apart by a set of their own, not by
		// conntrack: ct state new counted a retransmitted SYN again, and
		// every UDP datagram before a reply, and registered conntrack's
		// hooks (more kernel code patching per run; docs/performance.md).
		in := c.AddChain(&nftables.Chain{
			Name: "input", Table: t, Type: nftables.ChainTypeFilter,
			Hooknum: nftables.ChainHookInput, Priority: nftables.ChainPriorityFilter,
			Policy: ptr(nftables.ChainPolicyAccept),
		})
		for _, fam := range []struct {
			nfproto   byte
			off, alen uint32
			flows     string
			dests     string
			conns     string
			syns      string
		}{
			{unix.NFPROTO_IPV4, 16, 4, setFlows4, setDests4, setConns4, setSyns4},
			{unix.NFPROTO_IPV6, 24, 16, setFlows6, setDests6, setConns6, setSyns6},
		} {
			isFam := []expr.Any{
				&expr.Meta{Key: expr.MetaKeyNFPROTO, Register: 1},
				&expr.Cmp{Op: expr.CmpOpEq, Register: 1, Data: []byte{fam.nfproto}},
			}
			conns := rs.sets[fam.conns]
			logNew := func(snaplen uint32) []expr.Any {
				return slices.Concat(connKey(fam.off, fam.alen), []expr.Any{
					&expr.Lookup{SourceRegister: 8, SetName: conns.Name, SetID: conns.ID, Invert: true},
					logToLen(logPrefixAccept, snaplen),
					&expr.Dynset{SrcRegKey: 8, SetName: conns.Name, SetID: conns.ID, Operation: unix.NFT_DYNSET_OP_ADD}})
			}
			// A TCP connection's first packet is its SYN (without
			// ACK), which is logged once whatever else has used its
			// addresses and ports: a retransmitted SYN repeats its
			// sequence number, which syns holds, but a new connection
			// from a source port the kernel gave again (freed by a
			// reset) to the same destination has its own, and counts
			// as the attempt it is (conns alone counted it with the
			// first). The connection goes into conns too, where the
			// rules below find it and log it no more.
			syns := rs.sets[fam.syns]
			logSYN := func(snaplen uint32) []expr.Any {
				return slices.Concat(tcpSYN(), synKey(fam.off, fam.alen), []expr.Any{
					&expr.Lookup{SourceRegister: 8, SetName: syns.Name, SetID: syns.ID, Invert: true},
					logToLen(logPrefixAccept, snaplen),
					&expr.Dynset{SrcRegKey: 8, SetName: syns.Name, SetID: syns.ID, Operation: unix.NFT_DYNSET_OP_ADD}},
					connKey(fam.off, fam.alen), []expr.Any{
						&expr.Dynset{SrcRegKey: 8, SetName: conns.Name, SetID: conns.ID, Operation: unix.NFT_DYNSET_OP_ADD}})
			}
			set, dests := rs.sets[fam.flows], rs.sets[fam.dests]
			update := &expr.Dynset{SrcRegKey: 8, SetName: set.Name, SetID: set.ID,
				Operation: unix.NFT_DYNSET_OP_UPDATE, Exprs: []expr.Any{&expr.Counter{}}}
			addDest := &expr.Dynset{SrcRegKey: 8, SetName: dests.Name, SetID: dests.ID, Operation: unix.NFT_DYNSET_OP_ADD}
			// An echo request (the only ICMP the command sends: its
			// ping socket sends nothing else) has no ports: where TCP
			// and UDP have them, it has its type and code and its
			// checksum, which the rules below took for a source and a
			// destination port. Each echo request was then a connection
			// and a destination of its own, its replies (another
			// checksum) were counted nowhere, and a long ping filled the
			// sets. Its destination is its address (port 0, as the
			// record names it), and its connection the socket that sent
			// it: the echo identifier, which the kernel sets to the ping
			// socket's own, as a UDP datagram's source port is its
			// socket's. Its replies count towards it (the input chain).
			echo := icmpEcho(fam.nfproto, false)
			add(acc, slices.Concat(isFam, echo, icmpConnKey(fam.off, fam.alen), []expr.Any{
				&expr.Lookup{SourceRegister: 8, SetName: conns.Name, SetID: conns.ID, Invert: true},
				logTo(logPrefixAccept),
				&expr.Dynset{SrcRegKey: 8, SetName: conns.Name, SetID: conns.ID, Operation: unix.NFT_DYNSET_OP_ADD}})...)
			add(acc, slices.Concat(isFam, echo, icmpFlowKey(fam.off, fam.alen), []expr.Any{update, addDest, accept()})...)
			add(acc, slices.Concat(isFam, tcpToDNS, logSYN(logSnaplenDNS))...)
			add(acc, slices.Concat(isFam, isTCP(), logSYN(logSnaplen))...)
			// A new connection's first datagram to port 53 (or to
			// mDNS's or LLMNR's port: questionPorts) is logged with
			// room for its DNS question (logSnaplenDNS), so that the
			// question is named whatever its length; the rule below
			// then finds the connection in conns and logs it no more.
			udpToQuestion, err := udpToQuestionPort(c, t)
			if err != nil {
				return nil, err
			}
			add(acc, slices.Concat(isFam, udpToQuestion, logNew(logSnaplenDNS))...)
			add(acc, slices.Concat(isFam, tcpToDNS, logNew(logSnaplenDNS))...)
			add(acc, slices.Concat(isFam, logNew(logSnaplen))...)
			// The flow's key goes into dests too, after the update (a
			// full flows set stops the rule there, so dests never holds
			// a key flows lacks).
			add(acc, slices.Concat(isFam, flowKey(fam.off, fam.alen, false), []expr.Any{update, addDest})...)
			// Replies count towards the flow they answer, only when it
			// exists (an inbound packet never creates one), and once: the
			// lookup is in dests, whose elements have no counter. An
			// echo reply counts towards its address's echo requests,
			// and goes no further (an IPv4 reply's type and code, 0,
			// read as a port, would find that flow again).
			srcOff := fam.off - fam.alen
			add(in, slices.Concat(isFam, icmpEcho(fam.nfproto, true), icmpFlowKey(srcOff, fam.alen), []expr.Any{
				&expr.Lookup{SourceRegister: 8, SetName: dests.Name, SetID: dests.ID}, update, accept()})...)
			add(in, slices.Concat(isFam, flowKey(srcOff, fam.alen, true), []expr.Any{
				&expr.Lookup{SourceRegister: 8, SetName: dests.Name, SetID: dests.ID}, update})...)
		}
		add(acc, accept())
	}

	// A TCP reset or an ICMP error the kernel sends in answer to a
	// packet is no attempt of the command's. A reset reaches this point
	// only when the packet it answers came from an address the namespace
	// does not hold (IPV6_FREEBIND), or went to one the allow sets do not
	// hold: the answer goes to that address, and was recorded as an
	// attempt at an address the command never tried. Such answers are
	// dropped unlogged. (The wall's own refusals never go there: see
	// below.) A reset to an allowed address is let through above: the
	// command's own TCP stack sends it on a connection that exists. ICMP
	// errors are dropped here in deny and record mode, and in allow mode
	// before the allow sets, whatever their destination. The command
	// cannot hide an attempt among them: with no capability (no raw
	// sockets, no TCP_REPAIR) and ping sockets that send echo requests
	// alone (openPingSockets: the kernel refuses any other ICMP type on
	// one) it sends no ICMP error, and its TCP stack sends a reset only on
	// a connection whose SYN was logged.
	add(out, append(isTCPReset(), drop())...)
	if !allow {
		for _, r := range icmpErrorDrops() {
			add(out, r...)
		}
	}

	// Everything else is logged (so Finish can name it), counted, and
	// refused at once, so a client fails fast instead of retrying. A
	// packet from an address the namespace does not hold (IPV6_FREEBIND)
	// is refused without an answer: one could only go to that address,
	// which the command never tried (and in allow mode may be allowed).
	// A datagram to port 53, 5353 or 5355 (questionPorts) is logged
	// with room for the DNS question it carries (a name asked of another
	// resolver than the stub, or by multicast DNS or LLMNR, which the
	// record names beside the address it went to), as is a TCP segment
	// to port 53; every other packet with its headers alone, so that a
	// flood of large datagrams fills the log no faster than it did.
	question := c.AddChain(&nftables.Chain{Name: "question", Table: t})
	udpToQuestion, err := udpToQuestionPort(c, t)
	if err != nil {
		return nil, err
	}
	for _, toDNS := range [][]expr.Any{udpToQuestion, tcpToDNS} {
		add(out, slices.Concat(toDNS, []expr.Any{
			&expr.Counter{}, logToLen(logPrefixDrop, logSnaplenDNS),
			&expr.Verdict{Kind: expr.VerdictGoto, Chain: question.Name}})...)
	}
	addRefusal(add, question)
	// A membership report (IGMP; MLD's, types 131, 132 and 143, which
	// allow mode let through above) names the groups the command joined
	// and the sources it asked their traffic from: logged with room for
	// them, and refused as a question is (ICMPv6's types 133-142 between
	// them, the kernel's neighbour discovery, never leave lo here, and
	// are logged with that room too, which costs a rule less).
	for _, m := range [][]expr.Any{
		{
			&expr.Meta{Key: expr.MetaKeyL4PROTO, Register: 1},
			&expr.Cmp{Op: expr.CmpOpEq, Register: 1, Data: []byte{unix.IPPROTO_IGMP}},
		},
		{
			&expr.Meta{Key: expr.MetaKeyL4PROTO, Register: 1},
			&expr.Cmp{Op: expr.CmpOpEq, Register: 1, Data: []byte{unix.IPPROTO_ICMPV6}},
			&expr.Payload{DestRegister: 1, Base: expr.PayloadBaseTransportHeader, Offset: 0, Len: 1},
			&expr.Range{Op: expr.CmpOpEq, Register: 1, FromData: []byte{131}, ToData: []byte{143}},
		},
	} {
		add(out, slices.Concat(m, []expr.Any{
			&expr.Counter{}, logToLen(logPrefixDrop, logSnaplenMembership),
			&expr.Verdict{Kind: expr.VerdictGoto, Chain: question.Name}})...)
	}
	add(out, &expr.Counter{}, logTo(logPrefixDrop))
	addRefusal(add, out)
	return rs, nil
}

// addRefusal ends ch with the refusal of a packet already logged: dropped
// without an answer when it comes from an address the namespace does not
// hold (IPV6_FREEBIND; an answer could only go there), else answered with
// a TCP reset or an ICMP port unreachable.
func addRefusal(add func(*nftables.Chain, ...expr.Any), ch *nftables.Chain) {
	add(ch,
		&expr.Fib{Register: 1, FlagSADDR: true, ResultADDRTYPE: true},
		&expr.Cmp{Op: expr.CmpOpNeq, Register: 1, Data: nativeU32(unix.RTN_LOCAL)},
		drop())
	add(ch, append(isTCP(), &expr.Reject{Type: unix.NFT_REJECT_TCP_RST})...)
	add(ch, &expr.Reject{Type: unix.NFT_REJECT_ICMPX_UNREACH, Code: unix.NFT_REJECT_ICMPX_PORT_UNREACH})
}

// icmpErrorDrops drops the ICMP and ICMPv6 errors the kernel sends in
// answer to a packet, unlogged: no attempt of the command's (see
// buildRuleset). In allow mode they come before the allow sets, which
// would otherwise let an error out to an allowed address and log it as the
// command's attempt: the kernel's port unreachable for a late reply to a
// socket the command had closed.
func icmpErrorDrops() [][]expr.Any {
	var rules [][]expr.Any
	for _, e := range []struct {
		nfproto, l4proto, from, to byte
	}{
		// ICMP destination unreachable; time exceeded and parameter
		// problem (reassembly, bad options); ICMPv6's error messages
		// (destination unreachable, packet too big, time exceeded,
		// parameter problem).
		{unix.NFPROTO_IPV4, unix.IPPROTO_ICMP, 3, 3},
		{unix.NFPROTO_IPV4, unix.IPPROTO_ICMP, 11, 12},
		{unix.NFPROTO_IPV6, unix.IPPROTO_ICMPV6, 1, 4},
	} {
		typ := []expr.Any{&expr.Cmp{Op: expr.CmpOpEq, Register: 1, Data: []byte{e.from}}}
		if e.to != e.from {
			typ = []expr.Any{&expr.Range{Op: expr.CmpOpEq, Register: 1, FromData: []byte{e.from}, ToData: []byte{e.to}}}
		}
		rules = append(rules, slices.Concat([]expr.Any{
			&expr.Meta{Key: expr.MetaKeyNFPROTO, Register: 1},
			&expr.Cmp{Op: expr.CmpOpEq, Register: 1, Data: []byte{e.nfproto}},
			&expr.Meta{Key: expr.MetaKeyL4PROTO, Register: 1},
			&expr.Cmp{Op: expr.CmpOpEq, Register: 1, Data: []byte{e.l4proto}},
			&expr.Payload{DestRegister: 1, Base: expr.PayloadBaseTransportHeader, Offset: 0, Len: 1},
		}, typ, []expr.Any{drop()}))
	}
	return rules
}

// isTCP matches a TCP segment.
func isTCP() []expr.Any {
	return []expr.Any{
		&expr.Meta{Key: expr.MetaKeyL4PROTO, Register: 1},
		&expr.Cmp{Op: expr.CmpOpEq, Register: 1, Data: []byte{unix.IPPROTO_TCP}},
	}
}

// tcpSYN matches a TCP segment (the caller matched the protocol) with SYN
// and without ACK: the first of a connection the command makes, or its
// retransmission.
func tcpSYN() []expr.Any {
	return []expr.Any{
		&expr.Payload{DestRegister: 1, Base: expr.PayloadBaseTransportHeader, Offset: 13, Len: 1},
		&expr.Bitwise{SourceRegister: 1, DestRegister: 1, Len: 1, Mask: []byte{tcpSYNFlag | tcpACK}, Xor: []byte{0}},
		&expr.Cmp{Op: expr.CmpOpEq, Register: 1, Data: []byte{tcpSYNFlag}},
	}
}

// isTCPReset matches a TCP segment with the RST flag.
func isTCPReset() []expr.Any {
	return append(isTCP(),
		&expr.Payload{DestRegister: 1, Base: expr.PayloadBaseTransportHeader, Offset: 13, Len: 1},
		&expr.Bitwise{SourceRegister: 1, DestRegister: 1, Len: 1, Mask: []byte{tcpRST}, Xor: []byte{0}},
		&expr.Cmp{Op: expr.CmpOpEq, Register: 1, Data: []byte{tcpRST}})
}

// flowKey loads address . l4proto . port into registers 8.. (the layout a
// concatenated set key needs: each field padded to 32 bits). src selects
// the source address and port (replies) instead of the destination.
func flowKey(addrOff, alen uint32, src bool) []expr.Any {
	portOff := uint32(2)
	if src {
		portOff = 0
	}
	r := uint32(8)
	return []expr.Any{
		&expr.Payload{DestRegister: r, Base: expr.PayloadBaseNetworkHeader, Offset: addrOff, Len: alen},
		&expr.Meta{Key: expr.MetaKeyL4PROTO, Register: r + alen/4},
		&expr.Payload{DestRegister: r + alen/4 + 1, Base: expr.PayloadBaseTransportHeader, Offset: portOff, Len: 2},
	}
}

// connKey loads destination address . l4proto . port . source address .
// port into registers 8.., the key of the conns sets. A full set
// (dynSetSize connections in one run) makes later connections log again,
// and Finish then calls the record incomplete.
func connKey(addrOff, alen uint32) []expr.Any {
	r := 8 + alen/4 + 2
	return append(flowKey(addrOff, alen, false),
		&expr.Payload{DestRegister: r, Base: expr.PayloadBaseNetworkHeader, Offset: addrOff - alen, Len: alen},
		&expr.Payload{DestRegister: r + alen/4, Base: expr.PayloadBaseTransportHeader, Offset: 0, Len: 2})
}

// icmpEcho matches an ICMP (nfproto IPv4) or ICMPv6 echo request, or with
// reply an echo reply.
func icmpEcho(nfproto byte, reply bool) []expr.Any {
	l4, typ := byte(unix.IPPROTO_ICMP), byte(8)
	if nfproto == unix.NFPROTO_IPV6 {
		l4, typ = unix.IPPROTO_ICMPV6, 128
	}
	if reply {
		typ++
		if l4 == unix.IPPROTO_ICMP {
			typ = 0
		}
	}
	return []expr.Any{
		&expr.Meta{Key: expr.MetaKeyL4PROTO, Register: 1},
		&expr.Cmp{Op: expr.CmpOpEq, Register: 1, Data: []byte{l4}},
		&expr.Payload{DestRegister: 1, Base: expr.PayloadBaseTransportHeader, Offset: 0, Len: 1},
		&expr.Cmp{Op: expr.CmpOpEq, Register: 1, Data: []byte{typ}},
	}
}

// icmpFlowKey loads the address at addrOff . l4proto . port 0 into
// registers 8.., the flows key of an echo request or (the source address)
// of its reply: ICMP has no port.
func icmpFlowKey(addrOff, alen uint32) []expr.Any {
	r := uint32(8)
	return []expr.Any{
		&expr.Payload{DestRegister: r, Base: expr.PayloadBaseNetworkHeader, Offset: addrOff, Len: alen},
		&expr.Meta{Key: expr.MetaKeyL4PROTO, Register: r + alen/4},
		&expr.Immediate{Register: r + alen/4 + 1, Data: []byte{0, 0, 0, 0}},
	}
}

// icmpConnKey loads destination address . l4proto . port 0 . source
// address . echo identifier of an echo request into registers 8.., its
// key in the conns sets: the identifier is the ping socket's, as a UDP
// datagram's source port is its socket's.
func icmpConnKey(addrOff, alen uint32) []expr.Any {
	r := 8 + alen/4 + 2
	return append(icmpFlowKey(addrOff, alen),
		&expr.Payload{DestRegister: r, Base: expr.PayloadBaseNetworkHeader, Offset: addrOff - alen, Len: alen},
		&expr.Payload{DestRegister: r + alen/4, Base: expr.PayloadBaseTransportHeader, Offset: 4, Len: 2})
}

// synKey loads destination address . port . source address . port .
// sequence number of a TCP segment into registers 8.., the key of the
// syns sets. A full set (dynSetSize SYNs in one run) makes later SYNs log
// again, retransmitted ones too, and Finish then calls the record
// incomplete.
func synKey(addrOff, alen uint32) []expr.Any {
	r := 8 + alen/4
	return []expr.Any{
		&expr.Payload{DestRegister: 8, Base: expr.PayloadBaseNetworkHeader, Offset: addrOff, Len: alen},
		&expr.Payload{DestRegister: r, Base: expr.PayloadBaseTransportHeader, Offset: 2, Len: 2},
		&expr.Payload{DestRegister: r + 1, Base: expr.PayloadBaseNetworkHeader, Offset: addrOff - alen, Len: alen},
		&expr.Payload{DestRegister: r + 1 + alen/4, Base: expr.PayloadBaseTransportHeader, Offset: 0, Len: 2},
		&expr.Payload{DestRegister: r + 2 + alen/4, Base: expr.PayloadBaseTransportHeader, Offset: 4, Len: 4},
	}
}

// matchDport matches a packet of transport protocol l4 to port.
func matchDport(l4 byte, port uint16) []expr.Any {
	return []expr.Any{
		&expr.Meta{Key: expr.MetaKeyL4PROTO, Register: 1},
		&expr.Cmp{Op: expr.CmpOpEq, Register: 1, Data: []byte{l4}},
		&expr.Payload{DestRegister: 1, Base: expr.PayloadBaseTransportHeader, Offset: 2, Len: 2},
		&expr.Cmp{Op: expr.CmpOpEq, Register: 1, Data: be16(port)},
	}
}

// tcpToDNS matches a TCP segment to port 53, whose SYN may carry a DNS
// question (TCP Fast Open), whose log takes logSnaplenDNS.
var tcpToDNS = matchDport(unix.IPPROTO_TCP, 53)

// questionPorts are the UDP ports whose datagrams carry questions in DNS's
// format: DNS's own (53), multicast DNS's (RFC 6762: 5353, to 224.0.0.251,
// ff02::fb or, unicast, any address) and LLMNR's (RFC 4795: 5355, to
// 224.0.0.252, ff02::1:3 or any address). A datagram to one of them is
// logged with logSnaplenDNS, and nflog.go names the questions it holds.
var questionPorts = []uint16{53, mdnsPort, llmnrPort}

const (
	mdnsPort  = 5353
	llmnrPort = 5355
)

// udpToQuestionPort matches a UDP datagram to one of questionPorts, by a
// lookup in an anonymous set it queues on c (the kernel binds such a set
// to the one rule that uses it: each rule needs a call of its own).
func udpToQuestionPort(c *nftables.Conn, t *nftables.Table) ([]expr.Any, error) {
	s := &nftables.Set{Table: t, Anonymous: true, Constant: true, KeyType: nftables.TypeInetService}
	var elems []nftables.SetElement
	for _, p := range questionPorts {
		elems = append(elems, nftables.SetElement{Key: be16(p)})
	}
	if err := c.AddSet(s, elems); err != nil {
		return nil, err
	}
	return []expr.Any{
		&expr.Meta{Key: expr.MetaKeyL4PROTO, Register: 1},
		&expr.Cmp{Op: expr.CmpOpEq, Register: 1, Data: []byte{unix.IPPROTO_UDP}},
		&expr.Payload{DestRegister: 1, Base: expr.PayloadBaseTransportHeader, Offset: 2, Len: 2},
		&expr.Lookup{SourceRegister: 1, SetName: s.Name, SetID: s.ID},
	}, nil
}

func matchDaddr(a netip.Addr) []expr.Any {
	nfproto, off := byte(unix.NFPROTO_IPV4), uint32(16)
	if a.Is6() {
		nfproto, off = unix.NFPROTO_IPV6, 24
	}
	return []expr.Any{
		&expr.Meta{Key: expr.MetaKeyNFPROTO, Register: 1},
		&expr.Cmp{Op: expr.CmpOpEq, Register: 1, Data: []byte{nfproto}},
		&expr.Payload{DestRegister: 1, Base: expr.PayloadBaseNetworkHeader, Offset: off, Len: uint32(a.BitLen() / 8)},
		&expr.Cmp{Op: expr.CmpOpEq, Register: 1, Data: a.AsSlice()},
	}
}

func logTo(prefix string) *expr.Log { return logToLen(prefix, logSnaplen) }

func logToLen(prefix string, snaplen uint32) *expr.Log {
	return &expr.Log{
		Key:        1<<unix.NFTA_LOG_GROUP | 1<<unix.NFTA_LOG_PREFIX | 1<<unix.NFTA_LOG_SNAPLEN | 1<<unix.NFTA_LOG_QTHRESHOLD,
		Group:      nflogGroup,
		Data:       []byte(prefix),
		Snaplen:    snaplen,
		QThreshold: 1,
	}
}

// allowIPElements turns --allow-ip prefixes into interval set elements,
// dropping prefixes another one already covers (the kernel refuses
// overlapping intervals).
func allowIPElements(pfxs []netip.Prefix) map[string][]nftables.SetElement {
	sorted := slices.Clone(pfxs)
	slices.SortFunc(sorted, func(a, b netip.Prefix) int {
		if c := a.Addr().Compare(b.Addr()); c != 0 {
			return c
		}
		return a.Bits() - b.Bits()
	})
	out := map[string][]nftables.SetElement{}
	var kept []netip.Prefix
	for _, p := range sorted {
		if slices.ContainsFunc(kept, func(k netip.Prefix) bool { return k.Overlaps(p) }) {
			continue
		}
		kept = append(kept, p)
		name := setAllowIP4
		if p.Addr().Is6() {
			name = setAllowIP6
		}
		out[name] = append(out[name], nftables.SetElement{Key: p.Addr().AsSlice()})
		if end, ok := prefixEnd(p); ok {
			out[name] = append(out[name], nftables.SetElement{Key: end.AsSlice(), IntervalEnd: true})
		}
	}
	return out
}

// prefixEnd is the first address after p; false when p reaches the end of
// the address space.
func prefixEnd(p netip.Prefix) (netip.Addr, bool) {
	b := p.Addr().AsSlice()
	for i := p.Bits(); i < len(b)*8; i++ {
		b[i/8] |= 0x80 >> (i % 8)
	}
	last, _ := netip.AddrFromSlice(b)
	next := last.Next()
	return next, next.IsValid()
}

// elemKey is a set key for addr . proto . port (fields padded to 32 bits),
// or the bare address when proto is 0.
func elemKey(a netip.Addr, proto byte, port uint16) []byte {
	k := a.AsSlice()
	if proto == 0 {
		return k
	}
	k = append(k, proto, 0, 0, 0)
	return append(k, byte(port>>8), byte(port), 0, 0)
}

func accept() *expr.Verdict { return &expr.Verdict{Kind: expr.VerdictAccept} }

func drop() *expr.Verdict { return &expr.Verdict{Kind: expr.VerdictDrop} }

func ptr[T any](v T) *T { return &v }

func nativeU32(v uint32) []byte {
	b := make([]byte, 4)
	binary.NativeEndian.PutUint32(b, v)
	return b
}

func be16(v uint16) []byte { return []byte{byte(v >> 8), byte(v)} }
