package sandbox

import (
	"encoding/json"
	"sync"

	"github.com/vigiles/action/pkg/evidence"
	"github.com/vigiles/action/pkg/sandbox/reaper"
)

// warmJSON encodes and decodes each value given, so that encoding/json's
// per-type caches (its reflection over the fields, 0.2-0.4 ms for the
// first value of a type on the development VM) are built while the
// caller waits for something else rather than on the path that encodes
// or decodes the real one: the init's result after the command, the
// broker's decoding of it and the CLI's report (docs/performance.md,
// item 23). Run it in a goroutine.
func warmJSON(vs ...any) {
	for _, v := range vs {
		if b, err := json.Marshal(v); err == nil {
			_ = json.Unmarshal(b, v)
		}
	}
}

// warmBrokerJSON warms what the broker decodes and its caller reports,
// once per process: an audit's later runs find the caches built.
var warmBrokerJSON = sync.OnceFunc(func() { warmJSON(sampleInitResult(), sampleResult()) })

// sampleInitResult is an initResult with one element in each slice and
// every pointer set, so that warmJSON reaches every type it holds.
func sampleInitResult() *initResult {
	return &initResult{
		Writes:        []evidence.Write{{Path: "a", Op: evidence.OpCreate}},
		Egress:        []evidence.Egress{{}},
		EgressDropped: &evidence.Dropped{},
		Lingered:      []reaper.Process{{}},
		EnvFile:       &evidence.EnvFile{},
	}
}

// sampleResult is the same for the Result a caller reports.
func sampleResult() *Result {
	ir := sampleInitResult()
	return &Result{Writes: ir.Writes, Egress: ir.Egress, EgressDropped: ir.EgressDropped, Lingered: []string{""}, EnvFile: ir.EnvFile}
}
