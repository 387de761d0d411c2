package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/vigiles/action/bench/internal/procstat"
)

type binaries []string

func (b *binaries) String() string     { return strings.Join(*b, ",") }
func (b *binaries) Set(s string) error { *b = append(*b, s); return nil }

func main() {
	var bins binaries
	flag.Var(&bins, "vigiles", "a vigiles binary (repeatable: the first is the one the others are compared with)")
	ns := flag.String("n", "10000,100000,1000000", "the numbers of files, comma-separated")
	rounds := flag.Int("rounds", 1, "runs of each binary for each number (the median is reported)")
	command := flag.String("command", "run", "the command measured: run (run --json), test (test --format json, one check) or merge (merge of two shards' JSON reports)")
	flag.Parse()
	if len(bins) == 0 {
		bins = binaries{"bin/vigiles"}
	}
	if *command != "run" && *command != "test" && *command != "merge" {
		fmt.Fprintf(os.Stderr, "vwritemem: -command %q: want run, test or merge\n", *command)
		os.Exit(2)
	}
	if err := run(bins, *command, *ns, *rounds); err != nil {
		fmt.Fprintln(os.Stderr, "vwritemem:", err)
		os.Exit(1)
	}
}

func run(bins []string, command, ns string, rounds int) error {
	for i, b := range bins {
		abs, err := filepath.Abs(b) // the runs are in a work tree of their own
		if err != nil {
			return err
		}
		bins[i] = abs
	}
	fmt.Println("| files | " + strings.Join(bins, " | ") + " |")
	fmt.Println("|---|" + strings.Repeat("---|", len(bins)))
	for _, f := range strings.Split(ns, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return fmt.Errorf("-n %q: want whole numbers above 0", ns)
		}
		peaks := make([][]int64, len(bins))
		docs := make([][]byte, len(bins))
		var shards []string
		shardDir := ""
		if command == "merge" {
			// Written once, by the first binary: every binary merges
			// the same reports, which go once N is measured.
			var err error
			if shardDir, err = os.MkdirTemp("", "vwritemem-shards-"); err != nil {
				return err
			}
			defer os.RemoveAll(shardDir) // on an error
			if shards, err = writeShards(bins[0], shardDir, n); err != nil {
				return fmt.Errorf("%s, %d files: writing the shards: %w", bins[0], n, err)
			}
		}
		for r := 0; r < rounds; r++ {
			for i, bin := range bins {
				kib, doc, err := measure(bin, command, n, shards)
				if err != nil {
					return fmt.Errorf("%s, %d files: %w", bin, n, err)
				}
				peaks[i] = append(peaks[i], kib)
				docs[i] = doc
			}
		}
		if shardDir != "" {
			os.RemoveAll(shardDir)
		}
		row := fmt.Sprintf("| %d |", n)
		first := median(peaks[0])
		for i := range bins {
			if !bytes.Equal(docs[i], docs[0]) {
				return fmt.Errorf("%d files: %s wrote another document than %s", n, bins[i], bins[0])
			}
			m := median(peaks[i])
			row += fmt.Sprintf(" %.1f MiB (%.2f ×) |", float64(m)/1024, float64(m)/float64(first))
		}
		fmt.Println(row)
	}
	return nil
}

// What differs from run to run (a run's duration) and from binary to
// binary (the tool's version in a report).
var (
	duration = regexp.MustCompile(`(?m)^ *"durationMs": .*\n`)
	version  = regexp.MustCompile(`(?m)^    "version": .*\n`)
)

// The work tree of -command test: one plugin, whose Stop hook makes the
// files, and one check of it (%d: the number of files).
var testTree = map[string]string{
	".claude-plugin/marketplace.json":       `{"name": "m", "owner": {"name": "o"}, "plugins": [{"name": "mk", "source": "./plugins/mk"}]}`,
	"plugins/mk/.claude-plugin/plugin.json": `{"name": "mk", "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "mkdir d && cd d && seq 1 %d | xargs touch"}]}]}}`,
	".vigiles.yml": `version: 1
defaults:
  timeout: 20m
plugins:
  untrusted: ["plugins/*"]
checks:
  - name: mk makes its files
    hook: mk
    event: Stop
    expect:
      allowed: true
      wrote-only: ["d/**"]
`,
}

