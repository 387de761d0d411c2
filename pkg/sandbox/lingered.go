package sandbox

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/vigiles/action/pkg/evidence"
	"github.com/vigiles/action/pkg/sandbox/reaper"
)

// shownLingered is the lingered list as Result holds it: one line of text
// for each process the reaper (or, at a timeout, the init) listed, "PID
// command line", or "PID [\"name\"]" for one whose command line is empty,
// and the entries that stand for processes not listed. The reaper sends
// the kernel's bytes exactly; a command line is shown as it is, with its
// arguments separated by spaces, where that is one plain line, and quoted
// in Go syntax otherwise (shownCmdline): no byte of an argument shows as
// another (only where one argument ends and the next begins is not
// shown), and the quoted form holds the very bytes. Nil for none.
func shownLingered(ps []reaper.Process) []string {
	if len(ps) == 0 {
		return nil
	}
	out := make([]string, len(ps))
	for i, p := range ps {
		switch {
		case p.Unlisted:
			out[i] = reaper.LingeredUnlisted
		case p.Pid == 0:
			out[i] = fmt.Sprintf("… and up to %d more, not listed", p.More)
		case p.Cmdline != "":
			out[i] = strconv.Itoa(p.Pid) + " " + shownCmdline(string(p.Cmdline), p.Cut)
		default:
			out[i] = strconv.Itoa(p.Pid) + " [" + strconv.Quote(string(p.Name)) + "]"
		}
	}
	return out
}

// shownCmdline is a command line as the lingered list shows it: its
// arguments separated by spaces, as they are where evidence.ShownName
// leaves them so (UTF-8 without U+FFFD, no control or format character,
// no space at either end, no double quote first) and they neither start
// with "[" (a process listed by its name) nor end with "…" (a command line
// cut); otherwise quoted in Go syntax (strconv.Quote), so that
// "sleep 1000 a\xff" and "sleep 1000 a\xfe" show as themselves, apart. A
// cut command line is followed by "…", outside the quotes.
func shownCmdline(cl string, cut bool) string {
	line := strings.ReplaceAll(cl, "\x00", " ")
	s := evidence.ShownName(line)
	if s == line && (strings.HasPrefix(line, "[") || strings.HasSuffix(line, "…")) {
		s = strconv.Quote(line)
	}
	if cut {
		s += "…"
	}
	return s
}
