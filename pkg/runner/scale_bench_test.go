package runner

import (
	"bytes"
	"context"
	"fmt"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/vigiles/action/pkg/sandbox"
)

// scaleEvents are the events that take one payload each, so that every
// hook declared on one of them makes exactly one run.
var scaleEvents = []string{Stop, UserPromptSubmit, SessionEnd, PreCompact}

// scaleHooks renders a hooks object of k command hooks spread over
// scaleEvents, each with a command of its own (tag and index), and the
// words fakeHooks reads so that each run writes one file and reaches one
// host.
func scaleHooks(tag string, k int) string {
	per := make([][]string, len(scaleEvents))
	for i := 0; i < k; i++ {
		e := i % len(scaleEvents)
		per[e] = append(per[e], fmt.Sprintf(`{"type": "command", "command": "true %s-%d write:out/%s-%d host:h%d.example.test"}`, tag, i, tag, i, i%7))
	}
	var evs []string
	for e, hs := range per {
		if len(hs) > 0 {
			evs = append(evs, fmt.Sprintf(`%q: [{"hooks": [%s]}]`, scaleEvents[e], strings.Join(hs, ", ")))
		}
	}
	return "{" + strings.Join(evs, ", ") + "}"
}

// scaleTree lays out n command hooks in one of the shapes a large audit
// meets: "market" is one marketplace of n/5 plugins with five hooks each;
// "events" is n/50 plugins, each a hooks.json of fifty hooks over several
// events; "monorepo" is n/4 packages, each a .claude/settings.json of
// four hooks; "skills" is one plugin of n/2 skills, each with two hooks
// in its frontmatter; "plugins" is n plugins of one hook each; "packages"
// is n packages of one hook each; "off" is the "market" marketplace,
// which the root's settings turn off (disableAllHooks) and so do the
// settings of n/4 packages, so that each hook is listed, not run, after
// every package was asked whether it leaves the hook on.
func scaleTree(b testing.TB, shape string, n int) string {
	files := map[string]string{}
	market := func(plugins int, per int) {
		var entries []string
		for p := 0; p < plugins; p++ {
			name := fmt.Sprintf("p%d", p)
			entries = append(entries, fmt.Sprintf(`{"name": %q, "source": "./plugins/%s"}`, name, name))
			files["plugins/"+name+"/.claude-plugin/plugin.json"] = fmt.Sprintf(`{"name": %q}`, name)
			files["plugins/"+name+"/hooks/hooks.json"] = `{"hooks": ` + scaleHooks(name, per) + `}`
		}
		files[".claude-plugin/marketplace.json"] = `{"name": "scale", "plugins": [` + strings.Join(entries, ", ") + `]}`
	}
	switch shape {
	case "market":
		market(n/5, 5)
	case "events":
		market(n/50, 50)
	case "off":
		market(n/5, 5)
		files[".claude/settings.json"] = `{"disableAllHooks": true}`
		for p := 0; p < n/4; p++ {
			files[fmt.Sprintf("packages/p%d/.claude/settings.json", p)] = `{"disableAllHooks": true}`
		}
	case "plugins":
		market(n, 1)
	case "packages":
		for p := 0; p < n; p++ {
			files[fmt.Sprintf("packages/p%d/.claude/settings.json", p)] = `{"hooks": ` + scaleHooks(fmt.Sprint("p", p), 1) + `}`
		}
	case "monorepo":
		for p := 0; p < n/4; p++ {
			files[fmt.Sprintf("packages/p%d/.claude/settings.json", p)] = `{"hooks": ` + scaleHooks(fmt.Sprint("p", p), 4) + `}`
		}
	case "skills":
		files[".claude-plugin/marketplace.json"] = `{"name": "scale", "plugins": [{"name": "sk", "source": "./plugins/sk"}]}`
		files["plugins/sk/.claude-plugin/plugin.json"] = `{"name": "sk"}`
		for s := 0; s < n/2; s++ {
			files[fmt.Sprintf("plugins/sk/skills/s%d/SKILL.md", s)] = fmt.Sprintf("---\nname: s%d\ndescription: skill %d\nhooks:\n"+
				"  Stop:\n    - hooks:\n        - type: command\n          command: true s%d-a write:out/s%d-a host:h%d.example.test\n"+
				"  SessionEnd:\n    - hooks:\n        - type: command\n          command: true s%d-b write:out/s%d-b\n---\nbody\n", s, s, s, s, s%7, s, s)
		}
	default:
		b.Fatalf("unknown shape %q", shape)
	}
	return makeTree(b, files)
}

