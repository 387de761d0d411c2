package runner

import (
	"encoding/json"
	"fmt"
	"maps"
	"path"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/vigiles/action/internal/textcut"
	"github.com/vigiles/action/pkg/report"
)

// On a pull_request event GitHub runs the workflow as the pull request's
// merge commit has it, so a pull request can weaken the vigiles step of
// its own check (sandbox: off, fail-level: none, continue-on-error: true,
// an if: that skips it) as it can its policy file. Compared with the
// base's workflow file (WorkflowBase), each such change is a
// RulePolicyWeakened warning at its line of the workflow file.

// maxWorkflowSteps bounds the vigiles steps of a workflow compared (each
// head step is matched against the base's).
const maxWorkflowSteps = 1000

// maxWorkflowChange bounds, in characters, what a finding says of one
// change: an input's or an if:'s text is the pull request's, of any
// length, and so is a step's name, cut in its middle (textcut.Middle).
const maxWorkflowChange = 4000

// WorkflowBase is the workflow file a pull request's check runs in, as
// its base and its head hold it, read by the caller (git, outside any
// sandbox).
type WorkflowBase struct {
	// File is the workflow's path as findings name it (relative to the
	// work tree, as the policy file's); Shown is its path in the
	// repository, as messages name it.
	File, Shown string
	// Head is the workflow as the checkout's HEAD holds it.
	Head []byte
	// Base is the base's; BaseThere is false where the base has none.
	Base      []byte
	BaseThere bool
	// LocalAction is the repository-relative directory of the action
	// that runs, where it is the repository's own (uses: ./…), "." for
	// its top; "" where it is not: a step is a vigiles step where its
	// uses names vigiles/action (any ref) or this directory.
	LocalAction string
	// Unread, where not "", says why the base's workflow could not be
	// read: one RulePolicyBase warning, nothing compared.
	Unread string
	// Removed is set where the change deletes the file, which the base
	// has (Head is then nil): a local run's, which reads every workflow
	// file, as the action reads only the one that runs. Each vigiles
	// step the base's held is named removed.
	Removed bool
	// NotCompared, where not "", says why the workflow was not compared
	// though the base was read (no GITHUB_WORKFLOW_REF, a workflow of
	// another repository): one RulePolicyBase notice.
	NotCompared string
	// Read, where not nil, reads a file of the repository (slash-
	// separated, relative to its top) as the base (base true) or the
	// change holds it, false where it has none: what a job calls (uses:
	// ./.github/workflows/x.yml, a reusable workflow of the same
	// commit) and what a step uses (uses: ./dir, a composite action's
	// action.yml) are read so, and where either holds a vigiles step, at
	// any depth, the call is compared (its with:, its if:) and so is
	// the file it calls, base against head, as the workflow is: GitHub
	// names only the caller in GITHUB_WORKFLOW_REF, and a composite
	// action runs vigiles from vigiles' own directory.
	Read func(base bool, path string) ([]byte, bool, error)
	// CalledApart is set where each workflow file is compared on its own
	// (a local run's): a reusable workflow a job calls is then not
	// compared again as the caller's, only the call.
	CalledApart bool
}

// maxCallDepth bounds how deep calls are followed: GitHub connects up
// to four levels of workflows, and nests composite actions ten deep.
const maxCallDepth = 10

// seer finds a side's (the base's or the head's) vigiles steps: steps
// whose uses names vigiles, and, where the workflow's files can be read
// (WorkflowBase.Read), steps of a composite action and jobs of a
// reusable workflow of the repository that hold one.
type seer struct {
	local string
	read  func(base bool, path string) ([]byte, bool, error)
	base  bool
	depth int
	st    *callState
}

// callState is what one comparison has read of the files called, shared
// by every seer of it: each file is read and parsed once a side.
type callState struct {
	wraps map[string]wrapped   // by side, kind, depth and path
	files map[string]calledDoc // parsed, a nil root where none
	seen  map[string]bool      // the pairs of files compared
	pairs int                  // those of them the base has a file of
	// log is each file of what the workflow compared now calls that
	// could not be read (Read's error: past the files the caller reads,
	// too large, a git failure), read as none, in order, a file's kept
	// with it from where its reading began; each workflow has its own,
	// as what is kept of a file read for another says again what it
	// could not read. Its first is the one the workflow's warning names
	// (since(0)).
	log []unreadFile
}

// unreadFile is a file of what is called that could not be read: which
// (its side and path) and Read's error.
type unreadFile struct{ what, err string }

// note says that u could not be read, in the workflow compared now.
func (st *callState) note(u unreadFile) { st.log = append(st.log, u) }

// since is the first file noted unread from mark (a length of log) on,
// nil where none was.
func (st *callState) since(mark int) *unreadFile {
	if len(st.log) > mark {
		u := st.log[mark]
		return &u
	}
	return nil
}

// wrapped is what wraps found of a file: whether it holds a vigiles
// step, and the first file unread on the way.
type wrapped struct {
	v      bool
	unread *unreadFile
}

// maxCalledDocs bounds the pairs of called files one comparison
// compares (each a reusable workflow or composite action, base's
// against head's): past it, one notice says the rest were not.
const maxCalledDocs = 64

func newCallState() *callState {
	return &callState{wraps: map[string]wrapped{}, files: map[string]calledDoc{}, seen: map[string]bool{}}
}

// calledDoc is a file called, parsed (nil where none), its path, and
// the first file that could not be read in reading it.
type calledDoc struct {
	root   *yaml.Node
	path   string
	unread *unreadFile
}

// seerOf is w's seer of one side, sharing st.
func (w *WorkflowBase) seerOf(base bool, st *callState) *seer {
	return &seer{local: w.LocalAction, read: w.Read, base: base, st: st}
}

// root is the parsed file p on s's side (an action's directory's
// action.yml or action.yaml where action), and its path; nil where
// there is none or it does not parse.
func (s *seer) root(p string, action bool) (*yaml.Node, string) {
	key := fmt.Sprint(s.base, action, "\x00", p)
	if f, ok := s.st.files[key]; ok {
		if f.unread != nil {
			s.st.note(*f.unread)
		}
		return f.root, f.path
	}
	s.st.files[key] = calledDoc{}
	mark := len(s.st.log)
	defer func() {
		if u := s.st.since(mark); u != nil {
			f := s.st.files[key]
			f.unread = u
			s.st.files[key] = f
		}
	}()
	var data []byte
	var ok bool
	shown := p
	if action {
		data, shown, ok = s.actionFile(p)
	} else {
		data, ok = s.file(p)
	}
	if !ok {
		return nil, ""
	}
	n, err := workflowRoot(data)
	if err != nil || n == nil {
		return nil, ""
	}
	s.st.files[key] = calledDoc{root: n, path: shown}
	return n, shown
}

// localPath is the repository path a uses: ./… names, "" where it is
// none (not ./…, a ref, or out of the repository).
func localPath(uses string) string {
	u := strings.TrimSpace(uses)
	if !strings.HasPrefix(u, "./") || strings.Contains(u, "@") {
		return ""
	}
	p := path.Clean(u)
	if p == ".." || strings.HasPrefix(p, "../") {
		return ""
	}
	return p
}

// file is the repository's file p on s's side.
func (s *seer) file(p string) ([]byte, bool) {
	if s == nil || s.read == nil {
		return nil, false
	}
	data, there, err := s.read(s.base, p)
	if err != nil && s.st != nil {
		side := "the change's"
		if s.base {
			side = "the base's"
		}
		s.st.note(unreadFile{side + " " + strconv.Quote(p), err.Error()})
	}
	if err != nil || !there {
		return nil, false
	}
	return data, true
}

