package sandbox

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"sync"
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
		c := newCapture(Spec{OutputCap: cap})
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
	probeOnce = sync.Once{}
	probed.Store(false)
	probeResult = Capability{}
}
