package sandbox

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// BenchmarkToolCacheRecord times what a runner's tool cache adds to a
// confined run, past its two mounts (a bind of the host's directory and
// the overlay over it): "none", a run whose environment names no tool
// cache, pays the broker's look at the two variables and nothing in the
// init; "one" pays the broker's checks of the directory, the init's three
// directories, the upper's state copied from the host's and, after the
// command, the walk of the upper (empty, as almost every hook leaves it)
// against the host's directory.
func BenchmarkToolCacheRecord(b *testing.B) {
	// On a tmpfs, as the scratch is.
	root, err := os.MkdirTemp("/dev/shm", "vigiles-bench-toolcache-")
	if err != nil {
		b.Skipf("no tmpfs at /dev/shm: %v", err)
	}
	b.Cleanup(func() { os.RemoveAll(root) })
	// Outside /dev, where no tool cache is taken.
	tools := filepath.Join(b.TempDir(), "hostedtoolcache")
	if err := os.MkdirAll(filepath.Join(tools, "node", "22.1.0", "x64", "bin"), 0o755); err != nil {
		b.Fatal(err)
	}
	tree := filepath.Join(root, "tree")
	v := hostView{lookup: lookupHostPath}
	b.Run("none", func(b *testing.B) {
		b.ReportAllocs()
		getenv := func(string) string { return "" }
		for b.Loop() {
			tcs, err := mountToolCaches(toolCaches(getenv, tree, v, nil, "", nil))
			if err != nil || len(tcs) != 0 {
				b.Fatalf("%v, %v", tcs, err)
			}
			if ws, _, err := toolCacheWrites(tcs, 0); err != nil || len(ws) != 0 {
				b.Fatalf("%v, %v", ws, err)
			}
		}
	})
	b.Run("one", func(b *testing.B) {
		b.ReportAllocs()
		getenv := func(k string) string {
			if k == "RUNNER_TOOL_CACHE" {
				return tools
			}
			return ""
		}
		i := 0
		for b.Loop() {
			if got := toolCaches(getenv, tree, v, nil, "", nil); len(got) != 1 {
				b.Fatalf("toolCaches = %q", got)
			}
			n := strconv.Itoa(i)
			i++
			tc := toolCache{path: tools, lower: tools, upper: filepath.Join(root, "upper"+n)}
			for _, d := range []string{tc.upper, filepath.Join(root, "work"+n)} {
				if err := os.Mkdir(d, 0o755); err != nil {
					b.Fatal(err)
				}
			}
			if tc.root, err = prepareUpper(tc.upper, tc.lower); err != nil {
				b.Fatal(err)
			}
			if ws, _, err := toolCacheWrites([]toolCache{tc}, 0); err != nil || len(ws) != 0 {
				b.Fatalf("%v, %v", ws, err)
			}
			os.Remove(tc.upper)
			os.Remove(filepath.Join(root, "work"+n))
		}
	})
}
