package runner

import (
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/vigiles/action/pkg/evidence"
	"github.com/vigiles/action/pkg/report"
	"github.com/vigiles/action/pkg/sandbox"
)

// Executor carries out one run. The real one is sandbox.Run; tests use a
// fake from pkg/runner/runnertest for the pure parts.
type Executor interface {
	Run(ctx context.Context, spec sandbox.Spec) (*sandbox.Result, error)
}

// ExecutorFunc adapts a function to Executor.
type ExecutorFunc func(ctx context.Context, spec sandbox.Spec) (*sandbox.Result, error)

// Run implements Executor.
func (f ExecutorFunc) Run(ctx context.Context, spec sandbox.Spec) (*sandbox.Result, error) {
	return f(ctx, spec)
}

// Preparer is an Executor that can build a run's sandbox ahead of its
// turn. execute then prepares the next runs while the current ones run,
// so that their start-up leaves the hooks' critical path.
type Preparer interface {
	Executor
	Prepare(ctx context.Context, spec sandbox.Spec) Pending
}

// Pending is a prepared run (sandbox.Pending): Wait starts its command and
// returns its result; CommandEnded is closed once the command is over
// (its record may still be in the making), or the run is; Abort ends it
// with nothing of its command run.
type Pending interface {
	Wait() (*sandbox.Result, error)
	CommandEnded() <-chan struct{}
	Abort()
}

// SandboxExecutor runs hooks through the real engine: sandbox.Run, and
// sandbox.Prepare ahead of their turn.
var SandboxExecutor Executor = sandboxExecutor{}

type sandboxExecutor struct{}

func (sandboxExecutor) Run(ctx context.Context, spec sandbox.Spec) (*sandbox.Result, error) {
	return sandbox.Run(ctx, spec)
}

func (sandboxExecutor) Prepare(ctx context.Context, spec sandbox.Spec) Pending {
	return sandbox.Prepare(ctx, spec)
}

// reportOutputCap bounds the stdout and stderr a report keeps per run.
const reportOutputCap = 8 << 10

// plannedRun is one hook × event × payload to run (or to list).
type plannedRun struct {
	ID      string
	Hook    *Hook
	Check   *Check
	Payload Payload
	Timeout time.Duration
	// ident is the ids the run sent in place of the fixed ones, drawn by
	// spec (runIdentity).
	ident *runIdentity
}

// runSettings are the resolved defaults a plan runs with.
type runSettings struct {
	dir         string
	rootSandbox bool
	mode        sandbox.Mode
	egress      evidence.EgressPolicy
	timeout     time.Duration
	linger      time.Duration
	limits      sandbox.Limits
	outCap      int
	jobs        int
	exec        Executor
	progress    io.Writer
	// progressDir is the directory the progress lines show the runs'
	// files from, relative to the work tree: the action's
	// working-directory, as its annotations do (Invocation.Dir); "" for
	// the work tree itself.
	progressDir string
	// lanes is how many of the plan's runs go at once (Spec.Lanes):
	// executeTracked sets it, on its own copy, to jobsOrCores, or the
	// plan's runs that execute where those are fewer; 0 (a spec made
	// outside a plan's execution) is one.
	lanes int
}

// executed is a planned run with its result.
type executed struct {
	run      report.HookRun
	decision Decision
	result   *sandbox.Result
	err      error
	// cutShort, for a run ended at its timeout, says why that was sooner
	// than Claude Code would end the hook ("" when it was the hook's
	// own timeout, which Claude Code keeps too): what the hook would have
	// done after is not in the record.
	cutShort string
	// tree is the work tree the run was given (where the links it wrote
	// lead is read there); "" where unknown.
	tree string
	// limit is the limit of the sandbox the run hit (LimitOf), which
	// Claude Code does not impose: no expectation passes on its record.
	limit string
	// ended, for a run ended at its timeout, is that timeout (timeoutOf),
	// and bound whose it was beside Claude Code's.
	ended time.Duration
	bound timeoutBound
	// lanes is how many runs the whole plan ran at once (its jobs, never
	// more than its runs; a shard's runs take the whole plan's,
	// planLanes), which shared the machine's cores.
	lanes int
	// async says the hook runs in the background (Hook.Async).
	async bool
	// openBy, for a test's run with the sandbox off, is what turned it
	// off: "--sandbox off", or the policy's defaults.sandbox: off; ""
	// where the sandbox was not off.
	openBy string
}

// timeoutBound is whose bound a run's timeout was, beside the wait
// Claude Code gives its hook (claudeWait).
type timeoutBound int

const (
	// claudesBound: the run waited as long as Claude Code would (the
	// hook's own timeout, or its event's default), which ends the hook
	// as Claude Code ends it.
	claudesBound timeoutBound = iota
	// soonerBound: vigiles' bound (its audit budget, defaults.timeout,
	// a check's timeout, a cap), sooner than Claude Code would end it.
	soonerBound
	// longerBound: vigiles' bound, past Claude Code's (a SessionEnd
	// hook, whose run vigiles lets go on to record what it does).
	longerBound
	// commandBound: a command: check's, which Claude Code never runs.
	commandBound
)

// boundOf says whose bound the timeout of a run of p is.
func (s *runSettings) boundOf(p *plannedRun) timeoutBound {
	if p.Check != nil && p.Check.Command != "" {
		return commandBound
	}
	timeout, _ := s.timeoutOf(p)
	switch claude := claudeWait(p.Hook); {
	case timeout < claude:
		return soonerBound
	case timeout > claude:
		return longerBound
	}
	return claudesBound
}

// LimitOf names the limit of vigiles' sandbox that ended or bounded a
// confined run, other than its timeout: the one the result says (cpu,
// file-size, memory, pids, scratch), else cpu or file-size where the
// command's shell reports a child of its dead of SIGXCPU or SIGXFSZ, which
// only those limits send: by its exit status (152 or 153), or by the line
// a shell prints on stderr for a child a signal killed, which a hook that
// goes on past it prints too (bash's "line 2: 6 File size limit exceeded
// truncate -s 2G big", dash's "File size limit exceeded") where its own
// exit status says nothing ("if truncate …; then curl …; fi; exit 0");
// scratch where its stderr says "No space left on device": every place a
// confined command may write is in its scratch, and one that fills it and
// removes what it wrote between the init's looks at it (every 25 ms) is
// seen by nothing else, while what failed would have worked on the host;
// "" for none. Claude Code imposes none of them, so the run did not do
// what it would have done under Claude Code past that point. (A hook that
// exits 152, or prints such a line, itself is taken for one that hit the
// limit: its record then proves nothing, never too much.) vigiles run
// names it in its result too.
func LimitOf(res *sandbox.Result) string {
	if res == nil || res.Tier != sandbox.TierConfined {
		return ""
	}
	if res.LimitHit != "" && res.LimitHit != "wall-time" {
		return res.LimitHit
	}
	if res.Signal == "" && !res.TimedOut {
		switch res.ExitCode {
		case 128 + int(syscall.SIGXCPU):
			return "cpu"
		case 128 + int(syscall.SIGXFSZ):
			return "file-size"
		}
	}
	// The signals' descriptions (strsignal), as bash, dash and zsh print
	// them (zsh in lower case).
	stderr := strings.ToLower(stderrText(res))
	switch {
	case strings.Contains(stderr, "cpu time limit exceeded"):
		return "cpu"
	case strings.Contains(stderr, "file size limit exceeded"):
		return "file-size"
	case strings.Contains(stderr, "no space left on device"):
		// strerror(ENOSPC), as coreutils, Python and Node print it.
		return "scratch"
	}
	return ""
}

