package runner

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/vigiles/action/pkg/report"
)

// RuleHiddenDiff is a .gitattributes line that keeps the baseline's (or
// the policy file's) diff out of a pull request's review: a change of
// what is accepted is reviewed in that diff, and the pull request can
// carry both the attribute and the change.
const RuleHiddenDiff = "baseline/hidden-diff"

// maxAttributesFile bounds the .gitattributes file hiddenDiff reads.
const maxAttributesFile = 1 << 20

// hiddenDiff says, for the file rel (relative to the work tree, slash-
// separated), where the .gitattributes files of the tree, as git reads
// them, leave it with no text diff: "-diff" or "binary" (git and GitHub
// show "Binary files differ"), or "linguist-generated" (GitHub folds its
// diff away in a pull request, "Load diff"). The finding is placed at the
// last line that did so, and names what it hides; nil where nothing does.
// git reads .gitattributes in rel's directory and each above it, a deeper
// one's lines after a shallower one's, and a later line's attribute over
// an earlier one's; a pattern with no slash matches a name at any depth
// below its file's directory, one with a slash the path from there.
func hiddenDiff(tree, rel, what string) *report.Finding {
	var (
		noDiff, generated bool
		at, atGen         report.Location
		why, whyGen       string
	)
	// The tree's root first, rel's own directory last.
	var dirs []string
	for d := path.Dir(rel); d != "." && d != "/"; d = path.Dir(d) {
		dirs = append(dirs, d)
	}
	dirs = append(dirs, ".")
	slices.Reverse(dirs)
	for _, d := range dirs {
		file := path.Join(d, ".gitattributes")
		for n, line := range attributeLines(tree, file) {
			fields := strings.Fields(line)
			if len(fields) < 2 || strings.HasPrefix(fields[0], "#") || !attrMatch(fields[0], d, rel) {
				continue
			}
			loc := report.Location{File: file, Line: n + 1}
			for _, a := range fields[1:] {
				switch a {
				case "-diff", "binary":
					noDiff, at, why = true, loc, a
				case "diff", "!diff", "-binary":
					noDiff = false
				case "linguist-generated", "linguist-generated=true":
					generated, atGen, whyGen = true, loc, a
				case "-linguist-generated", "!linguist-generated", "linguist-generated=false":
					generated = false
				}
			}
		}
	}
	switch {
	case noDiff:
		return &report.Finding{Rule: RuleHiddenDiff, Severity: report.SeverityWarning, Location: at,
			Message: fmt.Sprintf("%s gives %s (%s) the attribute %s, so git and a pull request show a change of it as \"Binary files differ\": what a pull request changes of it is not shown to its reviewer, and the pull request itself may add this line; remove it", shownName(at.File), what, shownName(rel), why)}
	case generated:
		return &report.Finding{Rule: RuleHiddenDiff, Severity: report.SeverityWarning, Location: atGen,
			Message: fmt.Sprintf("%s gives %s (%s) the attribute %s, so GitHub folds its diff away in a pull request as a generated file's: what a pull request changes of it is not shown to its reviewer unless they unfold it, and the pull request itself may add this line; remove it", shownName(atGen.File), what, shownName(rel), whyGen)}
	}
	return nil
}

// attributeLines are the lines of the .gitattributes file (relative to
// the work tree), none where it is not a regular file of the tree (read
// through links only while they stay inside) or is larger than
// maxAttributesFile.
func attributeLines(tree, file string) []string {
	abs, ok := treeFileAt(tree, file)
	if !ok {
		return nil
	}
	data, ok := readCapped(abs, maxAttributesFile)
	if !ok {
		return nil
	}
	return strings.Split(data, "\n")
}

// attrMatch says whether the .gitattributes pattern pat, of the file in
// the directory dir, matches rel (both relative to the work tree): one
// with no slash the name at any depth below dir, one with a slash (a
// leading one only anchors it) the path from dir. A pattern that ends in
// "/" names directories, and matches no file.
func attrMatch(pat, dir, rel string) bool {
	if strings.HasSuffix(pat, "/") {
		return false
	}
	from := rel
	if dir != "." {
		var ok bool
		if from, ok = strings.CutPrefix(rel, dir+"/"); !ok {
			return false
		}
	}
	if !strings.Contains(pat, "/") {
		return globMatch(pat, path.Base(from))
	}
	return globMatch(strings.TrimPrefix(pat, "/"), from)
}