// actionFile is the action.yml (or action.yaml) of the directory p,
// and its path.
func (s *seer) actionFile(p string) ([]byte, string, bool) {
	for _, name := range []string{"action.yml", "action.yaml"} {
		if data, ok := s.file(path.Join(p, name)); ok {
			return data, path.Join(p, name), true
		}
	}
	return nil, "", false
}

// deeper is s a call deeper, nil past maxCallDepth.
func (s *seer) deeper() *seer {
	if s == nil || s.read == nil || s.depth >= maxCallDepth {
		return nil
	}
	d := *s
	d.depth++
	return &d
}

// wraps says whether the repository's file at p, on s's side, holds a
// vigiles step at any depth within maxCallDepth of the workflow: a
// composite action's directory (action) or a reusable workflow. What
// is known is kept by the depth it was read at: a file met near the
// bound may hold vigiles only past it, where a call of it nearer the
// workflow sees its step. A call that comes back to a file is read a
// call deeper, to the bound.
func (s *seer) wraps(p string, action bool) bool {
	d := s.deeper()
	if d == nil || p == "" {
		return false
	}
	key := fmt.Sprint(s.base, action, s.depth, "\x00", p)
	if w, ok := s.st.wraps[key]; ok {
		if w.unread != nil {
			s.st.note(*w.unread)
		}
		return w.v
	}
	mark := len(s.st.log)
	v := false
	if root, _ := s.root(p, action); root != nil && (!action || isComposite(root)) {
		v = len(vigilesSteps(root, d)) > 0 || len(callJobs(root, d)) > 0
	}
	s.st.wraps[key] = wrapped{v, s.st.since(mark)}
	return v
}

// isComposite says whether the action file's root runs as a composite
// action: its steps run in the job, as a workflow's do.
func isComposite(root *yaml.Node) bool {
	runs, _ := wfValue(root, "runs")
	using, _ := wfValue(runs, "using")
	return strings.EqualFold(scalarText(using), "composite")
}

// stepKind says whether a step's uses is vigiles' (wrap ""), or a
// composite action of the repository that holds a vigiles step (wrap
// its directory); ok false where neither.
func (s *seer) stepKind(uses string) (wrap string, ok bool) {
	local := ""
	if s != nil {
		local = s.local
	}
	if usesVigiles(uses, local) {
		return "", true
	}
	p := localPath(uses)
	if p != "" && s.wraps(p, true) {
		return p, true
	}
	if p != "" && local == "" && s.isVigilesAction(p) {
		// vigiles itself, vendored or the repository's own, where no
		// GITHUB_ACTION_PATH says which action runs (a local run).
		return "", true
	}
	return "", false
}

// isVigilesAction says whether the repository's action at p, on s's
// side, is vigiles' own: its action.yml is named vigiles and takes
// vigiles' inputs (sandbox, fail-level, egress). Each side is read: a
// change that renames the head's leaves the base's step matched by none,
// which is named.
func (s *seer) isVigilesAction(p string) bool {
	if s == nil || s.read == nil {
		return false
	}
	root, _ := s.root(p, true)
	name, _ := wfValue(root, "name")
	inputs, _ := wfValue(root, "inputs")
	for _, in := range []string{"sandbox", "fail-level", "egress"} {
		if _, k := wfValue(inputs, in); k == nil {
			return false
		}
	}
	return strings.EqualFold(scalarText(name), "vigiles")
}

// workflowStep is a step of a workflow that uses vigiles.
type workflowStep struct {
	job      string
	jobKey   *yaml.Node // the job's key in jobs
	jobNode  *yaml.Node // the job's mapping
	step     *yaml.Node // the step's mapping
	id, name string
	nth      int // among the job's vigiles steps, from 1
	// wrap is the directory of the repository's composite action the
	// step uses, which holds a vigiles step; "" for vigiles' own.
	wrap string
}

// shown is how a finding names the step: by its id, else its name, else
// its place among the job's vigiles steps; names Go-quoted.
func (s *workflowStep) shown() string {
	switch {
	case s.id != "":
		return fmt.Sprintf("the vigiles step %q of the job %q", s.id, s.job)
	case s.name != "":
		return fmt.Sprintf("the vigiles step named %q of the job %q", s.name, s.job)
	}
	return fmt.Sprintf("vigiles step %d of the job %q", s.nth, s.job)
}

// deref is n, or what n is an alias of (GitHub reads YAML anchors).
func deref(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.AliasNode && i < 16; i++ {
		n = n.Alias
	}
	if n != nil && n.Kind == yaml.AliasNode {
		return nil
	}
	return n
}

// wfValue is the value of key in the mapping n, and its key, through
// aliases. The key is matched in any case: GitHub reads a step's with:
// in any case (Fail-Level: none is fail-level's input, as the runner's
// inputs are a dictionary that ignores case) and refuses a mapping that
// holds one key twice in two cases, so the first such key is the one.
func wfValue(n *yaml.Node, key string) (v, k *yaml.Node) {
	n = deref(n)
	if n == nil || n.Kind != yaml.MappingNode {
		return nil, nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if kn := deref(n.Content[i]); kn != nil && kn.Kind == yaml.ScalarNode && strings.EqualFold(kn.Value, key) {
			return deref(n.Content[i+1]), n.Content[i]
		}
	}
	return nil, nil
}

// scalarText is a scalar's text as written (an expression is compared
// as text, never evaluated); "" for none, and a non-scalar's YAML.
func scalarText(n *yaml.Node) string {
	n = deref(n)
	switch {
	case n == nil:
		return ""
	case n.Kind == yaml.ScalarNode:
		return strings.TrimSpace(n.Value)
	}
	b, err := yaml.Marshal(n)
	if err != nil {
		return "?"
	}
	return strings.TrimSpace(string(b))
}

// usesVigiles says whether a step's uses names vigiles: vigiles/action
// at any ref, or the repository's own action at local.
func usesVigiles(uses, local string) bool {
	u := strings.TrimSpace(uses)
	if u == "." || strings.HasPrefix(u, "./") {
		return local != "" && path.Clean(u) == path.Clean(local)
	}
	name, _, ok := strings.Cut(u, "@")
	return ok && strings.EqualFold(name, "vigiles/action")
}

// workflowRoot is a workflow file's top mapping; nil where it is none.
// A byte that is not UTF-8 (a comment's é in Latin-1) is read as U+FFFD,
// as the runner decodes the file, where YAML refuses the whole file: the
// workflow runs all the same, and its steps are compared.
func workflowRoot(data []byte) (*yaml.Node, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(strings.ToValidUTF8(string(data), "\uFFFD")), &doc); err != nil {
		return nil, err
	}
	if len(doc.Content) == 0 {
		return nil, nil
	}
	root := deref(doc.Content[0])
	if root == nil || root.Kind != yaml.MappingNode {
		return nil, nil
	}
	return root, nil
}

// mayHoldVigilesStep says whether w's file, on either side, holds a
// vigiles step or a call of a file that holds one, or calls a file that
// could not be read (Read's error), which may hold one: compared, the
// workflow names what was not read, where a file of neither is not
// compared at all.
func (w *WorkflowBase) mayHoldVigilesStep() bool {
	st := newCallState()
	return w.holdsVigilesStep(true, st) || w.holdsVigilesStep(false, st) || len(st.log) > 0
}

