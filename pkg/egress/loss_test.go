package egress

// Loss tests: whatever the command sends the DNS stub (over TCP too) and
// the recording proxy is recorded, or Finish says the record is not whole
// (ErrIncomplete). Each drives a real session in a namespaced child (the
// harness in harness_test.go) with a Python client that floods, pipelines
// or holds connections idle and then exits at once, as a hostile command
// would; only loopback and names under .example are used.

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/evidence"
)

// pyPrelude is the Python the probes share: the descriptor limit raised to
// its hard limit, DNS queries (tcpq frames one for TCP) and the proxy's
// address.
const pyPrelude = `
import os, socket, struct, resource
_, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
def dnsq(i, name):
    wire = b"".join(bytes([len(l)]) + l for l in name.encode().split(b".")) + b"\x00"
    return struct.pack(">HHHHHH", i & 0xffff, 0x100, 1, 0, 0, 0) + wire + b"\x00\x01\x00\x01"
def tcpq(i, name):
    m = dnsq(i, name)
    return struct.pack(">H", len(m)) + m
def proxy():
    return ("127.0.0.1", int(os.environ["HTTP_PROXY"].rsplit(":", 1)[1]))
`

// pyProbe runs script (after pyPrelude) as a probe.
func pyProbe(script string) string {
	return "sh:python3 - <<'PY'\n" + pyPrelude + script + "\nPY\n"
}

// lossRun runs probes in a sandbox child of the given mode and fails on a
// setup error.
func lossRun(t *testing.T, mode string, probes ...string) childResult {
	t.Helper()
	res := runChild(t, "sandbox", childSpec{Policy: evidence.EgressPolicy{Mode: mode}, Probes: probes}, nil)
	if res.SetupErr != "" {
		t.Fatalf("setup: %s", res.SetupErr)
	}
	for i, p := range res.Probes {
		if p.Code != 0 {
			t.Fatalf("probe %d failed (%d): %s", i, p.Code, p.Output)
		}
	}
	return res
}

// attempts sums the attempts of the entries seen via via for host.
func attempts(es []evidence.Egress, via evidence.Via, host string) int {
	n := 0
	for _, e := range es {
		if e.Via == via && e.Host == host {
			n += e.Attempts
		}
	}
	return n
}

// incomplete reports whether the child's Finish said the record is not
// whole (the error crossed a process boundary as text).
func incomplete(res childResult) bool {
	return strings.Contains(res.FinishErr, ErrIncomplete.Error())
}

// wantWhole fails unless Finish returned no error and every name in want
// has its count of attempts via via.
func wantWhole(t *testing.T, res childResult, via evidence.Via, want map[string]int) {
	t.Helper()
	if res.FinishErr != "" {
		t.Errorf("finish: %s", res.FinishErr)
	}
	var wrong []string
	for host, n := range want {
		if got := attempts(res.Egress, via, host); got != n {
			wrong = append(wrong, fmt.Sprintf("%s: %d attempts, want %d", host, got, n))
		}
	}
	sort.Strings(wrong)
	if len(wrong) > 0 {
		t.Errorf("%d of %d hosts not recorded as sent via %s: %s", len(wrong), len(want), via, strings.Join(wrong[:min(len(wrong), 8)], "; "))
	}
}

// TestDNSEveryQuestionOfAMessage: a query with two questions has both
// recorded (the answer is for the first).
func TestDNSEveryQuestionOfAMessage(t *testing.T) {
	needNamespaces(t)
	res := lossRun(t, evidence.EgressDeny, "dns:"+hex.EncodeToString(twoQuestions()))
	if len(res.Probes[0].Output) < 8 || res.Probes[0].Output[:4] != "4243" {
		t.Errorf("answer %s, want id 4243", res.Probes[0].Output)
	}
	wantWhole(t, res, evidence.ViaDNS, map[string]int{"first.example": 1, "second-secret.example": 1})
}

// twoQuestions is a query for first.example and second-secret.example (the
// second name's "example" label by compression pointer).
func twoQuestions() []byte {
	b := buildQuery(0x4243, 1, []byte("first"), []byte("example"))
	binary.BigEndian.PutUint16(b[4:], 2)
	b = append(b, 13)
	b = append(b, "second-secret"...)
	b = append(b, 0xc0, 12+6) // "example" of the first name
	b = binary.BigEndian.AppendUint16(b, 1)
	return binary.BigEndian.AppendUint16(b, 1)
}

func TestParseQueryEveryQuestion(t *testing.T) {
	names := func(b []byte) []string {
		q, err := parseQuery(b)
		if err != nil {
			t.Fatal(err)
		}
		ns := []string{q.Name}
		for o := range moreQuestions(b) {
			ns = append(ns, o.Name)
			if !o.LDH || o.Type != 1 || o.Class != 1 {
				t.Errorf("second question %+v", o)
			}
		}
		return ns
	}
	if got := names(twoQuestions()); !slices.Equal(got, []string{"first.example", "second-secret.example"}) {
		t.Errorf("questions %q, want first.example then second-secret.example", got)
	}
	// A second question cut short is not one; the first still is.
	cut := twoQuestions()
	if got := names(cut[:len(cut)-3]); !slices.Equal(got, []string{"first.example"}) {
		t.Errorf("with the second question cut short: %q, want first.example", got)
	}
}
