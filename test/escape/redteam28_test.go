package escape

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Round twenty-eight: a hook that tells it runs under vigiles, and behaves.
// A hostile hook that can tell, cheaply and surely, that it runs under
// vigiles rather than under Claude Code on the same machine can behave
// there and misbehave for real. The round ran the same probe (id, the
// environment, its parent and pid 1, the process list, the host name,
// /proc/self/status, uid_map, cgroup, mountinfo, limits and
// oom_score_adj, the network, resolv.conf, /home, /tmp, /run, /dev, the
// session) confined and directly, as root and as nobody, and compared.
//
// Found and removed (a name or a variable vigiles chose, which confines
// nothing):
//
//   - USER=root was set whatever the caller's environment held: a
//     container started as root has no USER, and neither has a hook that
//     Claude Code starts there, so `[ -n "$USER" ]` told vigiles. LOGNAME,
//     SHELL and SHLVL, which a login's shell sets and Claude Code hands
//     its hooks, were never set, so `[ -z "$SHELL" ]` told vigiles on
//     every desktop and CI machine. USER and LOGNAME are now root's (the
//     command is uid 0) where the caller has them and absent where it has
//     not; SHELL passes where the host's /etc/shells lists it, SHLVL as a
//     number (TestRedteam28ShellVariablesAreTheCallers; hookEnv's
//     TestHookEnvFollowsTheCallersShell).
//
// Left, as the confinement itself (no sandbox of this kind hides them):
// uid 0 with no capability and a one-uid uid_map (the host uid in it,
// SandboxUID's 2000000000 and up for a root-owned tree; the host's root
// unmapped, so that / and every root-owned file read as nobody's), no
// controlling terminal (bwrap's --new-session), NoNewPrivs 1 and
// Seccomp 2 in /proc/self/status, a fresh pid namespace (pid 1 the
// reaper, "/sbin/init", the hook's parent, CLAUDE_PID=1, a handful of
// processes), the mount table (read-only /, the masks, the overlay under
// /run/overlay), empty /home, /run, /mnt and HOME, a minimal /dev, a
// network of lo alone (a tap in allow mode) and a resolv.conf naming the
// stub on the loopback, the record mode's proxy variables, the limits
// (RLIMIT_CPU, FSIZE, NOFILE, AS, CORE 1, SIGPENDING 1024) and the
// oom_score_adj of 1000 that makes the command the OOM killer's first
// victim, the run's pids cgroup (/command in /proc/self/cgroup, a
// vigiles-… directory under the read-only /sys/fs/cgroup: named so for
// the host's administrator and the sweep of a killed broker's: a cgroup
// namespace rooted at /command would still leave those directories in
// the host's hierarchies the sandbox shows), pid 1's start time, moments
// before the hook's, and the time a start takes. Left, as the way a run
// is started: the environment's order, sorted where the reaper starts
// the command itself and a shell's own where a shell of vigiles' does (a
// plugin hook's). Left, as choices of the record: HOME is /root (the
// caller's HOME's path shows the same throwaway HOME) and TMPDIR=/tmp
// (hooks name "$TMPDIR/…" and the record names it so), the interpreters'
// cache variables. docs/security.md's *Honest limits* lists them.
func TestRedteam28ShellVariablesAreTheCallers(t *testing.T) {
	requireBwrap(t)
	shell := listedShell(t)
	// What the hook prints: whether USER and LOGNAME are set (their value
	// is the uid's name, root in the sandbox), and SHELL and SHLVL as
	// they are.
	const probe = `printf 'USER=%s LOGNAME=%s SHELL=%s SHLVL=%s\n' "${USER+set}" "${LOGNAME+set}" "${SHELL-unset}" "${SHLVL-unset}"; ` +
		`[ -z "${USER+set}" ] || [ "$USER" = "$(id -un)" ] || echo "USER=$USER, not the uid's name $(id -un)"`
	for _, r := range runners(t) {
		t.Run(r.name, func(t *testing.T) {
			for _, env := range [][]string{
				nil, // a container started as root: none of the four
				{"USER=alice", "LOGNAME=alice", "SHELL=" + shell, "SHLVL=1"}, // a login's shell
				{"USER=alice", "SHELL=" + shell},
			} {
				dir := workTree(t)
				res := vigiles(t, r, dir, env, "--", "sh", "-c", probe)
				direct := directAs(t, r, dir, env, probe)
				// Outside, USER names the caller, whose name the probe
				// does not compare: the first line alone.
				want, _, _ := strings.Cut(direct, "\n")
				if res.ExitCode != 0 || res.Stdout != want+"\n" {
					t.Errorf("caller's environment %q: the confined hook printed %q (exit %d, stderr %q), the same command outside %q",
						env, res.Stdout, res.ExitCode, res.Stderr, want+"\n")
				}
			}
			// A SHELL the host does not list, a SHLVL that is no number:
			// a value that carries anything else stays out.
			res := vigiles(t, r, workTree(t), []string{"SHELL=/tmp/ghp_x", "SHLVL=$(id)"}, "--", "sh", "-c", probe)
			if want := "USER= LOGNAME= SHELL=unset SHLVL=unset\n"; res.Stdout != want {
				t.Errorf("a SHELL and a SHLVL of another shape: the hook printed %q, want %q", res.Stdout, want)
			}
		})
	}
}

// listedShell is the first absolute path the host's /etc/shells lists.
func listedShell(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("/etc/shells")
	if err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if line = strings.TrimSpace(line); strings.HasPrefix(line, "/") {
				return line
			}
		}
	}
	lacking(t, "an /etc/shells that lists a shell")
	return ""
}

// directAs runs `sh -c script` in dir as r, outside any sandbox, with env
// beside PATH, as vigilesAs runs vigiles: what the same command sees
// without vigiles, for the same caller.
func directAs(t *testing.T, r runner, dir string, env []string, script string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", "-c", script)
	cmd.Env = append([]string{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"}, env...)
	cmd.Dir = dir
	if r.cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: r.cred}
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("sh -c %q as %s: %v\n%s", script, r.name, err, out.String())
	}
	return out.String()
}
