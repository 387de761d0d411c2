package docnames

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// TestDocLinksResolve: every relative link of the docs leads to a file of
// the repository, and every #anchor to a heading of the page it names, as
// GitHub makes a heading's anchor: a newcomer who follows one must land
// where it says, and a heading renamed or moved to another page must not
// leave a link pointing at the top of a page of a thousand lines.
func TestDocLinksResolve(t *testing.T) {
	root := filepath.Join("..", "..")
	link := regexp.MustCompile(`\]\(([^)\s#]*)(?:#([^)\s]*))?\)`)
	anchors := map[string]map[string]bool{} // by path, relative to root
	headings := func(p string) map[string]bool {
		if a, ok := anchors[p]; ok {
			return a
		}
		b, err := os.ReadFile(filepath.Join(root, p))
		if err != nil {
			return nil
		}
		a := map[string]bool{}
		seen := map[string]int{}
		for _, line := range outsideFences(string(b)) {
			h, ok := strings.CutPrefix(line, "#")
			if !ok {
				continue
			}
			h = strings.TrimLeft(h, "#")
			if !strings.HasPrefix(h, " ") {
				continue
			}
			s := slug(h)
			if n := seen[s]; n > 0 {
				a[s+"-"+strconv.Itoa(n)] = true
			} else {
				a[s] = true
			}
			seen[s]++
		}
		anchors[p] = a
		return a
	}
	for _, doc := range docs {
		b, err := os.ReadFile(filepath.Join(root, doc))
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range outsideFences(string(b)) {
			for _, m := range link.FindAllStringSubmatch(withoutCodeSpans(line), -1) {
				target, anchor := m[1], m[2]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				p := doc
				if target != "" {
					p = filepath.ToSlash(filepath.Clean(filepath.Join(filepath.Dir(doc), target)))
					if _, err := os.Stat(filepath.Join(root, p)); err != nil {
						t.Errorf("%s links to %s, which is not in the repository", doc, target)
						continue
					}
				}
				if anchor == "" || !strings.HasSuffix(p, ".md") {
					continue
				}
				if !headings(p)[anchor] {
					t.Errorf("%s links to %s#%s, a heading %s does not have", doc, target, anchor, p)
				}
			}
		}
	}
}

// outsideFences is text's lines that are not inside a fenced code block:
// a fence opens with three
// backticks or more and an info string of no backtick (a line that
// starts with a code span of ```` is none), and closes with as many
// backticks or more alone.
func outsideFences(text string) []string {
	var out []string
	fence := 0 // the open fence's backticks; 0: none
	for _, line := range strings.Split(text, "\n") {
		l := strings.TrimSpace(line)
		n := len(l) - len(strings.TrimLeft(l, "`"))
		switch {
		case fence == 0 && n >= 3 && !strings.Contains(l[n:], "`"):
			fence = n
			continue
		case fence > 0 && n >= fence && n == len(l):
			fence = 0
			continue
		case fence > 0:
			continue
		}
		out = append(out, line)
	}
	return out
}

// withoutCodeSpans is line with its code spans taken out: a run of
// backticks opens one, which the next run of as many closes; a run that
// none closes is text.
func withoutCodeSpans(line string) string {
	var b strings.Builder
	for i := 0; i < len(line); {
		if line[i] != '`' {
			b.WriteByte(line[i])
			i++
			continue
		}
		n := len(line[i:]) - len(strings.TrimLeft(line[i:], "`"))
		end := -1
		for j := i + n; j < len(line); {
			if line[j] != '`' {
				j++
				continue
			}
			m := len(line[j:]) - len(strings.TrimLeft(line[j:], "`"))
			if m == n {
				end = j + m
				break
			}
			j += m
		}
		if end < 0 {
			b.WriteString(line[i : i+n])
			i += n
			continue
		}
		i = end
	}
	return b.String()
}

// slug is the anchor GitHub gives a heading: lower case, spaces as
// hyphens, and every character but letters, digits, hyphens and
// underscores dropped.
func slug(h string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(h)) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127 && (unicode.IsLetter(r) || unicode.IsDigit(r)):
			b.WriteRune(r)
		}
	}
	return b.String()
}
