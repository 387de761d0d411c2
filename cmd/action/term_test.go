package main

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"

	"github.com/vigiles/action/internal/ptytest"
)

// TestTerminalWriter: every control a terminal acts on is shown, not
// sent, however the output is cut into writes; text, tabs, newlines,
// carriage returns and characters past U+009F pass unchanged.
func TestTerminalWriter(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"plain text\twith tab\r\n", "plain text\twith tab\r\n"},
		{"\x1b[31mred\x1b[0m", "^[[31mred^[[0m"},
		{"\x1b]0;title\x07", "^[]0;title^G"},
		{"\x1b]52;c;cGF3bmVk\x1b\\", "^[]52;c;cGF3bmVk^[\\"},
		{"\x1b[?1049h\x1b[8m", "^[[?1049h^[[8m"},
		{"nul\x00 bs\b del\x7f", "nul^@ bs^H del^?"},
		{"c1 csi \u009b31m osc \u009d", `c1 csi \u009b31m osc \u009d`},
		{"raw c1 \x9b31m \x9d", `raw c1 \x9b31m \x9d`},
		{"latin1 \xe9 and \xff", "latin1 \xe9 and \xff"},
		{"é ü 日本 🙂 \u00a0 \ufffd", "é ü 日本 🙂 \u00a0 \ufffd"},
		{"cut at the end \xe6\x97", "cut at the end \xe6" + `\x97`},
		{"\xc2", "\xc2"},
	} {
		for _, step := range []int{0, 1, 2, 3} {
			var out bytes.Buffer
			w := newTerminalWriter(&out)
			if step == 0 {
				w.Write([]byte(tc.in))
			} else {
				for b := []byte(tc.in); len(b) > 0; {
					n := min(step, len(b))
					if k, err := w.Write(b[:n]); k != n || err != nil {
						t.Fatalf("Write(%q) = %d, %v", b[:n], k, err)
					}
					b = b[n:]
				}
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			if got := out.String(); got != tc.want {
				t.Errorf("%q in writes of %d bytes (0: one write): shown as %q, want %q", tc.in, step, got, tc.want)
			}
		}
	}
}

// TestRunOnATerminal: vigiles run whose output is a terminal shows the
// command's escape sequences instead of sending them, on stdout and on
// stderr, and the report after them is whole; piped, the output is the
// command's exact bytes. The run is in the open (--sandbox off) since
// this is about the terminal, not the sandbox.
func TestRunOnATerminal(t *testing.T) {
	hostile := `printf 'out\033]0;pwned\007\033[2J\n'; printf 'err\033[8m\233\n' >&2`
	ptm, pts := ptytest.Open(t)
	var (
		master bytes.Buffer
		done   = make(chan struct{})
	)
	go func() { io.Copy(&master, ptm); close(done) }()
	err := run(context.Background(), []string{"run", "--sandbox", "off", "--", "sh", "-c", hostile},
		func(string) string { return "" }, strings.NewReader(""), pts, pts)
	if code := exitCode(err, io.Discard, false); code != 0 {
		t.Fatalf("exit %d: %v", code, err)
	}
	pts.Close()
	<-done
	got := master.String()
	if strings.ContainsAny(got, "\x1b\x07") || strings.Contains(got, "\u009b") {
		t.Errorf("a control reached the terminal: %q", got)
	}
	for _, want := range []string{"out^[]0;pwned^G^[[2J", `err^[[8m\x9b`, "vigiles: direct, exit 0"} {
		if !strings.Contains(got, want) {
			t.Errorf("the terminal shows %q, want it to hold %q", got, want)
		}
	}

	var out, errb bytes.Buffer
	err = run(context.Background(), []string{"run", "--sandbox", "off", "--", "sh", "-c", hostile},
		func(string) string { return "" }, strings.NewReader(""), &out, &errb)
	if code := exitCode(err, io.Discard, false); code != 0 {
		t.Fatalf("exit %d: %v", code, err)
	}
	if out.String() != "out\x1b]0;pwned\x07\x1b[2J\n" || !strings.HasPrefix(errb.String(), "err\x1b[8m\x9b\n") {
		t.Errorf("piped output changed: stdout %q, stderr %q", out.String(), errb.String())
	}
	// The report after it starts with the reset, so that a terminal that
	// shows the log later (cat) shows the report, not concealed text.
	if want := "err\x1b[8m\x9b\n" + termReset + "\nvigiles: direct, exit 0"; !strings.HasPrefix(errb.String(), want) {
		t.Errorf("piped stderr %q, want it to start %q", errb.String(), want)
	}
}

// TestRunResetsOnlyAfterControls: piped, the report of a run whose output
// held a terminal control starts with termReset, wherever the control
// was (stdout or stderr, an OSC left open, a SO, a C1 control in UTF-8,
// a control cut across two writes); that of a run whose output held none
// (UTF-8 text, tabs, carriage returns, an em dash whose bytes hold 0x80
// and 0x94 as continuation bytes) does not, so its bytes stay as
// printed. In the open (--sandbox off): the terminal is the point here.
func TestRunResetsOnlyAfterControls(t *testing.T) {
	for _, c := range []struct {
		script string
		reset  bool
	}{
		{`printf 'plain\ttext\r\n\342\200\224 caf\303\251\n'`, false},
		{`printf 'title \033]0;open' >&2`, true},
		{`printf 'shift \016out\n'`, true},
		{`printf 'c1 \302\233 in UTF-8\n'`, true},
		{`printf 'half \302'; sleep 0.2; printf '\233 later\n'`, true},
		{`printf 'bell \007\n' >&2`, true},
	} {
		var out, errb bytes.Buffer
		err := run(context.Background(), []string{"run", "--sandbox", "off", "--", "sh", "-c", c.script},
			func(string) string { return "" }, strings.NewReader(""), &out, &errb)
		if code := exitCode(err, io.Discard, false); code != 0 {
			t.Fatalf("%s: exit %d: %v", c.script, code, err)
		}
		if got := strings.Contains(errb.String(), termReset); got != c.reset {
			t.Errorf("%s: the report starts with the reset: %v, want %v\nstdout %q\nstderr %q", c.script, got, c.reset, out.String(), errb.String())
		}
	}
}
