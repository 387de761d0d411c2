package runner

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/vigiles/action/internal/allocs"
	"github.com/vigiles/action/pkg/evidence"
	"github.com/vigiles/action/pkg/report"
	"github.com/vigiles/action/pkg/runner/runnertest"
	"github.com/vigiles/action/pkg/sandbox"
	"github.com/vigiles/action/pkg/sandbox/sandboxtest"
)

// benchRepo declares n command hooks spread over four plugins and the
// events that take one payload each, so an audit makes exactly n runs.
func benchRepo(b testing.TB, n int) string {
	files := map[string]string{}
	events := []string{Stop, UserPromptSubmit, SessionEnd, PreCompact}
	per := map[string][]string{}
	for i := 0; i < n; i++ {
		plugin := fmt.Sprintf("plugins/p%d", i%4)
		ev := events[(i/4)%len(events)]
		key := plugin + "\x00" + ev
		// A small, realistic hook: read the event, look at it, answer.
		cmd := fmt.Sprintf(`read -r -d '' ev; case "$ev" in *hook_event_name*) echo '{"continue": true, "n": %d}';; esac`, i)
		per[key] = append(per[key], fmt.Sprintf(`{"type": "command", "command": %q}`, cmd))
	}
	byPlugin := map[string][]string{}
	for key, hs := range per {
		plugin, ev, _ := strings.Cut(key, "\x00")
		byPlugin[plugin] = append(byPlugin[plugin], fmt.Sprintf(`%q: [{"hooks": [%s]}]`, ev, strings.Join(hs, ", ")))
	}
	for plugin, evs := range byPlugin {
		files[plugin+"/hooks/hooks.json"] = `{"hooks": {` + strings.Join(evs, ", ") + `}}`
		files[plugin+"/.claude-plugin/plugin.json"] = fmt.Sprintf(`{"name": %q}`, plugin[len("plugins/"):])
	}
	files[".claude-plugin/marketplace.json"] = `{"name": "bench", "plugins": [` +
		`{"name": "p0", "source": "./plugins/p0"}, {"name": "p1", "source": "./plugins/p1"},` +
		`{"name": "p2", "source": "./plugins/p2"}, {"name": "p3", "source": "./plugins/p3"}]}`
	return makeTree(b, files)
}

// BenchmarkAudit200 audits 200 hooks, each confined by the real sandbox,
// as many at once as there are cores. It reports the wall time of the
// audit and vigiles' own share of it: everything that is not the hooks'
// own run time (sum of hook durations / parallel jobs).
func BenchmarkAudit200(b *testing.B) {
	benchAudit(b, 200, nil)
}

// BenchmarkAudit200Direct is the same audit through a plain fork/exec
// executor, the floor for comparison.
func BenchmarkAudit200Direct(b *testing.B) {
	benchAudit(b, 200, runnertest.Direct{})
}

func benchAudit(b *testing.B, n int, ex Executor) {
	if ex == nil {
		sandboxtest.RequireConfinement(b)
	}
	dir := benchRepo(b, n)
	jobs := runtime.NumCPU()
	var wall, hooks time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		rep, err := Audit(context.Background(), Options{Dir: dir, Executor: ex})
		w := time.Since(start)
		if err != nil {
			b.Fatal(err)
		}
		if len(rep.Runs) != n {
			b.Fatalf("%d runs, want %d", len(rep.Runs), n)
		}
		for _, r := range rep.Runs {
			if r.Outcome != "allowed" {
				b.Fatalf("%s: %s %s", r.ID, r.Outcome, r.Reason)
			}
			hooks += time.Duration(r.DurationMs * float64(time.Millisecond))
		}
		wall += w
	}
	b.StopTimer()
	perOp := wall / time.Duration(b.N)
	hookShare := float64(hooks) / float64(jobs) / float64(wall)
	b.ReportMetric(float64(perOp.Milliseconds()), "wall-ms/op")
	b.ReportMetric(float64(hooks.Milliseconds())/float64(b.N), "hook-ms/op")
	b.ReportMetric(100*(1-hookShare), "own-%")
	b.ReportMetric(float64(perOp.Microseconds())/1000/float64(n), "ms/hook")
	b.ReportMetric(float64(jobs), "jobs")
}