// limitKey is the key of .vigiles.yml that sets a limit LimitOf names.
func limitKey(limit string) string {
	switch limit {
	case "cpu":
		return "defaults.limits.cpu-seconds"
	case "memory":
		return "defaults.limits.run-memory"
	}
	return "defaults.limits." + limit
}

// limitWhy says, for a finding, that a run hit a limit of the sandbox.
func limitWhy(limit string) string {
	return fmt.Sprintf("the hook hit vigiles' %s limit (%s in .vigiles.yml), which Claude Code does not impose, so what it would have done past it is not recorded: raise the limit so that the hook runs within it", limit, limitKey(limit))
}

// failure is what vigiles said of its own failure to run the hook or to
// make its record (the result's error, else the executor's); "" when
// there was none.
func (e executed) failure() string {
	if e.result != nil && e.result.Error != "" {
		return e.result.Error
	}
	if e.err != nil {
		return e.err.Error()
	}
	return ""
}

// maxHookTimeout is the longest a run waits for a hook whose own
// "timeout" asks for more, when the policy sets no defaults.timeout:
// Claude Code's own default for a command hook. A hook may ask for up to
// a day, and a hostile one would hold an audit that long.
const maxHookTimeout = 10 * time.Minute

// claudeWait is how long Claude Code waits for the command hook h before
// it ends it: its own timeout, else its event's default (30 s on
// UserPromptSubmit, PreModelSwitch and PostModelSwitch, 10 s on
// MessageDisplay, maxHookTimeout on the others); a SessionEnd hook, the budget SessionEnd hooks share where its
// own timeout does not fit in it (sessionEndWait).
func claudeWait(h *Hook) time.Duration {
	if h.Event == SessionEnd {
		w, _ := sessionEndWait(h)
		return w
	}
	if h.Timeout > 0 {
		return h.Timeout
	}
	switch h.Event {
	case UserPromptSubmit, PreModelSwitch, PostModelSwitch:
		return 30 * time.Second
	case MessageDisplay:
		return 10 * time.Second
	}
	return maxHookTimeout
}

// claudeWhy says where claudeWait's wait for h comes from: its own
// timeout, else Claude Code's default for its event.
func claudeWhy(h *Hook) string {
	switch {
	case h.Event == SessionEnd:
		_, why := sessionEndWait(h)
		return why
	case h.Timeout > 0:
		return "its own timeout"
	}
	return "its default for " + h.Event + " hooks"
}

// timeoutOf is how long a run of p waits for its hook: a check's own
// timeout, when it sets one (the policy's author chose it); else the
// hook's own, up to the policy's defaults.timeout when that is set, else
// up to maxHookTimeout (capped then says by how much: what the hook asked
// for, and where the bound comes from); else defaults.timeout; else
// sandbox.DefaultTimeout. Never longer than Claude Code waits for the
// hook (claudeWait): a hook that decided later would pass a check, or an
// audit, that Claude Code never let it decide. A command check, which
// Claude Code never runs, waits its own; so does a SessionEnd hook.
func (s *runSettings) timeoutOf(p *plannedRun) (timeout time.Duration, capped string) {
	timeout, capped = s.chosenTimeout(p)
	if p.Check != nil && p.Check.Command != "" || p.Hook.Event == SessionEnd {
		// A SessionEnd hook decides nothing, and its budget may be
		// raised (its own timeout, Claude Code's settings): what it does
		// later is recorded rather than cut.
		return timeout, capped
	}
	if w := claudeWait(p.Hook); timeout > w {
		return w, fmt.Sprintf("vigiles waited %s, not %s: Claude Code ends the hook at %s, %s", report.ShortDuration(w), report.ShortDuration(timeout), report.ShortDuration(w), claudeWhy(p.Hook))
	}
	return timeout, capped
}

// chosenTimeout is the wait timeoutOf starts from: the check's, the
// hook's own (capped), the policy's, vigiles' default.
func (s *runSettings) chosenTimeout(p *plannedRun) (timeout time.Duration, capped string) {
	h := p.Hook
	switch {
	case p.Timeout > 0:
		return p.Timeout, ""
	case h.Timeout > 0:
		limit, from := maxHookTimeout, "the longest vigiles waits for a hook when the policy sets no defaults.timeout"
		if s.timeout > 0 {
			limit, from = s.timeout, "the policy's defaults.timeout"
		}
		if h.Timeout > limit {
			return limit, fmt.Sprintf("its own timeout of %s was capped at %s, %s", report.ShortDuration(h.Timeout), report.ShortDuration(limit), from)
		}
		return h.Timeout, ""
	case s.timeout > 0:
		return s.timeout, ""
	}
	return sandbox.DefaultTimeout, ""
}

// hookOwnEnv are the variables spec sets as Claude Code sets them in
// each hook it runs (and the plugin data prelude, CLAUDE_PLUGIN_DATA;
// CLAUDE_PLUGIN_OPTION_* too), which a check's env may not set: its
// value would not be the one Claude Code gives. Kept beside spec, which
// sets them.
var hookOwnEnv = map[string]bool{"CLAUDECODE": true, "CLAUDE_CODE_CHILD_SESSION": true, "CLAUDE_CODE_SESSION_ID": true,
	"CLAUDE_PROJECT_DIR": true, "CLAUDE_PLUGIN_ROOT": true, "CLAUDE_PLUGIN_DATA": true, envFileVar: true, "CLAUDE_PID": true,
	"CLAUDE_EFFORT": true}

// claudeCodeVersion is the newest Claude Code release whose hooks this
// package is checked against (docs/hook-events.md, "Checked against the
// hooks reference").
const claudeCodeVersion = "2.1.296"

// aiAgentEnv is the AI_AGENT Claude Code (2.1.120 and later: "Set AI_AGENT
// environment variable for subprocesses") gives the commands it starts:
// claude-code_<version, dots made dashes>_<surface>, the surface harness
// for what the harness itself starts (a hook, an MCP server) and agent
// for a Bash command of the model's. A value Claude Code's environment
// already holds is kept (a hook of a session that a Bash command started
// sees that command's _agent one), so the settings' env and a check's
// env, which come after it in spec, win. Without it a hook that keys on
// the variable (an attribution, a "skip when a subagent runs me") acts
// otherwise in the audit, and its absence tells the hook it is audited.
var aiAgentEnv = "AI_AGENT=claude-code_" + strings.ReplaceAll(claudeCodeVersion, ".", "-") + "_harness"

