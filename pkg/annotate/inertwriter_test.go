package annotate

import (
	"bytes"
	"io"
	"strings"
	"testing"
)

// TestInertWriter: whatever the chunking, a command's output passed
// through holds no line the runner would run, and ordinary output comes
// out unchanged.
func TestInertWriter(t *testing.T) {
	plain := "building...\nok: 3 tests\n\tindented: a::b c#[d]\r\nlast line without end"
	hostileText := strings.Join(hostile, "\n") + "\n" + strings.Repeat(" ", inertMaxLine+10) + "::error::after a long run of spaces\n" +
		strings.Repeat("x", inertMaxLine-1) + "##[error]across the cut\n" +
		// A space rune (U+00A0, U+3000) cut by the 64 KiB cut.
		strings.Repeat(" ", inertMaxLine) + "\u00a0::error::after a cut rune\n" +
		strings.Repeat(" ", inertMaxLine-1) + "\u3000::error::after a cut rune\n" +
		"::warning::no end"
	for _, tc := range []struct {
		name, in string
		same     bool
	}{{"plain", plain, true}, {"hostile", hostileText, false}} {
		for _, size := range []int{1, 2, 3, 7, 64, 4096, len(tc.in)} {
			var b bytes.Buffer
			writeInChunks(t, NewInertWriter(&b), tc.in, size)
			out := b.String()
			if tc.same && out != tc.in {
				t.Errorf("%s in chunks of %d: output changed: %.200q", tc.name, size, out)
			}
			for _, c := range runnerCommands(t, out) {
				t.Errorf("%s in chunks of %d: the runner would run %s (%.80q)", tc.name, size, c.Name, c.Data)
			}
			if strings.Contains(out, "##[") {
				t.Errorf("%s in chunks of %d: a legacy command is left", tc.name, size)
			}
			if !tc.same && strings.Count(out, "\n") != strings.Count(tc.in, "\n") {
				t.Errorf("%s in chunks of %d: %d lines, want %d", tc.name, size, strings.Count(out, "\n"), strings.Count(tc.in, "\n"))
			}
		}
	}
}

// TestInertWriterByteOrderMark: the runner's reader drops a UTF-8 byte
// order mark at the start of a step's stdout or stderr and decodes the
// whole stream as UTF-16 or UTF-32 after one of theirs, so a command whose
// output starts with one must not reach the log as it is.
func TestInertWriterByteOrderMark(t *testing.T) {
	utf16le := func(s string) string {
		var b []byte
		for _, r := range s {
			b = append(b, byte(r), 0)
		}
		return string(b)
	}
	utf32le := func(s string) string {
		var b []byte
		for _, r := range s {
			b = append(b, byte(r), 0, 0, 0)
		}
		return string(b)
	}
	utf16be := func(s string) string {
		var b []byte
		for _, r := range s {
			b = append(b, 0, byte(r))
		}
		return string(b)
	}
	for name, in := range map[string]string{
		"utf-8":         "\xef\xbb\xbf::add-mask::hook-mask\n::error::second\n",
		"utf-8 spaces":  "\xef\xbb\xbf  ::error::indented\n",
		"utf-16le":      "\xff\xfe" + utf16le("x\n::error::forged\n"),
		"utf-16be":      "\xfe\xff" + utf16be("x\n::error::forged\n"),
		"utf-32le":      "\xff\xfe\x00\x00" + utf32le("x\n::error::forged\n"),
		"utf-8 no end":  "\xef\xbb\xbf::error::no end",
		"utf-8 by text": "\xef\xbb\xbf::error::via InertText\n",
	} {
		for _, size := range []int{1, 2, 3, len(in)} {
			var b bytes.Buffer
			if name == "utf-8 by text" {
				b.WriteString(InertText(in))
			} else {
				writeInChunks(t, NewInertWriter(&b), in, size)
			}
			for _, c := range runnerCommands(t, b.String()) {
				t.Errorf("%s in chunks of %d: the runner would run %s (%.80q)", name, size, c.Name, c.Data)
			}
		}
	}
	if got := InertLine("plain \ufeff inside"); got != "plain \ufeff inside" {
		t.Errorf("a byte order mark inside a line changed it: %q", got)
	}
}

