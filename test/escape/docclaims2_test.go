package escape

import (
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// The tests in this file show more claims of docs/security.md's table of
// attempts that the escape suite's other tests left unshown, as
// docclaims_test.go does: each names the row it stands for.

// countingUnix listens on the unix socket path, open to every uid, and
// counts the connections the host side accepts on it.
func countingUnix(t *testing.T, path string) *atomic.Int64 {
	t.Helper()
	l, err := net.Listen("unix", path)
	if err != nil {
		t.Fatalf("listening on %s: %v", path, err)
	}
	t.Cleanup(func() { l.Close() })
	if err := os.Chmod(path, 0o777); err != nil {
		t.Fatal(err)
	}
	var n atomic.Int64
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			n.Add(1)
			c.Write([]byte("vigiles-canary\n"))
			c.Close()
		}
	}()
	return &n
}

// connectEachPy connects to each unix socket its arguments name and prints
// "REACHED PATH" for each connect that succeeds and "refused PATH: ERROR"
// for each that does not. First it connects to a socket of its own in the
// sandbox's /tmp, printing "SELF ok", so that a run in which no connect
// could have worked at all shows as one.
const connectEachPy = `import os, socket, sys
own = "/tmp/vigiles-docclaim-own.sock"
s = socket.socket(socket.AF_UNIX); s.bind(own); s.listen(1)
c = socket.socket(socket.AF_UNIX); c.settimeout(5); c.connect(own); print("SELF ok")
for p in sys.argv[1:]:
    c = socket.socket(socket.AF_UNIX); c.settimeout(5)
    try:
        c.connect(p)
        print("REACHED " + p)
    except OSError as e:
        print("refused %s: %s" % (p, e))
`

// TestDocClaimSocketsTheEnvironmentNamesAreUnreachable shows the row
// "Connect to docker.sock or another host socket … or where SSH_AUTH_SOCK,
// DOCKER_HOST, …, a D-Bus address, GPG_AGENT_INFO … names one", whose
// named sockets TestEscapeSecrets never tried: it named none in the
// caller's environment. Here each is a listening socket of the host's,
// open to every uid, in a directory outside the fixed masks (/var/lib),
// named as a caller's environment names it (SSH_AUTH_SOCK's path,
// GPG_AGENT_INFO's path:pid:protocol, a D-Bus address's unix:path=,
// DOCKER_HOST's unix://, and the sockets inside XDG_RUNTIME_DIR); the
// hook connects to each by its host path and reaches none, and the host
// side accepts no connection, for every caller.
func TestDocClaimSocketsTheEnvironmentNamesAreUnreachable(t *testing.T) {
	requireBwrap(t)
	requireRoot(t, "the sockets are made in /var/lib, outside the fixed masks")
	for _, r := range runners(t) {
		t.Run(r.name, func(t *testing.T) {
			dir := openTempDir(t, "/var/lib", "vigiles-docclaim-socks-")
			runtime := filepath.Join(dir, "runtime")
			if err := os.MkdirAll(filepath.Join(runtime, "podman"), 0o755); err != nil {
				t.Fatal(err)
			}
			if c := r.cred; c != nil {
				// The caller's runtime directory is its own.
				for _, p := range []string{runtime, filepath.Join(runtime, "podman")} {
					if err := os.Chown(p, int(c.Uid), int(c.Gid)); err != nil {
						t.Fatal(err)
					}
				}
			}
			socks := map[string]string{
				"SSH_AUTH_SOCK":            filepath.Join(dir, "ssh-agent.sock"),
				"GPG_AGENT_INFO":           filepath.Join(dir, "S.gpg-agent"),
				"DBUS_SESSION_BUS_ADDRESS": filepath.Join(dir, "dbus-session"),
				"DOCKER_HOST":              filepath.Join(dir, "docker.sock"),
				"XDG_RUNTIME_DIR bus":      filepath.Join(runtime, "bus"),
				"XDG_RUNTIME_DIR podman":   filepath.Join(runtime, "podman", "podman.sock"),
			}
			accepted := map[string]*atomic.Int64{}
			var paths []string
			for name, p := range socks {
				accepted[name] = countingUnix(t, p)
				paths = append(paths, p)
			}
			env := []string{
				"SSH_AUTH_SOCK=" + socks["SSH_AUTH_SOCK"],
				"GPG_AGENT_INFO=" + socks["GPG_AGENT_INFO"] + ":4242:1",
				"DBUS_SESSION_BUS_ADDRESS=unix:path=" + socks["DBUS_SESSION_BUS_ADDRESS"] + ",guid=0123",
				"DOCKER_HOST=unix://" + socks["DOCKER_HOST"],
				"XDG_RUNTIME_DIR=" + runtime,
			}
			wt := workTree(t)
			if err := os.WriteFile(filepath.Join(wt, "connect.py"), []byte(connectEachPy), 0o755); err != nil {
				t.Fatal(err)
			}
			res := vigiles(t, r, wt, env, append([]string{"--", "python3", "connect.py"}, paths...)...)
			if res.Error != "" {
				t.Fatalf("error %q\nstderr %s", res.Error, res.Stderr)
			}
			if !strings.Contains(res.Stdout, "SELF ok\n") {
				t.Fatalf("the hook could not connect to a socket of its own, so the test shows nothing: stdout %q stderr %q", res.Stdout, res.Stderr)
			}
			for _, p := range paths {
				if !strings.Contains(res.Stdout, "refused "+p+": ") {
					t.Errorf("the hook's connect to %s was not refused: stdout %q", p, res.Stdout)
				}
			}
			for name, n := range accepted {
				if got := n.Load(); got != 0 {
					t.Errorf("%s's socket %s accepted %d connections from the run", name, socks[name], got)
				}
			}
		})
	}
}

// TestDocClaimNothingTriedIsEmptyNotNull shows docs/report-format.md's
// "`null` means not recorded, `[]` recorded and nothing was tried" for a
// confined run of the real binary in each egress mode, for every caller:
// a command that writes nothing and tries nothing has "writes": [] and
// "egress": [], never null (pkg/sandbox's TestNullVersusEmpty shows the
// null of a direct run, and cannot show egress, which that package runs
// without its network layer); one that asks for a name has an egress
// entry, so the [] is a record that could have held one.
func TestDocClaimNothingTriedIsEmptyNotNull(t *testing.T) {
	requireBwrap(t)
	for _, r := range runners(t) {
		for _, mode := range []string{"deny", "record"} {
			t.Run(r.name+"/"+mode, func(t *testing.T) {
				res := vigiles(t, r, workTree(t), nil, "--egress", mode, "--", "true")
				if res.Error != "" {
					t.Fatalf("error %q", res.Error)
				}
				var doc map[string]json.RawMessage
				if err := json.Unmarshal([]byte(res.raw), &doc); err != nil {
					t.Fatal(err)
				}
				if string(doc["writes"]) != "[]" || string(doc["egress"]) != "[]" {
					t.Errorf("a run that did nothing: writes %s egress %s, want [] and []", doc["writes"], doc["egress"])
				}
				res = vigiles(t, r, workTree(t), nil, "--egress", mode, "--", "python3", "-c",
					"import socket\ntry: socket.getaddrinfo('docclaim.example.test', 443)\nexcept OSError: pass")
				if err := json.Unmarshal([]byte(res.raw), &doc); err != nil {
					t.Fatal(err)
				}
				if !strings.Contains(string(doc["egress"]), "docclaim.example.test") {
					t.Errorf("a run that asked for a name: egress %s, want it named", doc["egress"])
				}
			})
		}
	}
}