// payloadEffort is the effort level a hook's input carries (its
// effort.level, a string), "" where it carries none: Claude Code sets
// CLAUDE_EFFORT to it.
func payloadEffort(in map[string]any) string {
	e, _ := in["effort"].(map[string]any)
	level, _ := e["level"].(string)
	if strings.ContainsRune(level, 0) {
		return ""
	}
	return level
}

// noCacheEnv turn off the caches interpreters write as a side effect of
// running a hook (spec says why): PYTHONDONTWRITEBYTECODE (any non-empty
// value) and BUN_RUNTIME_TRANSPILER_CACHE_PATH ("0" disables it).
var noCacheEnv = []string{"PYTHONDONTWRITEBYTECODE=1", "BUN_RUNTIME_TRANSPILER_CACHE_PATH=0"}

// spec is the sandbox spec of run p; it draws the ids the run sends its
// hook (p.ident), which one puts back in the run's record.
func (s *runSettings) spec(p *plannedRun) sandbox.Spec {
	h := p.Hook
	p.ident = newRunIdentity(p.ID)
	// A project hook of a .claude below the work tree's runs in that
	// directory, which CLAUDE_PROJECT_DIR names, as it would in a session
	// Claude Code started there.
	proj := h.projectDir(s.dir)
	// Claude Code's own process environment, which every process it
	// starts inherits, then the settings' env, then what Claude Code sets
	// in each hook command it spawns (env-vars.md): CLAUDECODE,
	// CLAUDE_CODE_CHILD_SESSION and CLAUDE_CODE_SESSION_ID (the payload's
	// session_id), over the settings' env, which cannot hand the hook a
	// value of the repository's choosing (a marker it would see in an
	// audit alone); without them a hook could tell an audit too. AI_AGENT
	// is Claude Code's own, which the settings' env may set otherwise
	// (aiAgentEnv).
	env := []string{"CLAUDE_CODE_ENTRYPOINT=cli", aiAgentEnv}
	// No interpreter caches: Python's __pycache__/*.pyc beside the
	// module a hook imports (named by the interpreter's version) and
	// Bun's transpiler cache in HOME (named by the source's hash) are
	// speed, not behaviour, and would make the write record depend on the
	// machine's history (a fresh CI checkout writes what the machine that
	// made the baseline had already, a comment's edit writes a new file):
	// baseline drift no hook caused. First, so that the check's env or
	// the settings' env, which come later and win, may set them
	// otherwise; a .pyc a hook writes itself is still recorded.
	env = append(env, noCacheEnv...)
	if p.Check != nil {
		env = append(env, p.Check.Env...) // Claude Code's own, as the check says
	}
	env = append(env, h.SettingsEnv...)
	env = append(env, "CLAUDECODE=1", "CLAUDE_CODE_CHILD_SESSION=1", "CLAUDE_CODE_SESSION_ID="+p.ident.send.Replace(sessionID))
	// The effort level the payload carries is in CLAUDE_EFFORT too, as
	// Claude Code gives it (2.1.133 and later: "the effort.level JSON
	// input field and the $CLAUDE_EFFORT environment variable"): a hook
	// that acts only where it is set acts in the audit too.
	if level := payloadEffort(p.Payload.Input); level != "" {
		env = append(env, "CLAUDE_EFFORT="+level)
	}
	env = append(env, "CLAUDE_PROJECT_DIR="+proj)
	if h.InPlugin {
		env = append(env, "CLAUDE_PLUGIN_ROOT="+filepath.Join(s.dir, filepath.FromSlash(h.PluginRoot)))
		env = append(env, h.PluginOptions...)
	} else if h.SkillRoot != "" {
		env = append(env, "CLAUDE_PLUGIN_ROOT="+filepath.Join(s.dir, filepath.FromSlash(h.SkillRoot)))
	}
	timeout, _ := s.timeoutOf(p)
	argv, env := h.argv(env)
	spec := sandbox.Spec{
		Command: argv,
		Dir:     s.dir,
		Cwd:     filepath.FromSlash(h.ProjectDir),
		// The payload and a newline, as Claude Code writes it
		// (jsonInput + '\n'): without it `if read -r line` skips its
		// branch and `while read` its last line.
		Stdin:     strings.NewReader(p.ident.send.Replace(string(p.Payload.JSON())) + "\n"),
		Env:       env,
		Timeout:   timeout,
		Linger:    s.linger,
		OutputCap: s.outCap,
		Trusted:   h.Trusted,
		Mode:      s.mode,
		Limits:    s.limits,
		Egress:    s.egress,

		RootSandbox: s.rootSandbox,
		// A non-root caller's process limit, and the host uid's
		// per-user counts, are shared by the runs under way at once
		// (sandbox.Spec.Lanes).
		Lanes: s.lanes,
		// Claude Code's own process ID, the hook's parent (env-vars.md):
		// the hook's $PPID, as vigiles starts it.
		ParentPIDVar: "CLAUDE_PID",
	}
	if rel := envFileOf(h.Event); rel != "" {
		spec.EnvFile, spec.EnvFileVar = p.ident.send.Replace(rel), envFileVar
	}
	if h.InPlugin {
		// Claude Code makes the plugin's data directory; so does the
		// sandbox, not the hook (pluginDataPrelude names it).
		spec.HomeDirs = []string{h.dataDir()}
	}
	// The session's transcript, which Claude Code has once the session
	// started (and a subagent's, for SubagentStop): a hook that reads it
	// finds it, and one that runs only where it is runs in the audit.
	return withTranscripts(spec, p.Payload.Input, p.ident.send, time.Now())
}

// execute runs the plan in parallel, bounded by s.jobs, and returns the
// results in plan order. With a Preparer, up to s.jobs further runs are
// prepared while s.jobs run: a lane takes a run whose sandbox is already
// built, and only the command and the teardown stay on its path.
func (s *runSettings) execute(ctx context.Context, plan []*plannedRun) []executed {
	out, _ := s.executeTracked(ctx, plan)
	return out
}

// jobsOrCores is how many runs go at once: --jobs, one per core where it
// is 0.
func (s *runSettings) jobsOrCores() int {
	if s.jobs <= 0 {
		return runtime.NumCPU()
	}
	return s.jobs
}

