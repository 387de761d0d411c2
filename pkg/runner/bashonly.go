package runner

import (
	"fmt"
	"strings"

	"github.com/vigiles/action/pkg/report"
)

// RuleBashOnly names a shell-form command hook whose command redirects
// with &> (or &>>), bash's redirection of stdout and stderr together,
// which /bin/sh reads otherwise where it is dash (Debian, Ubuntu,
// GitHub's Ubuntu runners): Claude Code runs a hook's command with
// /bin/sh on Linux, and dash reads `A &> F` as `A &` (A in the
// background) and `> F` (an empty command that succeeds). No error says
// so: A's output reaches the hook's stdout, which Claude Code reads, and
// its status is lost, so `if command -v X &> /dev/null; then X …` runs X
// on every machine, whether it has X or not.
const RuleBashOnly = "discovery/bash-only"

// bothRedirect finds, in a shell command, the first &> (or &>>) a shell
// reads as an operator: not quoted, not escaped, not in a comment or a
// here-document's body, not the end of an && (`a &&> f` is bash's &&
// then >). It returns its byte offset, -1 where there is none.
func bothRedirect(cmd string) int {
	if at := bothRedirects(cmd, 1); len(at) > 0 {
		return at[0]
	}
	return -1
}

// bothRedirects is the byte offsets of the first max &> (or &>>) of cmd
// a shell reads as operators (bothRedirect), all of them where max is 0.
func bothRedirects(cmd string, max int) []int {
	var found []int
	quote := byte(0)
	var pending []hereDoc
	for i := 0; i < len(cmd); i++ {
		c := cmd[i]
		switch {
		case quote == '\'':
			if c == '\'' {
				quote = 0
			}
		case c == '\\':
			i++ // the next byte is taken as it is, in "…" and out
		case quote == '"':
			if c == '"' {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case c == '#' && (i == 0 || strings.IndexByte(" \t\n;&|()", cmd[i-1]) >= 0):
			// A comment, to the end of its line.
			for i+1 < len(cmd) && cmd[i+1] != '\n' {
				i++
			}
		case strings.HasPrefix(cmd[i:], "<<<"):
			i += 2 // a here-string: its word is read as any other
		case strings.HasPrefix(cmd[i:], "<<") && inArithmetic(cmd[strings.LastIndexByte(cmd[:i], '\n')+1:i]):
			i++ // a shift in $(( … )) or (( … )), not a here-document
		case strings.HasPrefix(cmd[i:], "<<"):
			// A here-document: its body, from the next line to its
			// delimiter's, is text, not commands.
			h, end := hereDocAt(cmd, i)
			if h.delim != "" {
				pending = append(pending, h)
			}
			i = end - 1
		case c == '\n' && len(pending) > 0:
			// Skip each pending body, line by line, to its delimiter.
			for _, h := range pending {
				for i+1 < len(cmd) {
					end := strings.IndexByte(cmd[i+1:], '\n')
					line := cmd[i+1:]
					if end >= 0 {
						line = cmd[i+1 : i+1+end]
					}
					if end < 0 {
						i = len(cmd)
					} else {
						i += 1 + end
					}
					if h.tabs {
						line = strings.TrimLeft(line, "\t")
					}
					if strings.TrimSuffix(line, "\r") == h.delim {
						break
					}
				}
			}
			pending = nil
		case c == '&' && i+1 < len(cmd) && cmd[i+1] == '>' && (i == 0 || cmd[i-1] != '&' && cmd[i-1] != '>' && cmd[i-1] != '<'):
			if found = append(found, i); len(found) == max {
				return found
			}
		}
	}
	return found
}

// inArithmetic says whether the line's text before a << leaves an
// arithmetic expression open ($(( or (( not yet closed)), where << is a
// shift.
func inArithmetic(before string) bool {
	return strings.Count(before, "((") > strings.Count(before, "))")
}

// bothRedirectAt is the words of cmd around its &> (bothRedirect), what a
// message shows of where it is.
func bothRedirectAt(cmd string, at int) string {
	start := strings.LastIndexAny(cmd[:at], ";&|\n(") + 1
	end := at + 2
	if end < len(cmd) && cmd[end] == '>' {
		end++
	}
	for end < len(cmd) && cmd[end] == ' ' {
		end++
	}
	if e := strings.IndexAny(cmd[end:], " ;&|\n)"); e >= 0 {
		end += e
	} else {
		end = len(cmd)
	}
	return strings.TrimSpace(cmd[start:end])
}

// hookBashOnly warns of each shell-form command hook that runs and
// redirects with &> (RuleBashOnly): where, what /bin/sh makes of it, and
// what to write instead.
func (s *session) hookBashOnly() {
	for _, h := range s.hooks {
		if !h.runs() || h.Exec || h.Shell == "powershell" {
			continue
		}
		at := bothRedirect(h.Command)
		if at < 0 {
			continue
		}
		s.findings = append(s.findings, report.Finding{Rule: RuleBashOnly, Severity: report.SeverityWarning, Location: h.Location, Hook: h.ID,
			Title: "bash's &> under /bin/sh",
			Message: fmt.Sprintf("hook %s redirects with &> (%s), bash's redirection of stdout and stderr together, but Claude Code runs a hook's command with /bin/sh, which where it is dash (Debian, Ubuntu, GitHub's Ubuntu runners) reads `A &> F` as `A &`, A in the background, and `> F`, an empty command that succeeds: A's output is not redirected (it reaches the hook's stdout, which Claude Code reads), its exit status is lost (an if, && or || tests the empty command's success), and the hook may end before A does; write `A > F 2>&1` (`>> F 2>&1` for &>>)",
				shownCut(h.ID, maxServerLine), shownCut(bothRedirectAt(h.Command, at), 120))})
	}
}
