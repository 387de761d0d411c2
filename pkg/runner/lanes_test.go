package runner

import (
	"context"
	"sync"
	"testing"

	"github.com/vigiles/action/pkg/evidence"
	"github.com/vigiles/action/pkg/sandbox"
)

// TestSpecLanesAreThePlansRunsAtOnce: each run's sandbox.Spec.Lanes,
// the number of runs whose commands share a non-root caller's process
// limit and the host uid's per-user counts, is --jobs where the plan
// has that many runs to execute, and the plan's executable runs where
// --jobs is higher: the eight runs of one handler under --jobs 32 each
// keep an eighth of the share, where each was given a thirty-second
// of it (and of a quarter of the uid's 128 inotify instances, 1) though
// no more than eight ever ran at once.
func TestSpecLanesAreThePlansRunsAtOnce(t *testing.T) {
	for _, c := range []struct {
		name     string
		handlers int
		jobs     int
	}{
		{"one handler's runs, jobs 32", 1, 32},
		{"three handlers' runs, jobs 2", 3, 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := makeTree(t, map[string]string{
				"plugins/p/.claude-plugin/plugin.json": `{"name": "p"}`,
				"plugins/p/hooks/hooks.json":           manyHandlers(c.handlers),
			})
			var (
				mu    sync.Mutex
				lanes []int
			)
			exec := ExecutorFunc(func(ctx context.Context, spec sandbox.Spec) (*sandbox.Result, error) {
				mu.Lock()
				lanes = append(lanes, spec.Lanes)
				mu.Unlock()
				return &sandbox.Result{Tier: sandbox.TierConfined, Writes: []evidence.Write{}, Egress: []evidence.Egress{}}, nil
			})
			if _, err := Audit(context.Background(), Options{Dir: dir, Executor: exec, Jobs: c.jobs}); err != nil {
				t.Fatal(err)
			}
			runs := c.handlers * len(DefaultTools)
			want := min(c.jobs, runs)
			if len(lanes) != runs {
				t.Fatalf("%d runs, want %d", len(lanes), runs)
			}
			for _, l := range lanes {
				if l != want {
					t.Fatalf("a run's Spec.Lanes is %d under --jobs %d and a plan of %d runs; want %d", l, c.jobs, runs, want)
				}
			}
		})
	}
}