// executeTracked is execute, and knows which runs are running: when ctx
// is cancelled, the progress names them at once, and what comes back
// marks the runs the interruption stopped (outcome error, never a pass)
// and those it never started, and says which they were (nil when ctx was
// not cancelled).
func (s *runSettings) executeTracked(ctx context.Context, plan []*plannedRun) ([]executed, *interruption) {
	out := make([]executed, len(plan))
	jobs := s.jobsOrCores()
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex // guards done, kept, watch and the progress
		done int
		kept int // the evidence the runs keep for the report (keepWithin)
	)
	prep, canPrepare := s.exec.(Preparer)
	if canPrepare && s.anyDirect(plan) {
		// A run in the open may change the host's work tree, and a
		// sandbox built before that change would not see it: each run's
		// sandbox is then built at its turn.
		canPrepare = false
	}
	type turn struct {
		i    int
		pend Pending // nil: not prepared
	}
	// One prepared run waits in each buffer slot, and one more with the
	// sender: s.jobs runs ahead in all.
	turns := make(chan turn, jobs-1)
	total := 0
	for _, p := range plan {
		if p.Hook.Executable() {
			total++
		}
	}
	// The runs under way at once share a non-root caller's process
	// limit and the host uid's per-user counts (spec's Lanes): never
	// more than the plan has to run, however high --jobs is, so that a
	// plan smaller than its lanes is not held to shares it never uses.
	own := *s
	own.lanes = min(jobs, total)
	s = &own
	watch := newRunWatch(plan, total, s.progressDir)
	// The cause of ctx's end (context.Cause: the signal that stopped the
	// work, where the caller's context names one) once the runs are
	// over, before finished is closed.
	var err error
	finished, told := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(told)
		select {
		case <-ctx.Done():
		case <-finished:
			// The runs may all have ended on the cancel before this
			// goroutine saw it: the line is said all the same.
			if err == nil {
				return
			}
		}
		if s.progress != nil {
			mu.Lock()
			watch.tell(s.progress, context.Cause(ctx))
			mu.Unlock()
		}
	}()
	// The progress opens with the plan, and names the runs still running
	// every ProgressInterval: a hook may run for minutes before its line.
	beat := make(chan struct{})
	if s.progress != nil && total > 0 {
		watch.planned(s.progress, jobs)
		go func(interval time.Duration) {
			defer close(beat)
			watch.beat(s.progress, &mu, interval, finished)
		}(ProgressInterval)
	} else {
		close(beat)
	}
	// endRun keeps the end of run i (its record made): one that ends once
	// ctx is done was running when it was cancelled.
	endRun := func(i int) {
		mu.Lock()
		watch.end(ctx, i)
		mu.Unlock()
	}
	// signalled is when ctx was cancelled (zero before): what a stopped
	// run had run by then is what its reason says, not the time it took
	// to stop it. signalAt reads it, holding mu, and sets it if the
	// AfterFunc has yet to.
	var signalled time.Time
	signalAt := func() time.Time {
		if signalled.IsZero() {
			signalled = time.Now()
		}
		return signalled
	}
	stopSignal := context.AfterFunc(ctx, func() {
		mu.Lock()
		signalAt()
		mu.Unlock()
	})
	defer stopSignal()
	// ranFor is, by plan index, how long each run stopped by the
	// interruption had run when the signal came; inSetUp the runs it
	// stopped while their sandbox was set up, before their command
	// started (setUpCut).
	ranFor, inSetUp := map[int]time.Duration{}, map[int]bool{}
	// A lane is a hook's command: at most s.jobs run at once. A prepared
	// run gives its lane back once its command is over, while its record
	// is made, so the next command starts beside that; a lane is taken
	// before the turn, so no more runs are prepared ahead than before.
	// Twice as many workers as lanes: one waits for each record.
	lanes := make(chan struct{}, jobs)
	for w := 0; w < 2*jobs; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				lanes <- struct{}{}
				tn, ok := <-turns
				if !ok {
					<-lanes
					return
				}
				i := tn.i
				runs := plan[i].Hook.Executable()
				mu.Lock()
				stopped := ctx.Err() != nil
				if !stopped && runs {
					watch.begin(i)
				}
				begun := time.Now()
				mu.Unlock()
				if stopped {
					if tn.pend != nil {
						tn.pend.Abort()
					}
					<-lanes
					continue // reported as not run, below
				}
				if tn.pend != nil {
					go func(ended <-chan struct{}) {
						<-ended
						<-lanes
					}(tn.pend.CommandEnded())
					out[i] = s.one(ctx, plan[i], tn.pend)
					endRun(i)
				} else {
					out[i] = s.one(ctx, plan[i], nil)
					endRun(i)
					<-lanes // once its end is kept: the next run may be the one that is cut
				}
				mu.Lock()
				out[i].lanes = min(jobs, total)
				kept = out[i].keepWithin(kept)
				if d, ok := watch.cut[i]; ok {
					ranFor[i] = max(0, min(d, signalAt().Sub(begun)))
					if setUpCut(out[i]) {
						// Its command never started: nothing of the hook
						// ran, in no tier, for no time.
						inSetUp[i] = true
						out[i] = executed{run: baseRun(plan[i]), err: out[i].err, lanes: out[i].lanes}
						out[i].run.Outcome = report.OutcomeError
					} else {
						// Stopped by the interruption, the run has no
						// result of its own (0 ms): the time it ran until
						// it was stopped, for the progress line and the
						// report alike.
						out[i].run.DurationMs = max(out[i].run.DurationMs, float64(d.Microseconds())/1000)
					}
				}
				if s.progress != nil && runs {
					done++
					r := out[i].run
					fmt.Fprintf(s.progress, "[%d/%d] %s: %s (%s, %s)\n", done, total, watch.names[i], r.Outcome, orDefault(r.Tier, "not run"),
						ranForMs(r.DurationMs))
				}
				mu.Unlock()
			}
		}()
	}
	for i := range plan {
		if ctx.Err() != nil {
			break
		}
		tn := turn{i: i}
		if canPrepare && plan[i].Hook.Executable() {
			tn.pend = prep.Prepare(ctx, s.spec(plan[i]))
		}
		turns <- tn
	}
	close(turns)
	wg.Wait()
	err = context.Cause(ctx)
	close(finished)
	<-told
	<-beat
	if err == nil {
		return out, nil
	}
	for i, p := range plan {
		r := &out[i].run
		if !p.Hook.Executable() {
			if r.ID == "" { // cancelled before its turn: listed all the same
				out[i] = s.one(ctx, p, nil)
			}
			continue
		}
		if inSetUp[i] {
			// Not started, as one kept from its turn is: the summary
			// counts it so, and no finding says it was stopped running.
			delete(watch.cut, i)
			delete(watch.started, i)
			r.Outcome = report.OutcomeError
			r.Reason = fmt.Sprintf("not run: vigiles was interrupted (%v) while it set up the run's sandbox (%s after its turn came), before the hook's command started",
				err, report.ShortDuration(ranFor[i].Round(time.Millisecond)))
		} else if _, ok := watch.cut[i]; ok {
			r.Outcome = report.OutcomeError
			r.Reason = fmt.Sprintf("interrupted: it was still running when vigiles was interrupted (%v), after %s, and was stopped; what it would have done is not known",
				err, report.ShortDuration(ranFor[i].Round(time.Millisecond)))
		} else if !watch.started[i] {
			out[i] = executed{run: baseRun(p), err: err}
			r = &out[i].run
			r.Outcome = report.OutcomeError
			r.Reason = fmt.Sprintf("not run: vigiles was interrupted (%v) before its turn", err)
		} else {
			continue // finished before the signal: as it ran
		}
		out[i].decision = Decision{Outcome: r.Outcome, Reason: r.Reason}
	}
	return out, &interruption{err: err, cut: watch.cut, started: watch.started}
}

