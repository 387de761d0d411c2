package allocs

import (
	"runtime"
	"testing"
)

// Report runs f once for each iteration of b and reports, per iteration,
// what it allocated ("alloc-MiB") and, where held is true, how much of
// that was still reachable after a collection ("held-MiB"): f's value,
// which is kept alive until then.
func Report(b *testing.B, held bool, f func() any) {
	b.Helper()
	ReportEach(b, held, func() func() any { return f })
}

// ReportEach is Report for a step made anew for each iteration: prepare,
// which is not counted, makes it (the input it consumes, say).
func ReportEach(b *testing.B, held bool, prepare func() func() any) {
	b.Helper()
	var allocated, kept float64
	for b.Loop() {
		f := prepare()
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		v := f()
		runtime.ReadMemStats(&after)
		allocated += float64(after.TotalAlloc - before.TotalAlloc)
		if held {
			runtime.GC()
			runtime.ReadMemStats(&after)
			kept += float64(after.HeapAlloc) - float64(before.HeapAlloc)
		}
		runtime.KeepAlive(v)
	}
	if held {
		b.ReportMetric(kept/float64(b.N)/(1<<20), "held-MiB")
	}
	b.ReportMetric(allocated/float64(b.N)/(1<<20), "alloc-MiB")
}

// Fewest is the fewest of five testing.AllocsPerRun(runs, f) counts.
// AllocsPerRun counts the whole process's allocations: in a shuffled run
// under -race, other tests' goroutines that run meanwhile (a preempted
// measure lets them) add theirs to a count, never take any away, so the
// fewest is f's own, and an allocation f makes is in every count.
func Fewest(runs int, f func()) float64 {
	n := testing.AllocsPerRun(runs, f)
	for range 4 {
		n = min(n, testing.AllocsPerRun(runs, f))
	}
	return n
}
