package escape

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// Round thirty-three: the runner's tool cache as the sandbox shows it
// since it is bound from the host's view, shown in the caller's HOME and
// handed id-mapped to a root caller's sandbox of its own uid, attacked.
//
// The holes found and fixed:
//
//   - A root caller's tool cache handed id-mapped to a sandbox of its own
//     uid (a root-owned tree without --root-sandbox) made root's files
//     there the sandbox's uid 0's to read, and the masks are decided by
//     what that uid may read: a root-only credential file the caller's
//     environment names there (KUBECONFIG, mode 0600) and a root-only
//     directory it names there (XDG_CONFIG_HOME, 0700) were left
//     unmasked, and the hook read both. Such a tool cache now stays as
//     the read-only root shows it, another beside it is still handed
//     (TestRedteam33IDMappedToolCacheHidesWhatTheRunHides).
//   - A tool cache in the caller's HOME is bound whole from the host, and
//     the run knows what HOME holds only as HOME, masked whole: a
//     variable naming one of HOME's dot-directories (RUNNER_TOOL_CACHE=
//     ~/.claude) showed Claude Code's login (.credentials.json) to the
//     hook. One that is or lies in a dot-directory of HOME is no longer
//     shown (TestRedteam33ToolCacheInAHomeDotDirIsNotShown).
//
// Held, and pinned: in the caller's HOME, a write by the command's HOME
// path into the tool cache's mount point, one beside it in a directory
// made for it, the made directories renamed or their mode changed, a tool
// moved out into HOME, the mount point removed or renamed (busy), a
// device node (refused) and a FIFO made there: each record exact, the
// host untouched (TestRedteam33ToolCacheInHomeRecordIsExact); a tool cache
// named with a space and a line break, by "..", or by both variables
// nested, an overlay xattr set through the overlay (stored escaped, the
// directory's change), the lower layer looked for by /run/overlay and
// /proc/1/root, a daemon's root-only socket in a tool cache handed
// id-mapped (an overlay's socket is not the daemon's: refused)
// (TestRedteam33ToolCacheOddNamesXattrsAndSocketsHold).
func TestRedteam33IDMappedToolCacheHidesWhatTheRunHides(t *testing.T) {
	requireBwrap(t)
	requireRoot(t, "a sandbox of a uid of its own, to which root's tool cache is handed id-mapped, is a root caller's")
	stamp := time.Now().UnixNano()
	tools, clean := fmt.Sprintf("/opt/vigiles-rt33s-%d", stamp), fmt.Sprintf("/opt/vigiles-rt33c-%d", stamp)
	t.Cleanup(func() { os.RemoveAll(tools); os.RemoveAll(clean) })
	kube, config := filepath.Join(tools, "kube", "config"), filepath.Join(tools, "config")
	for _, d := range []string{filepath.Dir(kube), filepath.Join(config, "gh"), clean} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(config, 0o700); err != nil {
		t.Fatal(err)
	}
	for p, text := range map[string]string{kube: "client-key-data: SECRET-rt33-kube\n", filepath.Join(config, "gh", "hosts.yml"): "oauth_token: SECRET-rt33-gh\n"} {
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	// root's tree: the sandbox runs as a uid of its own (SandboxUID).
	r := runners(t)[0]
	env := []string{"RUNNER_TOOL_CACHE=" + tools, "AGENT_TOOLSDIRECTORY=" + clean, "KUBECONFIG=" + kube, "XDG_CONFIG_HOME=" + config}
	hook := "cat " + kube + " " + config + "/gh/hosts.yml; echo x > " + clean + "/node; exit 0"
	res, _ := runVigiles(t, r, redteam27Tree(t, nil), env, "--", "sh", "-c", hook)
	if res.Tier != "confined" || res.Refusal != "" || res.Error != "" {
		t.Fatalf("tier %s, refusal %q, error %q\n%s", res.Tier, res.Refusal, res.Error, res.raw)
	}
	if strings.Contains(res.Stdout, "SECRET") {
		t.Errorf("the hook read a secret the run hides through the tool cache: %q", res.Stdout)
	}
	if got, want := res.writeLines(), []string{"create " + clean + "/node"}; !slices.Equal(got, want) {
		t.Errorf("writes %q, want %q: the tool cache without a secret still handed and recorded\n%s", got, want, res.raw)
	}
	if _, err := os.Lstat(filepath.Join(clean, "node")); err == nil {
		t.Errorf("%s/node appeared on the host", clean)
	}
}

func TestRedteam33ToolCacheInAHomeDotDirIsNotShown(t *testing.T) {
	requireBwrap(t)
	type place struct {
		r                 runner
		name, home, tools string
	}
	var places []place
	for _, r := range runners(t) {
		home := fmt.Sprintf("/home/vigiles-rt33d-%d", time.Now().UnixNano())
		places = append(places, place{r, r.name, home, filepath.Join(home, ".claude")})
	}
	if os.Geteuid() == 0 {
		// A root caller's HOME is /root, where the run's own HOME is:
		// its dot-directory (not root's own .claude, which the host may
		// have) holding the tool cache.
		places = append(places, place{runners(t)[0], "root-whose-home-is-/root", "/root", fmt.Sprintf("/root/.vigiles-rt33d-%d/_tool", time.Now().UnixNano())})
	}
	for _, pl := range places {
		t.Run(pl.name, func(t *testing.T) {
			made := pl.home
			if pl.home == "/root" {
				made = filepath.Dir(pl.tools)
			}
			t.Cleanup(func() { os.RemoveAll(made) })
			secret := filepath.Join(pl.tools, ".credentials.json")
			if err := os.MkdirAll(pl.tools, 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(secret, []byte(`{"claudeAiOauth":"SECRET-rt33-claude"}`), 0o600); err != nil {
				t.Fatal(err)
			}
			if pl.r.owner != nil && pl.home != "/root" {
				filepath.Walk(pl.home, func(p string, _ os.FileInfo, _ error) error {
					return os.Lchown(p, int(pl.r.owner.Uid), int(pl.r.owner.Gid))
				})
			}
			res, _ := runVigiles(t, pl.r, redteam27Tree(t, nil), []string{"HOME=" + pl.home, "RUNNER_TOOL_CACHE=" + pl.tools}, "--", "sh", "-c", "cat "+secret+"; ls -a "+pl.tools+"; exit 0")
			if res.Tier != "confined" || res.Refusal != "" || res.Error != "" {
				t.Fatalf("tier %s, refusal %q, error %q\n%s", res.Tier, res.Refusal, res.Error, res.raw)
			}
			if strings.Contains(res.Stdout, "SECRET") || strings.Contains(res.Stdout, "credentials") {
				t.Errorf("the hook read or listed the login in HOME's %s: %q", pl.tools, res.Stdout)
			}
		})
	}
}

func TestRedteam33ToolCacheInHomeRecordIsExact(t *testing.T) {
	requireBwrap(t)
	for _, r := range runners(t) {
		t.Run(r.name, func(t *testing.T) {
			home := fmt.Sprintf("/home/vigiles-rt33h-%d", time.Now().UnixNano())
			t.Cleanup(func() { os.RemoveAll(home) })
			work := filepath.Join(home, "actions-runner", "_work")
			dir, tools := filepath.Join(work, "repo", "repo"), filepath.Join(work, "_tool")
			node := filepath.Join(tools, "node", "node")
			for _, d := range []string{dir, filepath.Dir(node)} {
				if err := os.MkdirAll(d, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.WriteFile(node, []byte("n\n"), 0o755); err != nil {
				t.Fatal(err)
			}
			if r.owner != nil {
				filepath.Walk(home, func(p string, _ os.FileInfo, _ error) error {
					return os.Lchown(p, int(r.owner.Uid), int(r.owner.Gid))
				})
			}
			made := []string{"~/actions-runner", "~/actions-runner/_work", "~/actions-runner/_work/_tool", "~/actions-runner/_work/repo", "~/actions-runner/_work/repo/repo"}
			for _, tc := range []struct {
				hook string
				want []string
			}{
				// By the command's HOME path the mount point is the
				// directory made for it in HOME, not the tool cache.
				{`echo x > "$HOME/actions-runner/_work/_tool/evil"`, []string{"create ~/actions-runner/_work/_tool/evil"}},
				{"echo x > " + work + "/evil", []string{"create ~/actions-runner/_work/evil"}},
				{"mv " + home + "/actions-runner " + home + "/ar2", slices.Concat(prefixAll("delete ", made), []string{"create ~/ar2/_work/_tool", "create ~/ar2/_work/repo/repo"})},
				{"chmod 700 " + home + "/actions-runner", []string{"modify ~/actions-runner"}},
				{"mv " + filepath.Dir(node) + " " + home + "/nodex", []string{"delete " + filepath.Dir(node), "delete " + node, "create ~/nodex/node"}},
				{`rmdir "$HOME/actions-runner/_work/_tool" || mv "$HOME/actions-runner/_work/_tool" "$HOME/t2" || exit 0`, nil},
				{"mknod " + tools + "/mem c 1 1; mkfifo " + tools + "/fifo; exit 0", []string{"create " + tools + "/fifo"}},
			} {
				res, code := runVigiles(t, r, dir, []string{"HOME=" + home, "RUNNER_TOOL_CACHE=" + tools}, "--", "sh", "-c", tc.hook)
				if res.Tier != "confined" || code != 0 || res.Refusal != "" || res.Error != "" {
					t.Fatalf("%q: tier %s, exit %d, refusal %q, error %q\n%s", tc.hook, res.Tier, code, res.Refusal, res.Error, res.raw)
				}
				if got := res.writeLines(); !slices.Equal(got, tc.want) {
					t.Errorf("%q: writes %q, want %q\n%s", tc.hook, got, tc.want, res.raw)
				}
			}
			var left []string
			filepath.Walk(home, func(p string, _ os.FileInfo, _ error) error {
				left = append(left, strings.TrimPrefix(p, home))
				return nil
			})
			want := []string{"", "/actions-runner", "/actions-runner/_work", "/actions-runner/_work/_tool", "/actions-runner/_work/_tool/node", "/actions-runner/_work/_tool/node/node", "/actions-runner/_work/repo", "/actions-runner/_work/repo/repo"}
			if !slices.Equal(left, want) {
				t.Errorf("the host's HOME holds %q, want %q", left, want)
			}
			if b, _ := os.ReadFile(node); string(b) != "n\n" {
				t.Errorf("the host's %s holds %q", node, b)
			}
		})
	}
}

func TestRedteam33ToolCacheOddNamesXattrsAndSocketsHold(t *testing.T) {
	requireBwrap(t)
	requireTools(t, "python3")
	for _, r := range runners(t) {
		t.Run(r.name, func(t *testing.T) {
			tools := fmt.Sprintf("/opt/vigiles rt33\nodd-%d", time.Now().UnixNano())
			t.Cleanup(func() { os.RemoveAll(tools) })
			n := filepath.Join(tools, "node", "n")
			if err := os.MkdirAll(filepath.Dir(n), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(n, []byte("n\n"), 0o755); err != nil {
				t.Fatal(err)
			}
			var sock string
			if r.owner == nil && os.Geteuid() == 0 {
				// root's tree: its tool cache is handed id-mapped, root's
				// daemon's socket there the sandbox's uid 0's to write.
				sock = filepath.Join(tools, "d.sock")
				l, err := net.Listen("unix", sock)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { l.Close() })
				if err := os.Chmod(sock, 0o600); err != nil {
					t.Fatal(err)
				}
				go func() {
					for {
						c, err := l.Accept()
						if err != nil {
							return
						}
						c.Write([]byte("ROOT-DAEMON-ANSWERS\n"))
						c.Close()
					}
				}()
			} else if r.owner != nil {
				filepath.Walk(tools, func(p string, _ os.FileInfo, _ error) error {
					return os.Lchown(p, int(r.owner.Uid), int(r.owner.Gid))
				})
			}
			q := strings.ReplaceAll(tools, "\n", `\n`) // as a Python string
			dir := redteam27Tree(t, nil)
			for _, tc := range []struct {
				env  []string
				hook string
				want []string
			}{
				{[]string{"RUNNER_TOOL_CACHE=" + tools}, "echo x >> '" + n + "'", []string{"modify " + n}},
				{[]string{"RUNNER_TOOL_CACHE=" + tools + "/../" + filepath.Base(tools), "AGENT_TOOLSDIRECTORY=" + tools + "/node"}, "echo x > '" + tools + "/node/m'", []string{"create " + tools + "/node/m"}},
				{[]string{"RUNNER_TOOL_CACHE=" + tools}, `python3 -c "import os; os.setxattr('` + q + `/node', 'user.overlay.opaque', b'y')"`, []string{"modify " + filepath.Dir(n)}},
				{[]string{"RUNNER_TOOL_CACHE=" + tools}, "test -e /run/overlay/toolcache0 && echo SEEN; test -e /proc/1/root/run/overlay/toolcache0/node && echo SEEN; " +
					`[ -z "` + sock + `" ] || python3 -c "import socket; s=socket.socket(socket.AF_UNIX); s.connect('` + strings.ReplaceAll(sock, "\n", `\n`) + `'); print(s.recv(100))" 2>/dev/null; exit 0`, nil},
			} {
				res, code := runVigiles(t, r, dir, tc.env, "--", "sh", "-c", tc.hook)
				if res.Tier != "confined" || code != 0 || res.Refusal != "" || res.Error != "" {
					t.Fatalf("%q: tier %s, exit %d, refusal %q, error %q\n%s", tc.hook, res.Tier, code, res.Refusal, res.Error, res.raw)
				}
				if got := res.writeLines(); !slices.Equal(got, tc.want) {
					t.Errorf("%q: writes %q, want %q\n%s", tc.hook, got, tc.want, res.raw)
				}
				if strings.Contains(res.Stdout, "SEEN") || strings.Contains(res.Stdout, "ROOT-DAEMON") {
					t.Errorf("%q: the hook reached the lower layer or the daemon: %q", tc.hook, res.Stdout)
				}
			}
			var left []string
			filepath.Walk(tools, func(p string, _ os.FileInfo, _ error) error {
				left = append(left, strings.TrimPrefix(p, tools))
				return nil
			})
			want := []string{"", "/node", "/node/n"}
			if sock != "" {
				want = []string{"", "/d.sock", "/node", "/node/n"}
			}
			if !slices.Equal(left, want) {
				t.Errorf("the host's tool cache holds %q, want %q", left, want)
			}
			if b, _ := os.ReadFile(n); string(b) != "n\n" {
				t.Errorf("the host's %q holds %q", n, b)
			}
		})
	}
}

// prefixAll is each of ss with p before it.
func prefixAll(p string, ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = p + s
	}
	return out
}