// setUpCut reports whether e, a run the interruption stopped, was
// stopped before its command started: the sandbox refused it, which it
// does only before the command starts, and a set-up the interruption cuts
// short ends so (its network not attached, its init not started). Such a
// run was neither refused by policy nor run in any tier. A run whose
// executor gave no result at all (tier refused, no refusal of the
// sandbox's) says nothing of where it was.
func setUpCut(e executed) bool {
	return e.run.Tier == string(sandbox.TierRefused) && e.run.Refusal != ""
}

// anyDirect reports whether a run of the plan runs in the open (trusted
// code in auto mode, or the sandbox off).
func (s *runSettings) anyDirect(plan []*plannedRun) bool {
	mode := s.mode
	if mode == "" {
		mode = sandbox.ModeAuto
	}
	for _, p := range plan {
		// As s.spec(p) would decide it: its Mode is s.mode, its Trusted the hook's.
		if p.Hook.Executable() && sandbox.Decide(p.Hook.Trusted, mode, sandbox.Capability{Confine: sandbox.Available}).Tier == sandbox.TierDirect {
			return true
		}
	}
	return false
}

func baseRun(p *plannedRun) report.HookRun {
	h := p.Hook
	r := report.HookRun{
		ID: p.ID, Plugin: h.Plugin, Event: h.Event, Matcher: h.Matcher, Tool: p.Payload.Tool,
		Type: h.Type, Command: h.shownCommand(), Context: h.context(), Location: h.Location, Trusted: h.Trusted,
	}
	if p.Check != nil {
		r.Check = p.Check.Name
	}
	if rel := envFileOf(r.Event); rel != "" {
		// Every run of an event with an env file has one in the report:
		// not recorded until a run's record says otherwise (a hook that
		// is listed, not run, or was never started, has none).
		r.EnvFile = &evidence.EnvFile{Path: "~/" + rel}
	}
	return r
}

// one runs p: through pend when it was prepared, else by the executor.
func (s *runSettings) one(ctx context.Context, p *plannedRun, pend Pending) executed {
	r := baseRun(p)
	if !p.Hook.Executable() {
		r.Outcome = report.OutcomeNotExecutable
		r.Reason = p.Hook.Type + " hooks are listed, not run"
		if p.Hook.NotRun != "" {
			r.Reason = "listed, not run: " + p.Hook.NotRun
		}
		return executed{run: r, decision: Decision{Outcome: r.Outcome}}
	}
	var res *sandbox.Result
	var err error
	if pend != nil {
		res, err = pend.Wait()
	} else {
		res, err = s.exec.Run(ctx, s.spec(p))
	}
	if p.ident != nil {
		if res != nil {
			res.Replace(p.ident.restore)
		}
		// Its replacers, each a trie of the run's ids, are done with
		// once the record reads as the plan does: the plan outlives the
		// audit's runs, and kept there they held 5.4 KiB a run until the
		// audit's end (54 MiB of heap over 10,000 runs;
		// BenchmarkAuditScale's live-KiB/hook).
		p.ident = nil
	}
	d := decideValue(p.Hook.Event, rulesFor(p.Hook.Event, p.Payload.Input), p.Payload.Tool, res, err)
	// Its payload's input, a map of the fields sent on stdin, is done
	// with once the output was read as its event's rules read it (a
	// teammate's TaskCompleted reads continue: false): the report names
	// the run's event and tool, which stay, not the payload. Kept in the
	// plan it held 0.7 KiB a run until the audit's end.
	p.Payload.Input = nil
	backgrounded := false // an async hook that outlived its timeout, which Claude Code lets run on
	timeout, _ := s.timeoutOf(p)
	switch {
	case err != nil || res == nil || !res.TimedOut || res.Error != "" || res.Tier == sandbox.TierRefused:
	case p.Hook.Async && !p.Hook.Rewake:
		// Claude Code does not enforce the timeout of an async command
		// hook (the settings reference's "timeout" field; execCommandHook
		// backgrounds it, which clears its timeout): the hook runs on
		// past it, and the call went on without it from the start.
		backgrounded = true
		d = Decision{Outcome: report.OutcomeAllowed, Reason: fmt.Sprintf("async: the agent does not wait for the hook, and Claude Code does not enforce an async hook's timeout, so it would have let the hook run on; vigiles ended it after %.0f ms, at %s (%s): what it did after that is not in the record",
			res.DurationMs, report.ShortDuration(timeout), s.waitedWhy(p))}
	case d.AsyncResponse:
		// Backgrounded at its first line, the hook is no longer timed
		// by Claude Code, which lets it run on: vigiles ended it, and the
		// run/timeout finding says that what came after is not recorded.
		d.Reason = fmt.Sprintf("%s; vigiles ended it after %.0f ms, at %s (%s), where Claude Code, which times no hook it has backgrounded, would have let it run on: what it did after that is not in the record",
			d.Reason, res.DurationMs, report.ShortDuration(timeout), s.waitedWhy(p))
	default:
		// The run/timeout finding quotes this reason: say whose timeout
		// ended the hook, and what Claude Code does there.
		d.Reason = s.timedOut(p, res.DurationMs)
	}
	asyncFailed := false
	// A hook backgrounded at its first line (AsyncResponse) gave Claude
	// Code status 0: no failure for onFailure to act on.
	switch {
	case !p.Hook.FailBlocks || d.AsyncResponse || backgrounded:
	case p.Hook.Async:
		// Claude Code ignores onFailure on an async hook: its failure
		// is let through, and the reason says why.
		asyncFailed = failureOf(p.Hook.Event, res, err, d) != ""
	default:
		d = failBlocks(p.Hook.Event, p.Payload.Tool, res, err, d)
	}
	if backgrounded {
		// Said above: not what it would have done, which is not known.
	} else if p.Hook.Async && d.Outcome == report.OutcomeBlocked {
		// Claude Code starts an async hook and goes on without it: what
		// it prints or exits with decides nothing.
		d.Outcome = report.OutcomeAllowed
		d.Reason = "async: the agent does not wait for the hook, so it cannot block (it would have: " + d.Reason + ")"
	} else if p.Hook.Async && d.Output != nil && d.Reason != "" {
		// Nor does what it prints act on the call (an allow, an
		// updatedInput): the call went on without it.
		d.Reason = "async: the agent does not wait for the hook, so what it prints decides nothing (" + d.Reason + ")"
	} else if p.Hook.Async && res != nil && (res.ExitCode != 0 || res.Signal != "") && d.Reason != "" {
		// Nor does it wait to see the hook fail.
		d.Reason = "async: the agent does not wait for the hook, so its failure stops nothing (" + d.Reason + ")"
	}
	if asyncFailed {
		d.Reason = strings.TrimPrefix(d.Reason+"; ", "; ") + asyncOnFailure
	}
	r.Outcome, r.Reason = d.Outcome, d.Reason
	if !p.Hook.Async && !outcomeRules[p.Hook.Event].ignoresOutput {
		// An async hook's output decides nothing: the agent has gone on.
		r.Decides = decidesOf(d)
	}
	if res != nil {
		r.Tier = string(res.Tier)
		r.Refusal = res.Refusal
		r.ExitCode = res.ExitCode
		r.TimedOut = res.TimedOut
		r.DurationMs = res.DurationMs
		r.Stdout = clipOutput(outputText(res.StdoutBytes(), res.Stdout, res.StdoutEncoding))
		r.Stderr = clipOutput(stderrText(res))
		r.Writes = sortedWrites(res.Writes)
		r.Egress = sortedEgress(res.Egress)
		r.Lingered = res.Lingered
		if res.EnvFile != nil {
			r.EnvFile = res.EnvFile
		}
	} else {
		r.Tier = string(sandbox.TierRefused)
	}
	e := executed{run: r, decision: d, result: res, err: err, tree: s.dir, async: p.Hook.Async}
	if res != nil && res.TimedOut {
		e.cutShort = s.cutShort(p)
		if e.cutShort == "" && (backgrounded || d.AsyncResponse) {
			// Backgrounded, the hook is timed by nothing in Claude Code:
			// any timeout of vigiles' ends it sooner, and no expectation
			// over its record (no-egress, no-write) passes on what it did
			// before.
			e.cutShort = "it was ended at " + report.ShortDuration(timeout) + " (async: Claude Code times no hook it has backgrounded)"
		}
		e.ended = timeout
		e.bound = s.boundOf(p)
	}
	if e.limit = LimitOf(res); e.limit != "" {
		e.run.LimitHit = e.limit
	}
	e.shed(p.Check)
	return e
}