// holdsVigilesStep says whether w's file on one side (nil: none)
// parses and holds a step that uses vigiles, or a call of a file that
// holds one, reading what it calls into st.
func (w *WorkflowBase) holdsVigilesStep(base bool, st *callState) bool {
	data := w.Head
	if base {
		data = w.Base
	}
	if data == nil {
		return false
	}
	root, err := workflowRoot(data)
	s := w.seerOf(base, st)
	return err == nil && root != nil && (len(vigilesSteps(root, s)) > 0 || len(callJobs(root, s)) > 0)
}

// vigilesSteps are the steps of the workflow root that use vigiles, in
// the file's order, or a composite action of the repository that does
// (wrap). A composite action's own file (runs.steps) is read as one job,
// "runs".
func vigilesSteps(root *yaml.Node, s *seer) []*workflowStep {
	var out []*workflowStep
	add := func(key, job *yaml.Node) {
		steps, _ := wfValue(job, "steps")
		if steps == nil || steps.Kind != yaml.SequenceNode {
			return
		}
		nth := 0
		for _, st := range steps.Content {
			st = deref(st)
			uses, _ := wfValue(st, "uses")
			if st == nil || st.Kind != yaml.MappingNode {
				continue
			}
			wrap, ok := s.stepKind(scalarText(uses))
			if !ok {
				continue
			}
			nth++
			id, _ := wfValue(st, "id")
			name, _ := wfValue(st, "name")
			out = append(out, &workflowStep{job: key.Value, jobKey: key, jobNode: job, step: st, id: scalarText(id), name: scalarText(name), nth: nth, wrap: wrap})
		}
	}
	if runs, k := wfValue(root, "runs"); runs != nil && isComposite(root) {
		add(&yaml.Node{Kind: yaml.ScalarNode, Value: "runs", Line: k.Line, Column: k.Column}, runs)
		return out
	}
	jobs, _ := wfValue(root, "jobs")
	if jobs == nil || jobs.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(jobs.Content); i += 2 {
		add(jobs.Content[i], deref(jobs.Content[i+1]))
	}
	return out
}

// workflowCall is a job that calls a reusable workflow of the
// repository (uses: ./.github/workflows/x.yml) that holds a vigiles
// step.
type workflowCall struct {
	job     string
	jobKey  *yaml.Node
	jobNode *yaml.Node
	path    string
}

// callJobs are the jobs of the workflow root that call a reusable
// workflow of the repository holding a vigiles step, on s's side.
func callJobs(root *yaml.Node, s *seer) []*workflowCall {
	jobs, _ := wfValue(root, "jobs")
	if jobs == nil || jobs.Kind != yaml.MappingNode {
		return nil
	}
	var out []*workflowCall
	for i := 0; i+1 < len(jobs.Content); i += 2 {
		job := deref(jobs.Content[i+1])
		uses, _ := wfValue(job, "uses")
		if p := localPath(scalarText(uses)); p != "" && s.wraps(p, false) {
			out = append(out, &workflowCall{job: jobs.Content[i].Value, jobKey: jobs.Content[i], jobNode: job, path: p})
		}
	}
	return out
}

// matchSteps pairs each head step with a base step of the same job: by
// id, else by name, else by its place among the job's vigiles steps not
// paired so. A head step paired with none is nil in the result's base;
// gone are the base's steps paired with none.
func matchSteps(base, head []*workflowStep) (pairs [][2]*workflowStep, gone []*workflowStep) {
	used := map[*workflowStep]bool{}
	pair := map[*workflowStep]*workflowStep{}
	for _, key := range []func(*workflowStep) string{
		func(s *workflowStep) string { return s.id },
		func(s *workflowStep) string { return s.name },
	} {
		for _, h := range head {
			if pair[h] != nil || key(h) == "" {
				continue
			}
			for _, b := range base {
				if !used[b] && b.job == h.job && key(b) == key(h) {
					pair[h], used[b] = b, true
					break
				}
			}
		}
	}
	// Then in order, within each job, among those left.
	for _, h := range head {
		if pair[h] != nil {
			continue
		}
		for _, b := range base {
			if !used[b] && b.job == h.job && (b.id == "" || h.id == "") {
				pair[h], used[b] = b, true
				break
			}
		}
	}
	for _, h := range head {
		pairs = append(pairs, [2]*workflowStep{pair[h], h})
	}
	for _, b := range base {
		if !used[b] {
			gone = append(gone, b)
		}
	}
	return pairs, gone
}

// Each input's ranks, weakest first; "" is the input left empty.
var (
	sandboxRanks   = []string{"off", "auto", "", "strict"}
	egressRanks    = []string{"allow", "record", "", "deny"}
	failLevelRanks = []string{"none", "error", "warning", "notice"}
)

