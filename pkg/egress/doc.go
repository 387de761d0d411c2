// Package egress is vigiles' network wall and its recorders. It runs
// inside the sandbox's init process (Setup, Session) and, for the allow
// mode, in the broker (Attach), and answers "what did this command try to
// reach?" for three modes:
//
//   - deny: no route out; every attempt is still recorded: names asked of
//     the in-sandbox DNS stub and raw TCP/UDP/ICMP packets, logged by an
//     nftables rule set through NFLOG and refused.
//   - record: deny, plus a recording HTTP proxy on loopback that the
//     command's proxy variables point at; it logs absolute-URI and CONNECT
//     requests and refuses them.
//   - allow: slirp4netns or pasta gives the namespace a route; an nftables
//     inet table with policy drop accepts only addresses the DNS stub
//     resolved for allowlisted names (added to named sets just in time) and
//     --allow-ip ranges, counts packets and bytes per destination, and logs
//     every dropped destination so it can be named from the DNS log.
//
// The pure parts (policy validation, the rule-set plan, the proxy request
// line parser, the DNS question parser) are separate from the parts that
// touch the kernel (loading the rule set, NFLOG, sockets, slirp4netns).
//
// What it must never do: import pkg/sandbox, pkg/runner or pkg/annotate;
// build nft text from strings (host names and addresses only ever travel
// as set elements, never as rule text); forward a DNS question for a name
// off the allowlist; run with a half-applied wall (every failure in Setup
// or Attach is an error, and the run must be refused); send traffic
// anywhere in tests but loopback and test-owned network namespaces.
package egress