// maxKeptEvidence bounds the records that the runs of one test or audit
// keep for its report, together: the bytes of their writes' and
// network attempts' names, and of what their output decides and their
// env files (evidenceSize). A run's own record is bounded (64 MiB of
// JSON, 10,000 destinations), but not the runs': hooks that each wrote
// 50,000 files with long names held their paths to the end of the audit
// and its report, which made the broker's peak grow with every such hook
// (875 MB for six), without a bound. A run whose record would pass it,
// in the order the records are made (each lane has a worker for the
// record beside the one for the command, so not the plan's), keeps none
// of it and fails (run/failed), so nothing passes on evidence left out.
// A variable so that tests can lower it.
var maxKeptEvidence = 128 << 20

// Per entry, besides its strings: a Write's and an Egress's own size.
const (
	keptWriteSize  = 80
	keptEgressSize = 128
)

// evidenceSize is what r's record costs to keep: its writes and egress,
// and what its output tells the agent to do (Decides, which holds the
// hook's updatedInput whole: up to its output cap) and its env file.
func evidenceSize(r report.HookRun) int {
	n := len(r.Decides)
	if r.EnvFile != nil && r.EnvFile.Content != nil {
		n += len(*r.EnvFile.Content)
	}
	for _, w := range r.Writes {
		n += keptWriteSize + len(w.Path) + len(w.Target) + len(w.From)
	}
	for _, e := range r.Egress {
		n += keptEgressSize + len(e.Host) + len(e.IP) + len(e.Detail)
	}
	return n
}

// keepWithin keeps e's record where it fits in maxKeptEvidence with the
// kept bytes of the runs before it, and returns what all of them keep
// then. Where it does not fit, e keeps none of it (writes and egress
// null, the env file's content null: not recorded; no decides), and
// fails as a run whose record vigiles could not make does: every
// expectation and baseline comparison over it says not recorded, and no
// verdict passes on it.
func (e *executed) keepWithin(kept int) int {
	n := evidenceSize(e.run)
	if kept+n <= maxKeptEvidence {
		return kept + n
	}
	parts := []string{fmt.Sprintf("%d writes, %d network destinations", len(e.run.Writes), len(e.run.Egress))}
	if e.run.Decides != "" {
		parts = append(parts, fmt.Sprintf("%d bytes of what its output decides", len(e.run.Decides)))
	}
	if e.run.EnvFile != nil && e.run.EnvFile.Content != nil {
		parts = append(parts, fmt.Sprintf("%d bytes of its env file", len(*e.run.EnvFile.Content)))
	}
	why := fmt.Sprintf("its record (%s) was not kept: with the runs before it, this run's record would pass the %d MiB of records that vigiles keeps for one report; audit fewer hooks at once (PATHs, --shard)",
		strings.Join(parts, ", "), maxKeptEvidence>>20)
	e.run.Writes, e.run.Egress = nil, nil
	if e.run.EnvFile != nil {
		e.run.EnvFile = &evidence.EnvFile{Path: e.run.EnvFile.Path} // not recorded
	}
	e.run.Outcome, e.run.Reason = report.OutcomeError, "the run failed: "+why
	e.decision = Decision{Outcome: e.run.Outcome, Reason: e.run.Reason}
	e.run.Decides = ""
	if e.result == nil {
		e.result = &sandbox.Result{}
	}
	// A copy: a run that shed its result shares one (noFailure).
	failed := *e.result
	failed.Error = why
	e.result = &failed
	return kept
}

// shed lets go of what the run's report entry holds, or nothing reads,
// once that entry is made. The run is kept to the end of the test or
// audit. A run no check's expectation of its output reads (an audit's,
// or a check's without stdout-*, stderr-* or json) keeps of its result
// only its error (executed.failure): not its whole output, which a hook
// that prints up to the output cap on both streams left twice (its bytes
// and their base64), nor that output parsed as JSON (Decision.Output),
// many times its size for a 1 MiB array of zeros: an audit of hooks that
// all did so held hundreds of MiB more than its report, and so did a
// test of many checks of such a hook. A check's run that such an
// expectation reads keeps those (captured), but not the result's record
// (writes, egress, env file, lingered), which the report entry holds:
// else a record maxKeptEvidence leaves out would stay in memory all the
// same.
func (e *executed) shed(c *Check) {
	switch {
	case e.result == nil:
	case c != nil && readsOutput(c):
		e.result.Writes, e.result.Egress, e.result.EnvFile, e.result.Lingered = nil, nil, nil, nil
	case e.result.Error == "" && e.result.Signal == "":
		// As below, where there is neither: every such run shares one
		// result, which nothing changes, where each kept a whole
		// sandbox.Result of empty fields (0.3 KiB a run).
		e.result = noFailure
		e.decision.Output = nil
	default:
		// What the findings read of it after (hookError): its error and
		// the signal that ended the command.
		e.result = &sandbox.Result{Error: e.result.Error, Signal: e.result.Signal}
		e.decision.Output = nil
	}
}

