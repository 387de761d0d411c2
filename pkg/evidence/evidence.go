package evidence

import "strings"

// Op is what happened to a path during a run.
type Op string

// The write operations a run can record. A rename is recorded as a delete
// of the old path and a create of the new one when the record comes from an
// overlay upper directory (that is what the kernel keeps); the snapshot
// method reports the same pair.
const (
	OpCreate Op = "create"
	OpModify Op = "modify"
	OpDelete Op = "delete"
)

// Write is one path a run created, modified or deleted. Path is relative to
// the work tree (TreePath), or starts with "~/" (the run's throwaway HOME),
// "$TMPDIR/" (its throwaway TMPDIR) or "/dev/shm/".
type Write struct {
	Path string `json:"path"`
	Op   Op     `json:"op"`
	// Kind is "file", "dir", "symlink" or "other" for creates and modifies.
	Kind string `json:"kind,omitempty"`
}

// Via says how an egress attempt was seen.
type Via string

const (
	ViaDNS     Via = "dns"     // a name asked of the sandbox's DNS stub
	ViaProxy   Via = "proxy"   // a request to the recording proxy
	ViaConnect Via = "connect" // a packet seen by the nft rule set
)

// Egress is one destination a run tried to reach, deduplicated; Attempts
// counts how often. Host is the name where one can be known (from the
// proxy request or the DNS log), empty otherwise.
type Egress struct {
	Host     string `json:"host,omitempty"`
	IP       string `json:"ip,omitempty"`
	Port     int    `json:"port,omitempty"`
	Proto    string `json:"proto,omitempty"` // tcp, udp, icmp, dns, http
	Via      Via    `json:"via"`
	Allowed  bool   `json:"allowed"`
	Attempts int    `json:"attempts"`
	Packets  uint64 `json:"packets"`
	Bytes    uint64 `json:"bytes"`
	// Detail carries the method and path of a proxy request, without query.
	Detail string `json:"detail,omitempty"`
}

// Dropped counts what the allow-mode wall dropped in total.
type Dropped struct {
	Packets uint64 `json:"packets"`
	Bytes   uint64 `json:"bytes"`
}

// Egress modes.
const (
	EgressDeny   = "deny"
	EgressRecord = "record"
	EgressAllow  = "allow"
)

// EgressPolicy is what a run asks of the network. The zero value is deny.
type EgressPolicy struct {
	Mode string `json:"mode"`
	// Allow holds host names (exact or "*.suffix"), each optionally with
	// ":port".
	Allow []string `json:"allow,omitempty"`
	// AllowIP holds CIDRs that may be reached, and that allowlisted names
	// may resolve to even when they are loopback, link-local or private.
	AllowIP []string `json:"allowIP,omitempty"`
	// DNSUpstream is ADDR[:PORT] of the resolver that allowlisted names are
	// forwarded to.
	DNSUpstream string `json:"dnsUpstream,omitempty"`
	// Connector is "slirp4netns", "pasta" or "" (choose).
	Connector string `json:"connector,omitempty"`
}

// TreePath is how a path relative to the work tree is recorded: as it is,
// unless its first component is "~" or "$TMPDIR", which would read as the
// run's HOME or TMPDIR (a command could name a directory of the tree so,
// to have its writes there taken for throwaway ones); such a path gets
// "./" in front. A relative path never starts with "/" or "./" otherwise,
// so every recorded path says unambiguously where it is.
func TreePath(rel string) string {
	first, _, _ := strings.Cut(rel, "/")
	if first == "~" || first == "$TMPDIR" {
		return "./" + rel
	}
	return rel
}