// writeInChunks writes s to w in writes of size bytes, then closes w.
func writeInChunks(t *testing.T, w io.WriteCloser, s string, size int) {
	t.Helper()
	for len(s) > 0 {
		n := min(size, len(s))
		if _, err := w.Write([]byte(s[:n])); err != nil {
			t.Fatal(err)
		}
		s = s[n:]
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestInertWriterCommandTag: a command's line that starts "[command]"
// passed through vigiles run unchanged, and the log viewer shows such a
// line as a command the step ran; it starts "[·command]" now, as in the
// raw hook output, whatever the chunking, at the start of a line that
// CR starts and of a line longer than what is held back. "[command]"
// elsewhere in a line stays.
func TestInertWriterCommandTag(t *testing.T) {
	long := strings.Repeat("y", inertMaxLine+10)
	in := "[command]/usr/bin/git push --force\nok [command] inside\nx\r[command]after CR\r\n[command]" + long + "\n[command]no end"
	want := "[·command]/usr/bin/git push --force\nok [command] inside\nx\r[·command]after CR\r\n[·command]" + long + "\n[·command]no end"
	for _, size := range []int{1, 2, 5, 9, 64, 4096, len(in)} {
		var b bytes.Buffer
		writeInChunks(t, NewInertWriter(&b), in, size)
		if b.String() != want {
			t.Errorf("in chunks of %d: %.300q, want %.300q", size, b.String(), want)
		}
	}
	if got := InertText("a\n[command]b\r[command]c"); got != "a\n[·command]b\r[·command]c" {
		t.Errorf("InertText: %q", got)
	}
}

// TestInertLines: InertLines writes what InertText makes of the text,
// byte for byte, however the text is cut into writes, and hands the
// writer under it whole lines only, batched: a line longer than
// InertWriter holds back is made inert whole.
func TestInertLines(t *testing.T) {
	long := strings.Repeat(" ", inertMaxLine+10) + "::error::after a long run of spaces"
	in := strings.Join(hostile, "\n") + "\n" + strings.Join(hostileLines, "\r\n") + "\r" + long + "\n" +
		strings.Repeat("plain line: a##[b\n", 20000) + "::warning::no end"
	checkInertLines(t, in, []int{1, 2, 3, 7, 64, 4096, inertLinesBatch + 1, len(in)})
}

// FuzzInertLines: the same for any text and any cut.
func FuzzInertLines(f *testing.F) {
	for _, s := range hostileLines {
		f.Add(s+"\n"+s, 3)
	}
	f.Add("\r\n\r\r\n::x", 1)
	f.Fuzz(func(t *testing.T, s string, size int) {
		if size <= 0 {
			size = 1
		}
		checkInertLines(t, s, []int{size})
	})
}

func checkInertLines(t *testing.T, in string, sizes []int) {
	t.Helper()
	want := InertText(in)
	for _, size := range sizes {
		var w linesSeen
		writeInChunks(t, NewInertLines(&w), in, size)
		if got := w.b.String(); got != want {
			t.Fatalf("in writes of %d: %.200q, want InertText's %.200q", size, got, want)
		}
		for i, wr := range w.writes[:max(len(w.writes)-1, 0)] {
			if !strings.HasSuffix(wr, "\n") && !strings.HasSuffix(wr, "\r") {
				t.Fatalf("in writes of %d: write %d of %d ends inside a line: %.80q", size, i, len(w.writes), wr[max(len(wr)-80, 0):])
			}
		}
		if most := len(want)/inertLinesBatch + 2; len(w.writes) > most {
			t.Errorf("in writes of %d: %d writes for %d bytes, want at most %d", size, len(w.writes), len(want), most)
		}
	}
}

// linesSeen records each write it is given.
type linesSeen struct {
	b      strings.Builder
	writes []string
}

func (l *linesSeen) Write(p []byte) (int, error) {
	l.writes = append(l.writes, string(p))
	return l.b.Write(p)
}