// noFailure is the result a shed run keeps (executed.shed) where the
// sandbox said no error and no signal ended the command. It is shared:
// nothing may change it (keepWithin changes a copy).
var noFailure = &sandbox.Result{}

// readsOutput says whether an expectation of c reads the run's whole
// output (captured) or its parse (Decision.Output).
func readsOutput(c *Check) bool {
	for _, x := range c.Expect {
		switch x.Kind {
		case ExpStdoutContains, ExpStderrContains, ExpStdoutMatches, ExpStderrMatches, ExpJSON:
			return true
		}
	}
	return false
}

// cutShort says why the timeout a run of p waits is shorter than the one
// Claude Code gives its hook (its own, else Claude Code's default for a
// command hook, maxHookTimeout); "" where it is not shorter. A command
// check, which Claude Code never runs, is cut short by any timeout.
func (s *runSettings) cutShort(p *plannedRun) string {
	timeout, capped := s.timeoutOf(p)
	if p.Check != nil && p.Check.Command != "" {
		return "it was ended at the check's timeout of " + report.ShortDuration(timeout) + " before it finished"
	}
	claude := claudeWait(p.Hook)
	switch {
	case timeout >= claude:
		return ""
	case capped != "":
		return "it was ended at " + report.ShortDuration(timeout) + ": " + capped
	case p.Timeout > 0:
		return fmt.Sprintf("it was ended at the check's timeout of %s, and Claude Code would wait %s for it", report.ShortDuration(timeout), report.ShortDuration(claude))
	case p.Hook.Timeout > 0:
		return fmt.Sprintf("it was ended at %s, and Claude Code would wait its own timeout of %s for it", report.ShortDuration(timeout), report.ShortDuration(claude))
	}
	return fmt.Sprintf("it was ended at %s (defaults.timeout, else vigiles' default), and it sets no timeout of its own, so Claude Code would wait %s for it (its default for %s)", report.ShortDuration(timeout), report.ShortDuration(claude), p.Hook.Event)
}

// timedOut is the reason of a run of p that its timeout ended after ms
// milliseconds: at Claude Code's wait, what the agent does then; at
// vigiles' bound, sooner, when Claude Code would end the hook and how to
// give the audit that long; past Claude Code's (SessionEnd), when
// Claude Code would have ended it.
func (s *runSettings) timedOut(p *plannedRun, ms float64) string {
	timeout, capped := s.timeoutOf(p)
	claude := claudeWait(p.Hook)
	after := fmt.Sprintf("timed out after %.0f ms", ms)
	// What Claude Code does with the call when it cancels the hook: its
	// handler's onFailure block blocks it where exit 2 would.
	then, blocks := "the agent cancels the hook and carries on", ""
	switch {
	case p.Hook.Event == PreModelSwitch && !p.Hook.Async:
		// hooks.md, "Timeouts": a PreModelSwitch hook cancelled at its
		// timeout blocks the switch.
		then = "the agent cancels the hook and blocks the model switch, as it does whenever a PreModelSwitch hook times out"
		blocks = "; Claude Code blocks the model switch when a PreModelSwitch hook times out"
	case p.Hook.FailBlocks && !p.Hook.Async && blocksOnFailure(p.Hook.Event, p.Payload.Tool):
		then = "the agent cancels the hook and, as its onFailure block says, blocks the call"
		blocks = "; its onFailure block makes Claude Code block the call when the hook times out"
	}
	switch s.boundOf(p) {
	case commandBound:
		return fmt.Sprintf("%s, at %s, %s; the agent cancels a hook at its timeout and carries on", after, report.ShortDuration(timeout), s.waitedWhy(p))
	case soonerBound:
		ended := fmt.Sprintf("it waited %s, %s", report.ShortDuration(timeout), s.waitedWhy(p))
		if capped != "" {
			ended = capped
		}
		return fmt.Sprintf("%s, at vigiles' bound, not Claude Code's: %s, and Claude Code would still be waiting for it (it waits up to %s, %s); %s%s",
			after, ended, report.ShortDuration(claude), claudeWhy(p.Hook), raiseTimeout(p, claude), blocks)
	case longerBound:
		return fmt.Sprintf("%s, at %s, %s: Claude Code would have ended it at %s (%s), and vigiles let it run longer to record what it does%s",
			after, report.ShortDuration(timeout), s.waitedWhy(p), report.ShortDuration(claude), claudeWhy(p.Hook), blocks)
	}
	if capped != "" {
		// Cut to Claude Code's wait: say that the wait was not the
		// policy's.
		return after + "; " + then + " (" + capped + ")"
	}
	return after + "; " + then
}

// waitedWhy says where chosenTimeout's wait for a run of p comes from,
// where it is not a cap of the hook's own timeout.
func (s *runSettings) waitedWhy(p *plannedRun) string {
	switch {
	case p.Timeout > 0:
		return "the check's timeout"
	case p.Hook.Timeout > 0:
		return "its own timeout"
	case s.timeout > 0:
		return "the policy's defaults.timeout"
	}
	return "vigiles' default audit budget (the policy sets no defaults.timeout)"
}

// raiseTimeout says how to give a run of p the wait Claude Code gives
// its hook: the check's timeout, where it sets one (it comes first),
// else defaults.timeout too; up to the longest the policy takes.
func raiseTimeout(p *plannedRun, claude time.Duration) string {
	how := "to audit it that long"
	if claude > maxPolicyDuration {
		how, claude = "to audit it as long as vigiles can", maxPolicyDuration
	}
	wait := report.ShortDuration(claude)
	switch {
	case p.Timeout > 0:
		return fmt.Sprintf("%s, give the check timeout: %s", how, wait)
	case p.Check != nil:
		return fmt.Sprintf("%s, give the check timeout: %s, or set defaults.timeout: %s in .vigiles.yml", how, wait, wait)
	}
	return fmt.Sprintf("%s, set defaults.timeout: %s in .vigiles.yml", how, wait)
}

// outputText is a run's output as text: the raw bytes when the result
// carries them (invalid UTF-8 replaced), else the string, decoded when the
// result had to base64 it.
func outputText(raw []byte, s, encoding string) string {
	return strings.ToValidUTF8(string(outputBytes(raw, s, encoding)), "\uFFFD")
}

// outputBytes is a run's output as the hook wrote it: the raw bytes when
// the result carries them, else the string, decoded when the result had to
// base64 it (output that is not valid UTF-8: one stray byte must not turn
// what a hook decides, or the reason it blocks with, into base64).
func outputBytes(raw []byte, s, encoding string) []byte {
	if raw != nil {
		return raw
	}
	if encoding == "base64" {
		if b, err := base64.StdEncoding.DecodeString(s); err == nil {
			return b
		}
	}
	return []byte(s)
}