// BenchmarkDiscoverMarketplaceEntries discovers a marketplace whose
// entries, 1,000 and 10,000 of them, all install one plugin directory
// under names of their own: its time per entry should stay flat (each
// entry's names and IDs are kept in sets, not looked up in lists).
func BenchmarkDiscoverMarketplaceEntries(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		entries := make([]string, n)
		for i := range entries {
			entries[i] = fmt.Sprintf(`{"name": "e%d", "source": "./q"}`, i)
		}
		dir := makeTree(b, map[string]string{
			".claude-plugin/marketplace.json": `{"name": "m", "plugins": [` + strings.Join(entries, ", ") + `]}`,
			"q/.claude-plugin/plugin.json":    `{"name": "q"}`,
			"q/hooks/hooks.json":              `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}}`,
		})
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			for b.Loop() {
				if _, err := Audit(context.Background(), Options{Dir: dir, Executor: fakeHooks()}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/entry")
		})
	}
}

// BenchmarkTestWriteRecord runs vigiles test's one check of a Stop hook
// whose record lists n created files (d/1 … d/n, and d), as vwritemem
// -command test does, and reports what Test allocated (alloc-MiB) and
// what its report holds (held-MiB), the record handed over by the
// executor aside: what the runner makes of a record between the init's
// result and the report. Bytes, not times, are what it is for. The
// record is made as the broker reads one (its paths cut from one string,
// sorted as the init sorts them) before each run, outside what is
// measured.
func BenchmarkTestWriteRecord(b *testing.B) {
	dir := makeTree(b, map[string]string{
		".claude-plugin/marketplace.json":       `{"name": "m", "owner": {"name": "o"}, "plugins": [{"name": "mk", "source": "./plugins/mk"}]}`,
		"plugins/mk/.claude-plugin/plugin.json": `{"name": "mk", "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "mkdir d && cd d && seq 1 9 | xargs touch"}]}]}}`,
		".vigiles.yml":                          "version: 1\nplugins:\n  untrusted: [\"plugins/*\"]\nchecks:\n  - name: mk\n    hook: mk\n    event: Stop\n    expect:\n      allowed: true\n      wrote-only: [\"d/**\"]\n",
	})
	for _, n := range []int{100_000, 1_000_000} {
		record := func() *sandbox.Result {
			names := make([]string, n)
			for i := range names {
				names[i] = fmt.Sprintf("d/%d", i+1)
			}
			slices.Sort(names)
			all := "d" + strings.Join(names, "")
			ws := make([]evidence.Write, 0, n+1)
			ws = append(ws, evidence.Write{Path: all[:1], Op: evidence.OpCreate, Kind: "dir"})
			at := 1
			for _, name := range names {
				ws = append(ws, evidence.Write{Path: all[at : at+len(name)], Op: evidence.OpCreate, Kind: "file"})
				at += len(name)
			}
			return &sandbox.Result{Tier: sandbox.TierConfined, WritesMethod: "overlay", Writes: ws, Egress: []evidence.Egress{}}
		}
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			allocs.ReportEach(b, true, func() func() any {
				res := record()
				ex := ExecutorFunc(func(ctx context.Context, spec sandbox.Spec) (*sandbox.Result, error) {
					r := res
					res = nil
					return r, nil
				})
				return func() any {
					rep, err := Test(context.Background(), Options{Dir: dir, Executor: ex})
					if err != nil {
						b.Fatal(err)
					}
					if len(rep.Runs) != 1 || len(rep.Runs[0].Writes) != n+1 || rep.Verdict != report.VerdictPass {
						b.Fatalf("%d runs, verdict %s: %+v", len(rep.Runs), rep.Verdict, rep.Findings)
					}
					return rep
				}
			})
		})
	}
}
