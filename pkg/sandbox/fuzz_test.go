package sandbox

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"strings"
	"syscall"
	"testing"
	"unicode/utf8"
)

func syscallKill(pid int) { syscall.Kill(pid, syscall.SIGKILL) }

// FuzzOutputCapture feeds command output (bytes the command controls)
// through the capture and the JSON result, and checks the exact bytes
// come back: as text when UTF-8, as base64 otherwise, cut at the cap.
func FuzzOutputCapture(f *testing.F) {
	f.Add([]byte("hello\n"), 4)
	f.Add([]byte("\xff\xfe\x1b[31m::error::x%0A"), 100)
	f.Add([]byte("\u2028</script>\x00"), 3)
	f.Fuzz(func(t *testing.T, out []byte, cap int) {
		if cap <= 0 || cap > 1<<16 {
			cap = 1 << 16
		}
		c := newCapture(Spec{OutputCap: cap}, 0)
		// Written in two pieces, as a pipe would deliver it.
		half := len(out) / 2
		c.stdout.Write(out[:half])
		c.stdout.Write(out[half:])
		var r Result
		c.fill(&r)
		want := out
		if len(want) > cap {
			// Cut at the cap, without the first bytes of a character
			// the cap cut (cutRuneEnd).
			want = cutRuneEnd(want[:cap], true)
		}
		if r.StdoutTruncated != (len(out) > cap) {
			t.Fatalf("truncated = %v for %d bytes under cap %d", r.StdoutTruncated, len(out), cap)
		}
		b, err := json.Marshal(&r)
		if err != nil {
			t.Fatal(err)
		}
		var back Result
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatal(err)
		}
		got := []byte(back.Stdout)
		if back.StdoutEncoding == "base64" {
			if got, err = base64.StdEncoding.DecodeString(back.Stdout); err != nil {
				t.Fatal(err)
			}
		} else if !utf8.Valid(want) {
			t.Fatal("invalid UTF-8 carried as text")
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("round trip changed the output: %q -> %q", want, got)
		}
	})
}

// resetProbe forgets the cached confinement probe.
func resetProbe() {
	probed.Store(false)
	probeResult = Capability{}
}

// TestPassThroughIsBounded: a confined command's output passes through
// up to the bound, cut where the bound falls, then one line naming the
// stream and the limit, and nothing more however much follows; the
// capture keeps its own cap. Without a bound (a direct run) it all
// passes.
func TestPassThroughIsBounded(t *testing.T) {
	var pass bytes.Buffer
	c := newCapture(Spec{OutputCap: 4, PassStderr: &pass}, 10)
	for _, w := range []string{"0123", "456789ab", "cdef", "more"} {
		// Past the bound within a write.
		if n, err := c.stderr.Write([]byte(w)); n != len(w) || err != nil {
			t.Fatalf("Write(%q) = %d, %v", w, n, err)
		}
	}
	want := "0123456789\nvigiles: the command's stderr passed 10 bytes, the run's largest file (--limit-file-size, limits.file-size); the rest is not passed on\n"
	if pass.String() != want {
		t.Errorf("passed %q, want %q", pass.String(), want)
	}
	if b, cut := c.stderr.bytes(); string(b) != "0123" || !cut {
		t.Errorf("captured %q (cut %v), want the cap's 4 bytes, cut", b, cut)
	}
	// A write that fills the bound exactly passes whole; the next one
	// is cut, and says so.
	pass.Reset()
	c = newCapture(Spec{PassStdout: &pass}, 4)
	c.stdout.Write([]byte("0123"))
	c.stdout.Write([]byte("4"))
	if want := "0123\nvigiles: the command's stdout passed 4 bytes"; !strings.HasPrefix(pass.String(), want) {
		t.Errorf("passed %q, want it to start %q", pass.String(), want)
	}
	pass.Reset()
	c = newCapture(Spec{PassStdout: &pass}, 0)
	big := bytes.Repeat([]byte("x"), 3<<20)
	c.stdout.Write(big)
	if pass.Len() != len(big) {
		t.Errorf("without a bound %d of %d bytes passed", pass.Len(), len(big))
	}
}