// stderrText is a finished run's stderr as text (outputText).
func stderrText(res *sandbox.Result) string {
	return outputText(res.StderrBytes(), res.Stderr, res.StderrEncoding)
}

func clipOutput(s string) string {
	if len(s) <= reportOutputCap {
		return s
	}
	cut := runeStart(s, reportOutputCap)
	return s[:cut] + fmt.Sprintf("\n… (%d bytes more not kept in the report)", len(s)-cut)
}

// sortedWrites is writes ordered by path, then op, keeping nil as nil and
// entries that compare equal in their order. It sorts ws itself, the
// run's own result (which Replace has already rewritten), and leaves it
// as it is where it is in order already, as the init lists a record of
// one area: a record of a million files was copied whole (92 MiB) while
// the one it was copied from was still to be collected.
func sortedWrites(ws []evidence.Write) []evidence.Write {
	if !slices.IsSortedFunc(ws, compareWrites) {
		slices.SortStableFunc(ws, compareWrites)
	}
	return ws
}

// compareWrites orders writes by path, then op.
func compareWrites(a, b evidence.Write) int {
	if c := strings.Compare(a.Path, b.Path); c != 0 {
		return c
	}
	return strings.Compare(string(a.Op), string(b.Op))
}

// sortedEgress copies and sorts egress entries, keeping nil as nil: by
// destination, then by every other field the record keeps entries apart
// by (its address, whether the wall let it through, a proxy request's
// method and path), so that the order is the same whatever order the
// hook tried them in. The record lists them by first attempt, and a hook
// that asks one host for /a and /b in either order, or a name's two
// addresses, would otherwise have its report differ from run to run.
func sortedEgress(es []evidence.Egress) []evidence.Egress {
	if es == nil {
		return nil
	}
	out := append([]evidence.Egress{}, es...)
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		switch {
		case egressHost(a) != egressHost(b):
			return egressHost(a) < egressHost(b)
		case a.Port != b.Port:
			return a.Port < b.Port
		case a.Via != b.Via:
			return a.Via < b.Via
		case a.Proto != b.Proto:
			return a.Proto < b.Proto
		case a.Host != b.Host:
			return a.Host < b.Host
		case a.IP != b.IP:
			return a.IP < b.IP
		case a.Allowed != b.Allowed:
			return !a.Allowed
		case a.Detail != b.Detail:
			return a.Detail < b.Detail
		case a.Attempts != b.Attempts:
			return a.Attempts < b.Attempts
		case a.Packets != b.Packets:
			return a.Packets < b.Packets
		}
		return a.Bytes < b.Bytes
	})
	return out
}

// egressHost names a destination: its host name, else its address.
func egressHost(e evidence.Egress) string {
	if e.Host != "" {
		return e.Host
	}
	return e.IP
}

// progressText is a name a plugin or a policy chose (a plugin, an event,
// a tool, a check) as the progress lines show it: each character that
// could end, hide or reorder the line, or act on a terminal, as the escape
// errors and the text reports show it (evidence.Escape: \u000d for a CR,
// \u0008 for a backspace, \u001b for ESC, \u202e for a bidi override,
// \u009b for a C1 CSI, \xff for a byte that is not UTF-8), and each
// backslash as \\, so that a name spelt a\u000d reads apart from a and a
// CR, where '?' for each showed a\rb and a?b alike. A name that holds
// what the line's own words are told apart by (progressQuoted) is in
// double quotes. A name longer than maxProgressName bytes shown is cut at
// its end, never inside an escape, and ends "…".
func progressText(s string) string {
	shown, quoted := progressShown(s)
	out := strings.Join(shown, "")
	if len(out) > maxProgressName {
		var b strings.Builder
		for _, p := range shown {
			if b.Len()+len(p) > maxProgressName-len("…") {
				break
			}
			b.WriteString(p)
		}
		out = b.String() + "…"
	}
	if quoted {
		return `"` + out + `"`
	}
	return out
}

// progressPath is progressText for a path: one longer than
// maxProgressPath bytes shown is cut at its start, as its end (the file)
// tells paths apart.
func progressPath(s string) string {
	shown, quoted := progressShown(s)
	out := strings.Join(shown, "")
	if len(out) > maxProgressPath {
		k, n := len(shown), len("…")
		for k > 0 && n+len(shown[k-1]) <= maxProgressPath {
			k--
			n += len(shown[k])
		}
		out = "…" + strings.Join(shown[k:], "")
	}
	if quoted {
		return `"` + out + `"`
	}
	return out
}

// The most bytes of a name and of a path a progress line shows, quotes
// aside.
const (
	maxProgressName = 80
	maxProgressPath = 120
)

// progressQuoted reports whether progressText quotes s: where it holds
// what a progress line's own words are told apart by, a ':' (before a
// run's outcome: "check x: allowed (confined, 5ms)" named so would read
// as a pass before the line's own "blocked"), a ',' or a ';' (between the
// runs a line names, and before how far the work got), a parenthesis
// (around a run's tier and time), or a double quote; is empty, or has
// space at either end.
func progressQuoted(s string) bool {
	return s == "" || strings.TrimSpace(s) != s || strings.ContainsAny(s, `:,;()"`)
}

// progressShown is each character of s as progressText shows it, and
// whether it is quoted: then each double quote of it is \".
func progressShown(s string) ([]string, bool) {
	quoted := progressQuoted(s)
	shown := make([]string, 0, len(s))
	for i, r := range s {
		if esc, ok := evidence.Escape(s, i, r); ok {
			shown = append(shown, esc)
		} else if r == '\\' {
			shown = append(shown, `\\`)
		} else if r == '"' && quoted {
			shown = append(shown, `\"`)
		} else {
			shown = append(shown, string(r))
		}
	}
	return shown, quoted
}

// printable is untrusted text (a run id, a report's command or tool) as
// the errors that name it and a finding's list of run ids show it: as a
// progress line shows a name (progressShown), each character that could
// break or reorder the line as its escape and each backslash as \\, so
// that a\rb and a?b show apart, where '?' showed both as a?b; in double
// quotes where it is empty or holds what the text around it is told
// apart by (a ',' between ids, a parenthesis around the list). One longer
// than maxProgressName bytes shown is cut there, never inside an escape,
// saying how many bytes of it are left out, as cutBytes does.
func printable(s string) string {
	shown, quoted := progressShown(s)
	out := strings.Join(shown, "")
	if len(out) > maxProgressName {
		// progressShown gives one piece for each character of s, in
		// the order range gives them.
		var b strings.Builder
		k := 0
		for i := range s {
			if b.Len()+len(shown[k]) > maxProgressName {
				if more := fmt.Sprintf("… (%d bytes more)", len(s)-i); b.Len()+len(more) < len(out) {
					out = b.String() + more
				}
				break
			}
			b.WriteString(shown[k])
			k++
		}
	}
	if quoted {
		return `"` + out + `"`
	}
	return out
}
