package escape

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vigiles/action/internal/hostprog"
)

// TestAllowRouteOut runs `vigiles run --egress allow` through the binary
// (with slirp4netns, and once with pasta):
// slirp4netns attaches while bubblewrap still sets the sandbox up, and the
// init gives its tap the address and route before the command starts, so
// the command sees a configured route out; an address off the allowlist
// is still refused and recorded. (Nothing leaves the machine: the only
// address tried is a documentation one, and it is refused.)
func TestAllowRouteOut(t *testing.T) {
	requireBwrap(t)
	requireRoot(t, "allow mode is tested as root here (slirp4netns needs /dev/net/tun, which is 0600 on these machines)")
	requireTools(t, "slirp4netns")
	runs := 6
	if _, err := exec.LookPath("pasta"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("pasta is required in CI")
		}
		t.Log("pasta is not installed: its run is left out")
		runs = 5
	}
	hook := `ip -4 -o addr show dev tap0; ip -4 route show default
		(echo hi > /dev/tcp/192.0.2.10/4444) 2>/dev/null
		exit 0`
	for i := 0; i < runs; i++ {
		// Runs 0–4 with slirp4netns; run 5 with pasta, which configures
		// its own interface from the host's and needs the sandbox's
		// namespaces handed to it (the sandbox is not root's).
		connector := "slirp4netns"
		if i == 5 {
			connector = "pasta"
		}
		// 192.0.2.1 alone is allowed (allow mode needs something allowed),
		// not the 192.0.2.10 the hook tries.
		res := vigiles(t, runner{name: "root"}, workTree(t), nil, "--egress", "allow", "--allow-ip", "192.0.2.1/32", "--connector", connector, "--", "bash", "-c", hook)
		if connector == "pasta" {
			if res.ExitCode != 0 || !strings.Contains(res.Stdout, "default via") {
				t.Fatalf("pasta: exit %d; the command did not see pasta's route configured:\n%s\nstderr: %s", res.ExitCode, res.Stdout, res.Stderr)
			}
		} else if res.ExitCode != 0 || !strings.Contains(res.Stdout, "inet 10.0.2.100/24") || !strings.Contains(res.Stdout, "default via 10.0.2.2 dev tap0") {
			t.Fatalf("run %d: exit %d; the command did not see slirp4netns's route configured:\n%s\nstderr: %s", i, res.ExitCode, res.Stdout, res.Stderr)
		}
		var er egressResult
		if err := json.Unmarshal([]byte(res.raw), &er); err != nil {
			t.Fatal(err)
		}
		refused := false
		for _, e := range er.Egress {
			if e.IP == "192.0.2.10" && e.Port == 4444 && !e.Allowed {
				refused = true
			}
			if e.Allowed {
				t.Errorf("run %d: allowed %+v with only 192.0.2.1 allowed", i, e)
			}
		}
		if !refused {
			t.Errorf("run %d: the refused attempt is not recorded: %+v", i, er.Egress)
		}
	}
}

// TestAllowWithoutConnectorRefusesBeforeStarting: with neither
// slirp4netns nor pasta in the system's directories (hidden in a mount
// namespace of the test's), an allow-mode run is refused with the fix, and
// no sandbox is even started (the connector is chosen first): a wrapper
// bound over the system's bwrap would leave a marker.
func TestAllowWithoutConnectorRefusesBeforeStarting(t *testing.T) {
	requireBwrap(t)
	requireRoot(t, "it hides the connectors with bind mounts in a mount namespace of its own")
	real, _ := exec.LookPath("bwrap")
	bin := t.TempDir()
	marker := filepath.Join(t.TempDir(), "bwrap-started")
	// The wrapper runs a copy of bwrap: the system's path is bound over.
	if err := exec.Command("cp", real, filepath.Join(bin, "bwrap.real")).Run(); err != nil {
		t.Fatal(err)
	}
	wrapper := "#!/bin/sh\ntouch " + marker + "\nexec " + filepath.Join(bin, "bwrap.real") + " \"$@\"\n"
	if err := os.WriteFile(filepath.Join(bin, "bwrap"), []byte(wrapper), 0o755); err != nil {
		t.Fatal(err)
	}
	// What vigiles searches (internal/hostprog.Dirs): every connector
	// there is hidden under /dev/null, which is no program.
	hide := "mount --bind " + filepath.Join(bin, "bwrap") + " " + real + "\n"
	for _, d := range hostprog.Dirs {
		for _, c := range []string{"slirp4netns", "pasta"} {
			hide += "if [ -e " + d + "/" + c + " ]; then mount --bind /dev/null " + d + "/" + c + "; fi\n"
		}
	}
	for _, c := range []string{"", "slirp4netns", "pasta"} {
		args := []string{"run", "--json", "--workdir", workTree(t), "--egress", "allow", "--allow-ip", "192.0.2.1/32"}
		if c != "" {
			args = append(args, "--connector", c)
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		sh := "set -e\n" + hide + "exec \"$@\"\n"
		cmd := exec.CommandContext(ctx, "unshare", append([]string{"--mount", "sh", "-c", sh, "sh", vigilesBin}, append(args, "--", "true")...)...)
		cmd.Env = []string{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"}
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		cancel()
		var res result
		if jerr := json.Unmarshal(stdout.Bytes(), &res); jerr != nil {
			t.Fatalf("connector %q: %v; no JSON result (%v)\nstderr: %s", c, err, jerr, stderr.String())
		}
		// The connector's own refusal, not another one that also starts nothing.
		if err == nil || !strings.Contains(res.Refusal, "(Debian/Ubuntu: apt-get install slirp4netns") {
			t.Errorf("connector %q: exit %v, refusal %q: want a refusal that names the fix", c, err, res.Refusal)
		}
		if _, serr := os.Stat(marker); serr == nil {
			t.Fatalf("connector %q: bubblewrap was started for a run that had to be refused", c)
		}
	}
}
