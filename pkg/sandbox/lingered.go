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
// the kernel's bytes exactly; a command line is shown with its arguments
// separated by spaces, each quoted in Go syntax where it is not one plain
// word of UTF-8 (shownCmdline): no byte of an argument shows as another,
// nor does where one argument ends and the next begins, and a quoted
// argument holds the very bytes. Nil for none.
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
// arguments separated by spaces, each as it is where evidence.ShownName
// leaves it so (UTF-8 without U+FFFD, no control or format character, no
// space at either end, no double quote first) and it is not empty and
// holds no space, double quote or backslash, and, for the first, does not
// start with "[" (a process listed by its name), and, for the last, does
// not end with "…" (a command line cut); otherwise quoted in Go syntax
// (strconv.Quote). So `sh -c "a b"` and `sh -c a b` show apart, and so do
// "sleep 1000 a\xff" and "sleep 1000 a\xfe": each argument shows where it
// begins and ends, and a quoted one holds its very bytes. A cut command
// line is followed by "…", outside any quotes.
func shownCmdline(cl string, cut bool) string {
	args := strings.Split(cl, "\x00")
	for i, a := range args {
		if a == "" || evidence.ShownName(a) != a || strings.ContainsAny(a, ` "\`) ||
			(i == 0 && strings.HasPrefix(a, "[")) || (i == len(args)-1 && strings.HasSuffix(a, "…")) {
			args[i] = strconv.Quote(a)
		}
	}
	s := strings.Join(args, " ")
	if cut {
		s += "…"
	}
	return s
}