// The work tree of -command merge's shards: the plugin of testTree and a
// second, whose Stop hook writes nothing, so that each of two shards has
// a run, and a check of each.
var mergeTree = map[string]string{
	".claude-plugin/marketplace.json":       `{"name": "m", "owner": {"name": "o"}, "plugins": [{"name": "mk", "source": "./plugins/mk"}, {"name": "no", "source": "./plugins/no"}]}`,
	"plugins/mk/.claude-plugin/plugin.json": testTree["plugins/mk/.claude-plugin/plugin.json"],
	"plugins/no/.claude-plugin/plugin.json": `{"name": "no", "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}}`,
	".vigiles.yml": testTree[".vigiles.yml"] + `  - name: no writes nothing
    hook: no
    event: Stop
    expect:
      allowed: true
      wrote-only: []
`,
}

// writeTree writes the files of tree into dir, n put in for its %d.
func writeTree(dir string, tree map[string]string, n int) error {
	for name, text := range tree {
		if strings.Contains(text, "%d") {
			text = fmt.Sprintf(text, n)
		}
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(name)), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// writeShards has bin write the two shard reports of mergeTree's test
// into dir, and returns their paths.
func writeShards(bin, dir string, n int) ([]string, error) {
	tree := filepath.Join(dir, "tree")
	if err := writeTree(tree, mergeTree, n); err != nil {
		return nil, err
	}
	var shards []string
	for _, s := range []string{"1/2", "2/2"} {
		out := filepath.Join(dir, "shard-"+s[:1]+".json")
		cmd := exec.Command(bin, "test", "--shard", s, "--format", "json", "--output", out)
		cmd.Dir = tree
		cmd.Stderr = os.Stderr
		if err := cmd.Run(); err != nil {
			return nil, fmt.Errorf("test --shard %s: %w", s, err)
		}
		shards = append(shards, out)
	}
	return shards, nil
}

// measure runs bin on n files in a new work tree (merge: on the shard
// reports of n files) and returns the broker's peak RSS in KiB and its
// document, durationMs and the version left out.
func measure(bin, command string, n int, shards []string) (int64, []byte, error) {
	dir, err := os.MkdirTemp("", "vwritemem-")
	if err != nil {
		return 0, nil, err
	}
	defer os.RemoveAll(dir)
	var cmd *exec.Cmd
	switch command {
	case "test":
		if err := writeTree(dir, testTree, n); err != nil {
			return 0, nil, err
		}
		cmd = exec.Command(bin, "test", "--format", "json")
	case "merge":
		cmd = exec.Command(bin, append([]string{"merge", "--format", "json"}, shards...)...)
	default:
		script := fmt.Sprintf("mkdir d && cd d && seq 1 %d | xargs touch", n)
		cmd = exec.Command(bin, "run", "--json", "--timeout", "20m", "--", "sh", "-c", script)
	}
	cmd.Dir = dir
	cmd.Stderr = os.Stderr
	r, w, err := os.Pipe()
	if err != nil {
		return 0, nil, err
	}
	defer r.Close()
	cmd.Stdout = w
	if err := cmd.Start(); err != nil {
		w.Close()
		return 0, nil, err
	}
	w.Close()
	pid := cmd.Process.Pid
	var peak int64
	var doc bytes.Buffer
	chunk := make([]byte, 64<<10)
	full := false
	for {
		peak = max(peak, procstat.VmHWM(pid))
		inq, _ := unix.IoctlGetInt(int(r.Fd()), unix.TIOCINQ)
		if !full && inq >= 60<<10 {
			// Its stdout is full for the first time: a broker that
			// makes its document whole has made it.
			full = true
			time.Sleep(20 * time.Millisecond)
			peak = max(peak, procstat.VmHWM(pid))
		}
		if inq > 0 {
			// Read what is there (never blocking: it is there), and
			// read VmHWM again before the next read lets it go on.
			m, err := r.Read(chunk[:min(inq, len(chunk))])
			doc.Write(chunk[:m])
			if err != nil {
				return 0, nil, err
			}
			continue
		}
		var si unix.Siginfo
		if err := unix.Waitid(unix.P_PID, pid, &si, unix.WEXITED|unix.WNOHANG|unix.WNOWAIT, nil); err == nil && si.Signo != 0 {
			break // ended (its last VmHWM was read above)
		}
		time.Sleep(2 * time.Millisecond)
	}
	_, err = doc.ReadFrom(r)
	if werr := cmd.Wait(); werr != nil {
		return 0, nil, fmt.Errorf("%w: %.300s", werr, doc.Bytes())
	}
	if err != nil {
		return 0, nil, err
	}
	if c := bytes.Count(doc.Bytes(), []byte(`"op": "create"`)); c != n {
		return 0, nil, fmt.Errorf("%d creates, not %d: %.300s", c, n, doc.Bytes())
	}
	return peak, version.ReplaceAll(duration.ReplaceAll(doc.Bytes(), nil), nil), nil
}

func median(v []int64) int64 {
	s := append([]int64(nil), v...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}
