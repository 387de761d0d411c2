// Command vwritemem measures the broker's memory for a large write record:
// it runs `vigiles run --json` on a command that makes N empty files in
// one directory of an empty work tree, for each binary given, side by
// side (each N: every binary once per round, in turn), and reports the
// broker's peak RSS (its VmHWM) and the ratio of each binary's to the
// first's. It checks that every binary wrote the same JSON document for
// the same N (durationMs aside, which differs from run to run).
//
// VmHWM is read every 2 ms, and once more when the broker's stdout pipe is
// full: it has then made what it writes, and is held until the last read.
// Only the broker is measured (the init, bubblewrap and the command are
// other processes).
//
//	go run ./bench/cmd/vwritemem -vigiles /tmp/old/bin/vigiles -vigiles bin/vigiles -n 10000,100000,1000000 -rounds 3
package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
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
	flag.Parse()
	if len(bins) == 0 {
		bins = binaries{"bin/vigiles"}
	}
	if err := run(bins, *ns, *rounds); err != nil {
		fmt.Fprintln(os.Stderr, "vwritemem:", err)
		os.Exit(1)
	}
}

func run(bins []string, ns string, rounds int) error {
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
		for r := 0; r < rounds; r++ {
			for i, bin := range bins {
				kib, doc, err := measure(bin, n)
				if err != nil {
					return fmt.Errorf("%s, %d files: %w", bin, n, err)
				}
				peaks[i] = append(peaks[i], kib)
				docs[i] = doc
			}
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

var duration = regexp.MustCompile(`(?m)^  "durationMs": .*\n`)

// measure runs bin on n files in a new work tree and returns the broker's
// peak RSS in KiB and its document, durationMs left out.
func measure(bin string, n int) (int64, []byte, error) {
	dir, err := os.MkdirTemp("", "vwritemem-")
	if err != nil {
		return 0, nil, err
	}
	defer os.RemoveAll(dir)
	script := fmt.Sprintf("mkdir d && cd d && seq 1 %d | xargs touch", n)
	cmd := exec.Command(bin, "run", "--json", "--timeout", "20m", "--", "sh", "-c", script)
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
	for {
		peak = max(peak, procstat.VmHWM(pid))
		if n, _ := unix.IoctlGetInt(int(r.Fd()), unix.TIOCINQ); n >= 60<<10 {
			// Its stdout is full: it has made what it writes.
			time.Sleep(20 * time.Millisecond)
			peak = max(peak, procstat.VmHWM(pid))
			break
		}
		var si unix.Siginfo
		if err := unix.Waitid(unix.P_PID, pid, &si, unix.WEXITED|unix.WNOHANG|unix.WNOWAIT, nil); err == nil && si.Signo != 0 {
			break // ended (its last VmHWM was read above)
		}
		time.Sleep(2 * time.Millisecond)
	}
	doc, err := io.ReadAll(r)
	if werr := cmd.Wait(); werr != nil {
		return 0, nil, fmt.Errorf("%w: %.300s", werr, doc)
	}
	if err != nil {
		return 0, nil, err
	}
	if c := bytes.Count(doc, []byte(`"op": "create"`)); c != n {
		return 0, nil, fmt.Errorf("%d creates, not %d: %.300s", c, n, doc)
	}
	return peak, duration.ReplaceAll(doc, nil), nil
}

func median(v []int64) int64 {
	s := append([]int64(nil), v...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}