// BenchmarkAuditScale audits trees of 100, 1,000 and 10,000 command hooks
// in each shape of scaleTree through canned hooks (no sandbox): what
// vigiles does around the runs, discovery, the plan, the records'
// checks and the report, whose time per hook should stay flat as the
// tree grows. live-KiB/hook is what the audit holds on the heap as its
// last run starts (after a collection), less what was there before it,
// per hook: the plan, the hooks and the records kept for the report,
// which should stay flat too (each run's identity, kept in the plan
// after its record was restored, made it 8.6 KiB a hook at 10,000 hooks,
// where it was 3.2 KiB without; without the payloads' input and the
// result each run kept too, 2.1 KiB in the marketplace). peak-live-KiB/hook
// is the largest live heap a collection found during the audit
// (peakLive), less the same, per hook: it was the grouping of the runs'
// findings after the last run, which copied each run's entry twice (5.7
// KiB a hook in the marketplace of 10,000 hooks, 3.4 KiB since). Go's
// collector lets the heap grow to about twice that before it collects
// again: what the broker's RSS follows. It depends on when collections
// fall, so it is noisier than live-KiB/hook, at 1,000 hooks most.
func BenchmarkAuditScale(b *testing.B) {
	for _, shape := range []string{"market", "events", "monorepo", "skills", "plugins", "packages", "off"} {
		for _, n := range []int{100, 1000, 10000} {
			b.Run(fmt.Sprintf("%s/hooks=%d", shape, n), func(b *testing.B) {
				// Laid out here, not for every shape and size before the
				// -bench pattern picks some.
				dir := scaleTree(b, shape, n)
				b.ReportAllocs()
				var live, peak float64
				measured := 0
				for b.Loop() {
					var before runtime.MemStats
					runtime.GC()
					runtime.ReadMemStats(&before)
					ex, last := leanHooks(n)
					stop := peakLive()
					rep, err := Audit(context.Background(), Options{Dir: dir, Executor: ex})
					top := stop()
					if err != nil {
						b.Fatal(err)
					}
					if len(rep.Runs) != n {
						b.Fatalf("%d runs, want %d", len(rep.Runs), n)
					}
					peak += float64(int64(top)-int64(before.HeapAlloc)) / 1024 / float64(n)
					if at := last.Load(); at > 0 { // not where every hook is listed, none run
						live += float64(int64(at)-int64(before.HeapAlloc)) / 1024 / float64(n)
						measured++
					}
				}
				b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/float64(n), "µs/hook")
				if measured > 0 {
					b.ReportMetric(live/float64(measured), "live-KiB/hook")
				}
				b.ReportMetric(peak/float64(b.N), "peak-live-KiB/hook")
			})
		}
	}
}

// leanHooks answers as fakeHooks does, keeping no spec nor input of its
// own (fakeHooks' Canned keeps each run's, which would be counted as the
// audit's), and stores the live heap, after a collection, as its n-th
// run starts.
func leanHooks(n int) (Executor, *atomic.Uint64) {
	f := fakeHooks().F
	var count atomic.Int64
	var live atomic.Uint64
	return ExecutorFunc(func(ctx context.Context, spec sandbox.Spec) (*sandbox.Result, error) {
		var in []byte
		if spec.Stdin != nil {
			var buf bytes.Buffer
			buf.ReadFrom(spec.Stdin)
			in = buf.Bytes()
		}
		if count.Add(1) == int64(n) {
			var m runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&m)
			live.Store(m.HeapAlloc)
		}
		return f(spec, in)
	}), &live
}

// peakLive follows the live heap that each collection finds from its
// call until stop is called, which returns the largest. A finalizer
// runs after the collection that found its object unreachable, and this
// one sets another on a new object each time, so that it runs once a
// collection and reads the heap that collection marked
// (/gc/heap/live:bytes). It is the heap Go's collector sizes its next
// goal from (twice it, at the default GOGC), which the process's RSS
// follows. A collection whose finalizer runs only after the next one's
// is not read: the peak is a bound from below.
func peakLive() (stop func() uint64) {
	var (
		peak atomic.Uint64
		done atomic.Bool
		arm  func()
	)
	read := func() {
		s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
		metrics.Read(s)
		v := s[0].Value.Uint64()
		for {
			if was := peak.Load(); v <= was || peak.CompareAndSwap(was, v) {
				return
			}
		}
	}
	arm = func() {
		// A pointer in it: never in a block of the tiny allocator, whose
		// objects are freed together.
		type tick struct{ _ *int }
		runtime.SetFinalizer(&tick{}, func(*tick) {
			if done.Load() {
				return
			}
			read()
			arm()
		})
	}
	arm()
	return func() uint64 {
		done.Store(true)
		read()
		return peak.Load()
	}
}

// BenchmarkAuditDriftScale audits the "market" tree of 100, 1,000 and
// 10,000 hooks against a baseline of the same tree, each run of which now
// reaches a host the baseline does not hold: a drift finding a hook. Its
// time per hook should stay flat: each run is looked up in the baseline,
// not searched for.
func BenchmarkAuditDriftScale(b *testing.B) {
	for _, n := range []int{100, 1000, 10000} {
		dir := scaleTree(b, "market", n)
		ex, _ := leanHooks(0)
		if _, err := Audit(context.Background(), Options{Dir: dir, Executor: ex, Baseline: ".vigiles/baseline.json", UpdateBaseline: true}); err != nil {
			b.Fatal(err)
		}
		moved := ExecutorFunc(func(ctx context.Context, spec sandbox.Spec) (*sandbox.Result, error) {
			res, err := ex.Run(ctx, spec)
			if res != nil {
				for i := range res.Egress {
					res.Egress[i].Host = "moved-" + res.Egress[i].Host
				}
			}
			return res, err
		})
		b.Run(fmt.Sprintf("hooks=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				rep, err := Audit(context.Background(), Options{Dir: dir, Executor: moved, Baseline: ".vigiles/baseline.json", BaselineNamed: true})
				if err != nil {
					b.Fatal(err)
				}
				if len(rep.Runs) != n || len(rep.Findings) < n {
					b.Fatalf("%d runs and %d findings, want %d of each", len(rep.Runs), len(rep.Findings), n)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/float64(n), "µs/hook")
		})
	}
}