// listInput is an input of entries, one per line or comma-separated, as
// the action reads paths, allow and reports.
func listInput(s string) []string {
	var out []string
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return r == '\n' || r == ',' }) {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// compareWorkflow names what the head's workflow weakens of the base's
// vigiles steps, each a RulePolicyWeakened warning at its line of the
// head's file (or of the file it calls that holds the change); a base
// not read, a workflow not compared, and a file it calls not read or
// past the bounds are each a RulePolicyBase finding that says so.
func compareWorkflow(w *WorkflowBase, baseName string) []report.Finding {
	return compareDoc(w, baseName, newCallState(), 0)
}

// compareDoc is compareWorkflow of a workflow, or of a file it calls
// (a reusable workflow, a composite action's action.yml) depth calls
// down; st holds what was read, and the pairs of files compared, each
// once.
func compareDoc(w *WorkflowBase, baseName string, st *callState, depth int) []report.Finding {
	if depth == 0 {
		// Each workflow says what it calls that was not read, though
		// another workflow compared before it called the file too.
		st.log = nil
	}
	file := report.Location{File: w.File}
	bs, hs := w.seerOf(true, st), w.seerOf(false, st)
	bs.depth, hs.depth = depth, depth
	switch {
	case w.Unread != "":
		return []report.Finding{{Rule: RulePolicyBase, Severity: report.SeverityWarning, Location: file, Title: "base not compared",
			Message: fmt.Sprintf("the workflow %s of %s could not be read, so what this change does to its vigiles steps was not compared with it: %s", shownName(w.Shown), baseName, w.Unread)}}
	case w.NotCompared != "":
		return []report.Finding{{Rule: RulePolicyBase, Severity: report.SeverityNotice, Location: file, Title: "workflow not compared",
			Message: fmt.Sprintf("the workflow this step runs in was not compared with %s's, so what this change does to its vigiles steps is named nowhere: %s", baseName, w.NotCompared)}}
	}
	notCompared := func(sev report.Severity, format string, a ...any) []report.Finding {
		return []report.Finding{{Rule: RulePolicyBase, Severity: sev, Location: file, Title: "workflow not compared", Message: fmt.Sprintf(format, a...)}}
	}
	if w.Removed {
		root, err := workflowRoot(w.Base)
		if err != nil || root == nil {
			return notCompared(report.SeverityWarning, "this change removes the workflow %s, whose copy in %s does not parse, so what its vigiles steps checked is not known", shownName(w.Shown), baseName)
		}
		base := vigilesSteps(root, bs)
		if len(base) == 0 {
			return nil
		}
		steps := make([]string, 0, min(len(base), 10))
		for _, b := range base[:min(len(base), 10)] {
			steps = append(steps, b.shown())
		}
		if len(base) > len(steps) {
			steps = append(steps, fmt.Sprintf("%d more", len(base)-len(steps)))
		}
		return []report.Finding{{Rule: RulePolicyWeakened, Severity: report.SeverityWarning, Location: file, Title: "workflow weakened by this change",
			Message: fmt.Sprintf("against %s, this change removes the workflow %s and its %d vigiles step(s) (%s): the checks they ran do not run; review it as part of the change", baseName, shownName(w.Shown), len(base), cutBytes(strings.Join(steps, "; "), maxWorkflowChange))}}
	}
	head, err := workflowRoot(w.Head)
	if err != nil || head == nil {
		// It runs, so GitHub read it: where the base has the file, what
		// it does to the base's steps is unknown, not nothing.
		sev := report.SeverityNotice
		if w.BaseThere {
			sev = report.SeverityWarning
		}
		return notCompared(sev, "the workflow %s does not parse as a mapping of YAML here, though it runs, so its vigiles steps were not compared with %s's", shownName(w.Shown), baseName)
	}
	heads := vigilesSteps(head, hs)
	headCalls := callJobs(head, hs)
	if !w.BaseThere {
		// The base ran no step of this file: each is new, and checks
		// more than none (a workflow renamed is another file, whose
		// base's steps this run does not read).
		return notCompared(report.SeverityNotice, "%s has no workflow %s, so its %d vigiles step(s) are new, compared with none: a workflow renamed or moved is compared with nothing of its former file", baseName, shownName(w.Shown), len(heads))
	}
	root, err := workflowRoot(w.Base)
	if err != nil || root == nil {
		return notCompared(report.SeverityWarning, "the workflow %s of %s does not parse, so this change's vigiles steps were not compared with it", shownName(w.Shown), baseName)
	}
	base := vigilesSteps(root, bs)
	if len(base) > maxWorkflowSteps || len(heads) > maxWorkflowSteps {
		// Where the change takes the file past the bound, it may hide a
		// weakening among them: a warning.
		sev := report.SeverityWarning
		if len(base) > maxWorkflowSteps {
			sev = report.SeverityNotice
		}
		return notCompared(sev, "the workflow %s holds more than %d vigiles steps, which vigiles does not compare with %s's", shownName(w.Shown), maxWorkflowSteps, baseName)
	}
	at := func(n *yaml.Node) report.Location {
		l := file
		if n != nil {
			l.Line, l.Column = n.Line, n.Column
		}
		return l
	}
	var ch []policyChange
	pairs, gone := matchSteps(base, heads)
	jobs, jobsKey := wfValue(head, "jobs")
	for _, b := range gone {
		// At the head's job of that id, else at jobs.
		where := jobsKey
		if _, k := wfValue(jobs, b.job); k != nil {
			where = k
		}
		ch = append(ch, policyChange{at(where), b.shown() + " is removed, or changed past matching (its id, name and place among the job's vigiles steps): the check it ran does not run as it did"})
	}
	jobsDone := map[string]bool{}
	for _, p := range pairs {
		if p[0] == nil {
			continue // a step the base had not checks more than none
		}
		if p[1].wrap != "" || p[0].wrap != "" {
			ch = append(ch, compareWrapStep(p[0], p[1], at)...)
		} else {
			ch = append(ch, compareVigilesStep(p[0], p[1], at)...)
		}
		if !jobsDone[p[1].job] {
			jobsDone[p[1].job] = true
			ch = append(ch, compareWhen(p[0].jobNode, p[1].jobNode, fmt.Sprintf("the job %q", p[1].job), at)...)
			ch = append(ch, compareJob(p[0], p[1], bs, hs, at)...)
		}
	}
	// A call of a reusable workflow of the repository is a job of its
	// own: matched by its id, its if:, needs:, strategy:, with: and uses
	// compared; one the head has not is removed.
	baseCalls := callJobs(root, bs)
	for _, b := range baseCalls {
		var h *workflowCall
		for _, c := range headCalls {
			if c.job == b.job {
				h = c
			}
		}
		if h == nil {
			where := jobsKey
			if _, k := wfValue(jobs, b.job); k != nil {
				where = k
			}
			ch = append(ch, policyChange{at(where), fmt.Sprintf("the job %q, which called %s and its vigiles steps, is removed or calls no such workflow: the check it ran does not run as it did", b.job, strconv.Quote(b.path))})
			continue
		}
		jobsDone[h.job] = true
		ch = append(ch, compareCall(b, h, at)...)
	}
	// A called file's inputs' defaults (a reusable workflow's, a
	// composite action's) reach its vigiles steps through
	// ${{ inputs.x }}, whose text is unchanged.
	ch = append(ch, compareDefaults(root, head, at)...)
	if len(jobsDone) > 0 {
		// The workflow's env reaches every job's steps, and its defaults
		// choose the shell of each run: step before vigiles.
		ch = append(ch, compareEnv(root, head, "the workflow", at)...)
		ch = append(ch, compareNeeded(root, head, jobsDone, at)...)
		ch = append(ch, compareNeededOutputs(root, head, jobsDone, at)...)
		bd, _ := wfValue(root, "defaults")
		if hd, hk := wfValue(head, "defaults"); hk != nil && scalarText(hd) != scalarText(bd) {
			ch = append(ch, policyChange{at(hk), fmt.Sprintf("the workflow has defaults: %q, where it was %q: the run: steps before vigiles run in the shell and directory it sets", scalarText(hd), scalarText(bd))})
		}
	}
	finds := make([]report.Finding, 0, len(ch)+1)
	for _, c := range ch {
		finds = append(finds, report.Finding{Rule: RulePolicyWeakened, Severity: report.SeverityWarning, Location: c.at,
			Title: "workflow weakened by this change", Message: fmt.Sprintf("against %s, %s: the workflow runs as this change has it, so a check that passes here may pass only for that; review it as part of the change", baseName, textcut.Middle(c.what, maxWorkflowChange))})
	}
	if len(heads) == 0 && len(headCalls) == 0 && depth == 0 {
		// The step runs, but not as a step of this file vigiles knows: a
		// reusable workflow's of another repository, an action of another
		// name.
		finds = append(finds, notCompared(report.SeverityNotice, "the workflow %s names no step that uses vigiles (vigiles/action, this repository's own action, or a composite action or reusable workflow of this repository that does), so no step of it was compared with %s's: a reusable workflow or composite action of another repository, or an action of another name, is not compared", shownName(w.Shown), baseName)...)
	}
	// Then the files called, base's against head's, each pair once.
	// Named as the workflow is: relative to the same directory.
	top := topFrom(w.File, w.Shown)
	child := func(basePath, headPath string, action bool) {
		key := fmt.Sprint(action, "\x00", basePath, "\x00", headPath)
		if st.seen[key] || depth >= maxCallDepth {
			return
		}
		// Only pairs of which the base has a file count: one the change
		// adds is compared with nothing, and what it reads is bounded by
		// Read; counted, a change's new files would push the base's past
		// the bound.
		if basePath != "" && st.pairs >= maxCalledDocs {
			if !st.seen["\x00over"] {
				st.seen["\x00over"] = true
				finds = append(finds, notCompared(report.SeverityNotice, "the workflow %s calls more than %d reusable workflows and composite actions of this repository with vigiles steps: those past them were not compared with %s's", shownName(w.Shown), maxCalledDocs, baseName)...)
			}
			return
		}
		st.seen[key] = true
		if basePath != "" {
			st.pairs++
		}
		c := &WorkflowBase{LocalAction: w.LocalAction, Read: w.Read, CalledApart: w.CalledApart}
		var ok bool
		if action {
			c.Head, c.Shown, ok = hs.actionFile(headPath)
			if basePath != "" {
				c.Base, _, c.BaseThere = bs.actionFile(basePath)
			}
		} else {
			c.Shown = headPath
			c.Head, ok = hs.file(headPath)
			c.Base, c.BaseThere = bs.file(basePath)
		}
		if !ok {
			return // the head has none: the job does not run
		}
		c.File = path.Join(top, c.Shown)
		finds = append(finds, compareDoc(c, baseName, st, depth+1)...)
	}
	for _, p := range pairs {
		if p[1].wrap != "" {
			bp := ""
			if p[0] != nil {
				bp = p[0].wrap
			}
			child(bp, p[1].wrap, true)
		}
	}
	if !w.CalledApart {
		for _, h := range headCalls {
			bp := ""
			for _, b := range baseCalls {
				if b.job == h.job {
					bp = b.path
				}
			}
			child(bp, h.path, false)
		}
	}
	if u := st.since(0); depth == 0 && u != nil {
		// A file read as none may hold the vigiles step a check runs,
		// on either side: what the comparison says of it is not known.
		finds = append(finds, notCompared(report.SeverityWarning, "the workflow %s calls files of this repository not all of which were read: %s could not be (%s) and is read as none, as others past it may be, so a vigiles step such a file holds was not compared with %s's", shownName(w.Shown), u.what, cutBytes(u.err, 400), baseName)...)
	}
	return finds
}

// topFrom is the repository's top as a path relative to the directory
// file is named from, where file names the repository's file shown
// (slash-separated, relative to the top): file's directory and a ".."
// for each of shown's. Where file does not end in shown (the directory
// is .github/workflows or .github: file is v.yml or workflows/v.yml),
// cutting shown off file would leave a name, not a directory.
func topFrom(file, shown string) string {
	return path.Join(path.Dir(file), strings.Repeat("../", strings.Count(path.Clean(shown), "/")))
}

// compareWrapStep names what a step that calls vigiles through a
// composite action of the repository (h, or b, the base's) checks less
// than b: another uses, an if:, continue-on-error, an env:, and each
// with: entry changed as text: the inputs reach vigiles' through
// expressions not evaluated here.
func compareWrapStep(b, h *workflowStep, at func(*yaml.Node) report.Location) []policyChange {
	var ch []policyChange
	bu, _ := wfValue(b.step, "uses")
	hu, hk := wfValue(h.step, "uses")
	if !strings.EqualFold(scalarText(bu), scalarText(hu)) {
		ch = append(ch, policyChange{at(hk), fmt.Sprintf("%s uses %q, where it used %q: another action runs the check", h.shown(), scalarText(hu), scalarText(bu))})
	}
	ch = append(ch, compareWhen(b.step, h.step, h.shown(), at)...)
	ch = append(ch, compareEnv(b.step, h.step, h.shown(), at)...)
	ch = append(ch, compareWith(b.step, h.step, h.shown()+", which runs vigiles through the composite action "+strconv.Quote(h.wrap)+",", at)...)
	return ch
}

// compareCall names what a job that calls a reusable workflow of the
// repository holding a vigiles step (h; b the base's) does less than
// b's: another workflow called, an if:, needs: or strategy: it had not
// or another (a strategy: removed: strategyGone), each with: entry
// changed as text (an input reaches the called workflow's vigiles steps
// through ${{ inputs.x }}), and the secrets: it passes changed as text.
func compareCall(b, h *workflowCall, at func(*yaml.Node) report.Location) []policyChange {
	what := fmt.Sprintf("the job %q, which calls %s,", h.job, strconv.Quote(h.path))
	var ch []policyChange
	if b.path != h.path {
		_, k := wfValue(h.jobNode, "uses")
		ch = append(ch, policyChange{at(k), fmt.Sprintf("%s called %s: the check runs as the file it calls now has it, compared below with the one it called", what, strconv.Quote(b.path))})
	}
	ch = append(ch, compareWhen(b.jobNode, h.jobNode, what, at)...)
	for _, key := range []struct{ name, why string }{
		{"needs", "a job it needs that fails or is skipped skips this one, and a skipped job's check reads as passed"},
		{"strategy", "a matrix sets what its inputs' expressions read"},
	} {
		bv, _ := wfValue(b.jobNode, key.name)
		hv, hk := wfValue(h.jobNode, key.name)
		if hk != nil && scalarText(hv) != scalarText(bv) {
			ch = append(ch, policyChange{at(hk), fmt.Sprintf("%s has %s: %q, where it was %q: %s", what, key.name, scalarText(hv), scalarText(bv), key.why)})
		}
	}
	ch = append(ch, strategyGone(b.jobNode, h.jobNode, h.jobKey, what, at)...)
	ch = append(ch, compareWith(b.jobNode, h.jobNode, what, at)...)
	// The secrets it passes reach the called workflow's steps as
	// ${{ secrets.x }}, as its inputs do as ${{ inputs.x }}: a
	// vigiles input or an env: may read one (an empty github-token
	// posts no check run).
	bsec, _ := wfValue(b.jobNode, "secrets")
	hsec, hk := wfValue(h.jobNode, "secrets")
	if stepText(bsec) != stepText(hsec) {
		if hk == nil {
			hk = h.jobKey
		}
		ch = append(ch, policyChange{at(hk), fmt.Sprintf("%s has secrets: %q, where it was %q (compared as text, not evaluated): the called workflow's ${{ secrets.x }} may read another secret, or none, where it reaches the vigiles step", what, cutBytes(scalarText(hsec), 1000), cutBytes(scalarText(bsec), 1000))})
	}
	return ch
}

// strategyGone names the strategy: the job b had that h, whose key is
// hKey, has not: each ${{ matrix.x }} of its steps and inputs then reads
// empty, its text unchanged (sandbox: "" is weaker than strict).
func strategyGone(b, h, hKey *yaml.Node, what string, at func(*yaml.Node) report.Location) []policyChange {
	bv, bk := wfValue(b, "strategy")
	if _, hk := wfValue(h, "strategy"); bk == nil || hk != nil {
		return nil
	}
	return []policyChange{{at(hKey), fmt.Sprintf("%s has no strategy:, where it was %q: each ${{ matrix.x }} it reads is now empty", what, scalarText(bv))}}
}

// maxNeeded bounds the jobs walkNeeded follows through needs:.
const maxNeeded = 1000

// walkNeeded calls visit with each job name that a job of done (one that
// holds or calls a vigiles step) needs in hjobs, itself or through
// another job, once, and by, the job that needs it first; where
// throughReads, only through jobs that read the needs context
// (readsNeeds), which holds the jobs a job needs itself.
func walkNeeded(hjobs *yaml.Node, done map[string]bool, throughReads bool, visit func(by, name string)) {
	queue := slices.Sorted(maps.Keys(done))
	seen := map[string]bool{}
	for len(queue) > 0 && len(seen) < maxNeeded {
		by := queue[0]
		queue = queue[1:]
		job, _ := wfValue(hjobs, by)
		if throughReads && !readsNeeds(job) {
			continue
		}
		for _, name := range neededJobs(job) {
			if seen[name] || done[name] {
				continue
			}
			seen[name] = true
			queue = append(queue, name)
			visit(by, name)
		}
	}
}

// compareNeeded names each job that a job of done needs in h, itself or
// through another job (walkNeeded), whose if: is not as the base's job
// of that id had it: a job skipped skips each job that needs it (one
// without an if: of its own that says always()), and a skipped job's
// check reads as passed.
func compareNeeded(b, h *yaml.Node, done map[string]bool, at func(*yaml.Node) report.Location) []policyChange {
	bjobs, _ := wfValue(b, "jobs")
	hjobs, _ := wfValue(h, "jobs")
	var ch []policyChange
	walkNeeded(hjobs, done, false, func(by, name string) {
		hj, _ := wfValue(hjobs, name)
		bj, _ := wfValue(bjobs, name)
		bif, _ := wfValue(bj, "if")
		hif, hk := wfValue(hj, "if")
		if hk != nil && scalarText(hif) != scalarText(bif) {
			was := "it had none"
			if bif != nil {
				was = fmt.Sprintf("it was %q", scalarText(bif))
			}
			ch = append(ch, policyChange{at(hk), fmt.Sprintf("the job %q, which the job %q needs, runs if: %q (not evaluated here), where %s: skipped, it skips the jobs that need it, and a skipped job's check reads as passed", name, by, scalarText(hif), was)})
		}
	})
	return ch
}

// neededJobs is the ids a job's needs: lists, one or a sequence of them.
func neededJobs(job *yaml.Node) []string {
	n, _ := wfValue(job, "needs")
	switch {
	case n == nil:
		return nil
	case n.Kind == yaml.SequenceNode:
		out := make([]string, 0, len(n.Content))
		for _, e := range n.Content {
			out = append(out, scalarText(e))
		}
		return out
	}
	return []string{scalarText(n)}
}

// compareNeededOutputs names each job that a job of done (one that
// holds or calls a vigiles step) needs and reads through the needs
// context (${{ needs.x.outputs.y }}, needs.x.result, toJSON(needs): the
// word needs anywhere in its text but its needs:, readsNeeds) where h's job of that id is
// not as b's was, as written (layout and comments aside): its outputs:
// are set by its steps, which this change may make say what skips the
// check or weakens an input whose text is unchanged. The needs context
// holds the jobs a job needs itself, not those they need: a needed job
// read so is followed where it reads the needs context in turn (an
// output ${{ needs.w.outputs.run }} it passes on: walkNeeded).
func compareNeededOutputs(b, h *yaml.Node, done map[string]bool, at func(*yaml.Node) report.Location) []policyChange {
	bjobs, _ := wfValue(b, "jobs")
	hjobs, _ := wfValue(h, "jobs")
	var ch []policyChange
	walkNeeded(hjobs, done, true, func(by, name string) {
		hj, hk := wfValue(hjobs, name)
		if hk == nil {
			return // no such job: GitHub refuses the workflow
		}
		bj, bk := wfValue(bjobs, name)
		if bk != nil && stepText(bj) == stepText(hj) {
			return
		}
		was := "the base's job of that id was"
		if bk == nil {
			was = "the base had no job of that id"
		}
		ch = append(ch, policyChange{at(hk), fmt.Sprintf("the job %q, which the job %q needs and whose outputs or result it reads (the needs context), is not as %s (compared as written, its outputs not evaluated): its steps set its outputs, which may skip the check or set an input whose text is unchanged", name, by, was)})
	})
	return ch
}

// readsNeeds says whether a job reads the needs context anywhere but
// its own needs: list: a word needs in any of its text.
func readsNeeds(job *yaml.Node) bool {
	job = deref(job)
	if job == nil || job.Kind != yaml.MappingNode {
		return false
	}
	// Each node once: an alias of a large node, many times over, is
	// read once.
	seen := map[*yaml.Node]bool{}
	var walk func(n *yaml.Node, depth int) bool
	walk = func(n *yaml.Node, depth int) bool {
		n = deref(n)
		if n == nil || depth > 64 || seen[n] {
			return false
		}
		seen[n] = true
		if n.Kind == yaml.ScalarNode {
			return needsWord().MatchString(n.Value)
		}
		for _, c := range n.Content {
			if walk(c, depth+1) {
				return true
			}
		}
		return false
	}
	for i := 0; i+1 < len(job.Content); i += 2 {
		if k := deref(job.Content[i]); k != nil && strings.EqualFold(k.Value, "needs") {
			continue
		}
		if walk(job.Content[i], 0) || walk(job.Content[i+1], 0) {
			return true
		}
	}
	return false
}

// needsWord matches the needs context's name in an expression's text.
var needsWord = lazyRE(`(?i)\bneeds\b`)

// compareWith names each with: entry of h (a step or a calling job)
// that b had not so, and each b had that h has not, compared as text:
// a wrapper's inputs reach vigiles' through expressions.
func compareWith(b, h *yaml.Node, what string, at func(*yaml.Node) report.Location) []policyChange {
	bw, _ := wfValue(b, "with")
	hw, hk := wfValue(h, "with")
	if hk == nil {
		_, hk = wfValue(h, "uses")
	}
	if (hw != nil && hw.Kind != yaml.MappingNode) || (bw != nil && bw.Kind != yaml.MappingNode) {
		if scalarText(hw) != scalarText(bw) {
			return []policyChange{{at(hk), fmt.Sprintf("%s has with: %q, where it was %q (compared as text, not evaluated): it may set any input", what, scalarText(hw), scalarText(bw))}}
		}
		return nil
	}
	var ch []policyChange
	if hw != nil {
		for i := 0; i+1 < len(hw.Content); i += 2 {
			k, v := scalarText(hw.Content[i]), scalarText(hw.Content[i+1])
			bv, bk := wfValue(bw, k)
			if bk != nil && scalarText(bv) == v {
				continue
			}
			was := "it was not set"
			if bk != nil {
				was = fmt.Sprintf("it was %q", scalarText(bv))
			}
			ch = append(ch, policyChange{at(hw.Content[i]), fmt.Sprintf("%s has the input %s: %q, where %s%s: it reaches the vigiles step it runs", what, strconv.Quote(k), cutBytes(v, 1000), was, exprNote(v))})
		}
	}
	if bw != nil {
		for i := 0; i+1 < len(bw.Content); i += 2 {
			k := scalarText(bw.Content[i])
			if _, hk2 := wfValue(hw, k); hk2 == nil {
				ch = append(ch, policyChange{at(hk), fmt.Sprintf("%s has no input %s, where it was %q: its default reaches the vigiles step it runs", what, strconv.Quote(k), cutBytes(scalarText(bw.Content[i+1]), 1000))})
			}
		}
	}
	return ch
}

// compareDefaults names each input of a called file (a reusable
// workflow's on.workflow_call.inputs, a composite action's inputs)
// whose default h has not as b had it, and each input with a default
// that h has not at all: a caller that leaves it unset then passes "".
func compareDefaults(b, h *yaml.Node, at func(*yaml.Node) report.Location) []policyChange {
	// inputs is the file's inputs, and the key nearest them it has.
	inputs := func(root *yaml.Node) (in, key *yaml.Node) {
		if isComposite(root) {
			return wfValue(root, "inputs")
		}
		on, onKey := wfValue(root, "on")
		call, callKey := wfValue(on, "workflow_call")
		in, key = wfValue(call, "inputs")
		for _, k := range []*yaml.Node{callKey, onKey} {
			if key == nil {
				key = k
			}
		}
		return in, key
	}
	bin, _ := inputs(b)
	hin, hinKey := inputs(h)
	var ch []policyChange
	if hin != nil && hin.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(hin.Content); i += 2 {
			name := scalarText(hin.Content[i])
			bi, _ := wfValue(bin, name)
			bd, _ := wfValue(bi, "default")
			hd, hk := wfValue(hin.Content[i+1], "default")
			if scalarText(hd) == scalarText(bd) {
				continue
			}
			if hk == nil {
				hk = hin.Content[i]
			}
			ch = append(ch, policyChange{at(hk), fmt.Sprintf("the input %s has default: %q, where it was %q%s: it reaches the vigiles step where a caller leaves it unset", strconv.Quote(name), cutBytes(scalarText(hd), 1000), cutBytes(scalarText(bd), 1000), exprNote(scalarText(hd)))})
		}
	}
	if bin != nil && bin.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(bin.Content); i += 2 {
			name := scalarText(bin.Content[i])
			bd, _ := wfValue(bin.Content[i+1], "default")
			if _, hk := wfValue(hin, name); hk != nil || scalarText(bd) == "" {
				continue
			}
			ch = append(ch, policyChange{at(hinKey), fmt.Sprintf("the input %s, whose default was %q, is removed: where a caller leaves it unset, ${{ inputs.%s }} is now empty where it was that default", strconv.Quote(name), cutBytes(scalarText(bd), 1000), cutBytes(name, 200))})
		}
	}
	return ch
}

