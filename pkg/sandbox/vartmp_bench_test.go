package sandbox

import (
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkVarTmpRecord times what the run's throwaway /var/tmp adds to
// every confined run's record, past its bind mount: its scratch
// directory made and opened to every user, its own state read before the
// command, and, after it, the walk of it (empty, as almost every hook
// leaves it) and the look at its own state again.
func BenchmarkVarTmpRecord(b *testing.B) {
	// On a tmpfs, as the scratch is.
	root, err := os.MkdirTemp("/dev/shm", "vigiles-bench-vartmp-")
	if err != nil {
		b.Skipf("no tmpfs at /dev/shm: %v", err)
	}
	b.Cleanup(func() { os.RemoveAll(root) })
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		d := filepath.Join(root, "vartmp"+string(rune('a'+i%26))+string(rune('a'+i/26%26))+string(rune('a'+i/676%26)))
		i++
		if err := os.Mkdir(d, 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.Chmod(d, 0o777|os.ModeSticky); err != nil {
			b.Fatal(err)
		}
		st, err := dirState(d, copyXattrSet)
		if err != nil {
			b.Fatal(err)
		}
		ws, _, err := upperWritesSized(d, sandboxVarTmp+"/", 0)
		if err != nil || len(ws) != 0 {
			b.Fatalf("%v, %v", ws, err)
		}
		if changed, err := st.changed(d); changed || err != nil {
			b.Fatalf("changed %v, %v", changed, err)
		}
		os.Remove(d)
	}
}