// compareWhen names where the step or job h may run less, or fail less,
// than b: an if: it had not or another (not evaluated: compared as
// text), continue-on-error set.
func compareWhen(b, h *yaml.Node, what string, at func(*yaml.Node) report.Location) []policyChange {
	var ch []policyChange
	bif, _ := wfValue(b, "if")
	hif, hk := wfValue(h, "if")
	if hk != nil && scalarText(hif) != scalarText(bif) {
		was := "it had none"
		if bif != nil {
			was = fmt.Sprintf("it was %q", scalarText(bif))
		}
		ch = append(ch, policyChange{at(hk), fmt.Sprintf("%s runs if: %q (not evaluated here), where %s: it may be skipped where the base's ran", what, scalarText(hif), was)})
	}
	bce, _ := wfValue(b, "continue-on-error")
	hce, hk := wfValue(h, "continue-on-error")
	if hv := strings.ToLower(scalarText(hce)); hk != nil && hv != "false" && hv != strings.ToLower(scalarText(bce)) {
		ch = append(ch, policyChange{at(hk), fmt.Sprintf("%s has continue-on-error: %q, where it was %q: a failing check then fails nothing", what, scalarText(hce), orText(scalarText(bce), "false"))})
	}
	return ch
}

// compareEnv names each variable the env: of n (the workflow, the job
// or the step) sets in h that b did not set so: it reaches the vigiles
// step's own process, where PATH chooses the docker and git it runs,
// BASH_ENV runs a file in its shell before its script, LD_PRELOAD loads
// a library into each of its programs, and an INPUT_ variable (INPUT_FAIL-LEVEL)
// is read as an input where runtime: host runs vigiles with the step's
// whole environment. An env: that is an expression is compared as text.
func compareEnv(b, h *yaml.Node, what string, at func(*yaml.Node) report.Location) []policyChange {
	benv, _ := wfValue(b, "env")
	henv, hk := wfValue(h, "env")
	if henv == nil {
		return nil
	}
	why := "it reaches the vigiles step's own programs (PATH chooses the docker and git it runs, BASH_ENV runs a file in its shell, an INPUT_ variable may be read as its input)"
	if henv.Kind != yaml.MappingNode {
		if scalarText(henv) != scalarText(benv) {
			return []policyChange{{at(hk), fmt.Sprintf("%s has env: %q, where it was %q (an expression, compared as text, not evaluated): %s", what, scalarText(henv), scalarText(benv), why)}}
		}
		return nil
	}
	var ch []policyChange
	for i := 0; i+1 < len(henv.Content); i += 2 {
		name, value := scalarText(henv.Content[i]), scalarText(henv.Content[i+1])
		was := "it had none"
		if benv != nil && benv.Kind == yaml.MappingNode {
			// Variables' names are matched exactly: the runner on Linux
			// sets PATH and Path apart.
			for j := 0; j+1 < len(benv.Content); j += 2 {
				if scalarText(benv.Content[j]) == name {
					if scalarText(benv.Content[j+1]) == value {
						was = ""
					} else {
						was = fmt.Sprintf("it was %q", scalarText(benv.Content[j+1]))
					}
					break
				}
			}
		}
		if was != "" {
			ch = append(ch, policyChange{at(henv.Content[i]), fmt.Sprintf("%s sets %s=%q in its env, where %s%s: %s", what, strconv.Quote(name), value, was, exprNote(value), why)})
		}
	}
	return ch
}

// stepText is a step as GitHub reads it, comments and layout aside, for
// finding it among the base's.
func stepText(n *yaml.Node) string {
	if n == nil {
		return "null" // absent reads as a key left empty
	}
	var v any
	if err := n.Decode(&v); err == nil {
		if b, err := json.Marshal(v); err == nil {
			return string(b)
		}
	}
	return scalarText(n)
}

// compareJob names what the job of the vigiles step h does to it that
// the base's job b did not: a needs: it had not, or another (a job it
// needs that fails or is skipped skips it, and a skipped job's check
// reads as passed), a container: it had not or another (whose docker,
// git and shell the step runs), defaults: (the shell of its run: steps,
// a custom one among them), strategy: (what ${{ matrix.x }} reads), its env:, and each step before the
// job's last vigiles step that the base's job had not before its own,
// as written: such a step runs the change's code ahead of the check, and
// may rewrite all that vigiles reads (the work tree, the policy file,
// git's objects and refs, the event file, GITHUB_ENV and GITHUB_PATH).
func compareJob(b, h *workflowStep, bs, hs *seer, at func(*yaml.Node) report.Location) []policyChange {
	what := fmt.Sprintf("the job %q", h.job)
	var ch []policyChange
	for _, key := range []struct{ name, why string }{
		{"needs", "a job it needs that fails or is skipped skips this one, and a skipped job's check reads as passed"},
		{"container", "the step runs in that image, with its docker, git and shell"},
		{"defaults", "the job's run: steps before vigiles run in the shell and directory it sets"},
		{"strategy", "a matrix sets what its steps' expressions read (an input ${{ matrix.x }} whose text is unchanged)"},
	} {
		bv, _ := wfValue(b.jobNode, key.name)
		hv, hk := wfValue(h.jobNode, key.name)
		if hk != nil && scalarText(hv) != scalarText(bv) {
			was := "it had none"
			if bv != nil {
				was = fmt.Sprintf("it was %q", scalarText(bv))
			}
			ch = append(ch, policyChange{at(hk), fmt.Sprintf("%s has %s: %q, where %s: %s", what, key.name, scalarText(hv), was, key.why)})
		}
	}
	ch = append(ch, strategyGone(b.jobNode, h.jobNode, h.jobKey, what, at)...)
	ch = append(ch, compareEnv(b.jobNode, h.jobNode, what, at)...)
	before := func(job *yaml.Node, s *seer) []*yaml.Node {
		steps, _ := wfValue(job, "steps")
		if steps == nil || steps.Kind != yaml.SequenceNode {
			return nil
		}
		isVigiles := func(st *yaml.Node) bool {
			uses, _ := wfValue(st, "uses")
			_, ok := s.stepKind(scalarText(uses))
			return ok
		}
		last := -1
		for i, st := range steps.Content {
			if isVigiles(st) {
				last = i
			}
		}
		var out []*yaml.Node
		for _, st := range steps.Content[:last+1] {
			if !isVigiles(st) {
				out = append(out, deref(st))
			}
		}
		return out
	}
	had := map[string]int{}
	for _, st := range before(b.jobNode, bs) {
		had[stepText(st)]++
	}
	for _, st := range before(h.jobNode, hs) {
		if t := stepText(st); had[t] > 0 {
			had[t]--
			continue
		}
		name := ""
		for _, k := range []string{"name", "id", "uses", "run"} {
			if v, _ := wfValue(st, k); scalarText(v) != "" {
				name = fmt.Sprintf(" (%s: %q)", k, cutBytes(scalarText(v), 200))
				break
			}
		}
		ch = append(ch, policyChange{at(st), fmt.Sprintf("%s runs a step%s before its vigiles step that the base's job had not there, or had otherwise: it runs this change's code ahead of the check and may rewrite what vigiles reads (the work tree, the policy file, git's objects and refs, GITHUB_ENV, GITHUB_PATH)", what, name)})
	}
	return ch
}

func orText(s, or string) string {
	if s == "" {
		return or
	}
	return s
}

// compareVigilesStep names what the vigiles step h checks less than b:
// another uses, if: or continue-on-error, and each input that weakens
// (an input the action reads as a default where it is empty is
// compared with that default). Neutral are github-token, check-run,
// sarif, max-runs (a plan over it runs nothing, an error), jobs, runtime
// and inputs the action does not know.
func compareVigilesStep(b, h *workflowStep, at func(*yaml.Node) report.Location) []policyChange {
	var ch []policyChange
	add := func(n *yaml.Node, format string, a ...any) {
		ch = append(ch, policyChange{at(n), h.shown() + " " + fmt.Sprintf(format, a...)})
	}
	bs := b.step
	bu, _ := wfValue(bs, "uses")
	hu, hk := wfValue(h.step, "uses")
	if !strings.EqualFold(scalarText(bu), scalarText(hu)) {
		add(hk, "uses %q, where it used %q: another vigiles runs the check", scalarText(hu), scalarText(bu))
	}
	ch = append(ch, compareWhen(bs, h.step, h.shown(), at)...)
	ch = append(ch, compareEnv(bs, h.step, h.shown(), at)...)

	bw, _ := wfValue(bs, "with")
	hw, _ := wfValue(h.step, "with")
	in := func(w *yaml.Node, key string) string {
		v, _ := wfValue(w, key)
		return scalarText(v)
	}
	keyOf := func(key string) *yaml.Node {
		if _, k := wfValue(hw, key); k != nil {
			return k
		}
		if _, k := wfValue(h.step, "with"); k != nil {
			return k
		}
		_, k := wfValue(h.step, "uses")
		return k
	}
	expr := func(s string) bool { return strings.Contains(s, "${{") }
	// A with: that is an expression (GitHub evaluates it to the inputs'
	// mapping) or an input whose name is one (${{ 'sandbox' }}: off) sets
	// inputs no key here names: named where not as the base had it.
	if hw != nil && hw.Kind != yaml.MappingNode && scalarText(hw) != scalarText(bw) {
		add(keyOf(""), "has with: %q, where it was %q (an expression, compared as text, not evaluated): it may set any input", scalarText(hw), scalarText(bw))
	}
	if hw != nil && hw.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(hw.Content); i += 2 {
			k := scalarText(hw.Content[i])
			if !expr(k) {
				continue
			}
			if bv, bk := wfValue(bw, k); bk != nil && scalarText(bv) == scalarText(hw.Content[i+1]) {
				continue
			}
			add(hw.Content[i], "has an input whose name is an expression, %q: %q (not evaluated here): it may set any input", k, scalarText(hw.Content[i+1]))
		}
	}
	// An input of ranks: named where lower, or, as text, where either is
	// an expression or no rank (a value the action refuses) and they
	// differ.
	ranked := func(key string, ranks []string, bv, hv string) {
		bl, hl := strings.ToLower(bv), strings.ToLower(hv)
		if bl == hl {
			return
		}
		bi, hi := slices.Index(ranks, bl), slices.Index(ranks, hl)
		if expr(bv) || expr(hv) || bi < 0 || hi < 0 || hi < bi {
			add(keyOf(key), "has %s: %q, where it was %q%s", key, hv, bv, exprNote(bv, hv))
		}
	}
	changed := func(key, def, why string) {
		bv, hv := orText(in(bw, key), def), orText(in(hw, key), def)
		if bv != hv {
			add(keyOf(key), "has %s: %q, where it was %q%s: %s", key, hv, bv, exprNote(bv, hv), why)
		}
	}
	turnedOn := func(key, why string) {
		bv, hv := strings.ToLower(in(bw, key)), strings.ToLower(in(hw, key))
		if hv != bv && hv != "" && hv != "false" {
			add(keyOf(key), "has %s: %q, where it was %q%s: %s", key, in(hw, key), orText(in(bw, key), "false"), exprNote(bv, hv), why)
		}
	}

	changed("command", "test", "it runs another check")
	changed("working-directory", ".", "it checks another tree")
	changed("config", DefaultConfig, "it reads another policy file, which the base's is not compared with")
	if bv, hv := in(bw, "baseline"), in(hw, "baseline"); bv != hv && (bv != "" || expr(hv)) {
		why := "it compares with another baseline, which the base's is not compared with"
		if hv == "" {
			why = "it compares with no baseline: every run is new, none an error"
		}
		add(keyOf("baseline"), "has baseline: %q, where it was %q%s: %s", hv, bv, exprNote(bv, hv), why)
	}
	turnedOn("update-baseline", "it writes the baseline from this run and compares with none")
	ranked("sandbox", sandboxRanks, in(bw, "sandbox"), in(hw, "sandbox"))
	// allow implies egress allow, and replaces the policy's egress.
	egressOf := func(w *yaml.Node) string {
		if in(w, "allow") != "" && !expr(in(w, "egress")) {
			return "allow"
		}
		return in(w, "egress")
	}
	ranked("egress", egressRanks, egressOf(bw), egressOf(hw))
	if added := addedOf(listInput(in(bw, "allow")), listInput(in(hw, "allow")), strings.ToLower); len(added) > 0 {
		add(keyOf("allow"), "has allow adding %s: hooks may reach them", quoteList(added))
	}
	ranked("fail-level", failLevelRanks, orText(strings.ToLower(in(bw, "fail-level")), "error"), orText(strings.ToLower(in(hw, "fail-level")), "error"))
	if bp, hp := listInput(in(bw, "paths")), listInput(in(hw, "paths")); len(hp) > 0 {
		if gone := addedOf(hp, bp, nil); len(bp) == 0 || len(gone) > 0 {
			add(keyOf("paths"), "has paths: [%s], where it audited %s: it audits less of the tree", quoteList(hp), orText(quoteList(bp), "the whole working-directory"))
		}
	}
	if bv, hv := in(bw, "shard"), in(hw, "shard"); hv != "" && hv != bv {
		add(keyOf("shard"), "has shard: %q, where it was %q%s: it runs a part of the work", hv, bv, exprNote(bv, hv))
	}
	if br, hr := listInput(in(bw, "reports")), listInput(in(hw, "reports")); len(br) > 0 && !slices.Equal(br, hr) {
		add(keyOf("reports"), "has reports: [%s], where it was [%s]: a merge may join fewer shards", quoteList(hr), quoteList(br))
	}
	turnedOn("hook-logs", "every hook's output is printed in the step log, where problem matchers may turn a hook's text into annotations")
	changed("image", "ghcr.io/vigiles/action:v1", "another image runs the check")
	return ch
}

// exprNote says that an expression is compared as written.
func exprNote(vs ...string) string {
	for _, v := range vs {
		if strings.Contains(v, "${{") {
			return " (an expression, compared as text, not evaluated)"
		}
	}
	return ""
}
