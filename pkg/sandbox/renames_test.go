package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vigiles/action/pkg/evidence"
)

// sameTimes gives the files names under dir one mtime, so that they are
// alike in everything the rename rule compares when their bytes are.
func sameTimes(names ...string) func(t *testing.T, dir string) {
	return func(t *testing.T, dir string) {
		t.Helper()
		when := time.Unix(1700000000, 123456789)
		for _, n := range names {
			if err := os.Chtimes(filepath.Join(dir, n), when, when); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// TestWritesExactRenames: a file the tree had, renamed, is the delete of
// its old path and the create of its new one, which names the old path
// (from) where the record proves it, alike by both methods; where it does
// not (changed after, a copy, another name of a file still there, two
// alike deleted, a directory of the tree renamed), the create has none.
func TestWritesExactRenames(t *testing.T) {
	files := map[string]string{"a": "aaaa", "d/f": "ffff", "keep": "k"}
	alike := map[string]string{"a": "same", "c": "same", "keep": "k"}
	del := func(p string) evidence.Write { return evidence.Write{Path: p, Op: "delete"} }
	create := func(p, from string) evidence.Write {
		return evidence.Write{Path: p, Op: "create", Kind: "file", From: from}
	}
	runWritesCases(t, []writesCase{
		{name: "mv", files: files, script: "mv a b",
			want: []evidence.Write{del("a"), create("b", "a")}},
		{name: "mv into a new directory", files: files, script: "mkdir n; mv d/f n/g",
			want: []evidence.Write{del("d/f"), create("n/g", "d/f")}},
		// Overlay renames a directory the run made, with a file of the
		// tree's in it, as the copy does.
		{name: "new directory renamed", files: files, script: "mkdir n; mv a n/a; mv n m",
			want: []evidence.Write{del("a"), create("m/a", "a")}},
		// Written after the rename: nothing proves which file it was.
		{name: "mv then written", files: files, script: "mv a b; echo x >> b",
			want: []evidence.Write{del("a"), create("b", "")}},
		{name: "mv then chmod", files: files, script: "mv a b; chmod 600 b",
			want: []evidence.Write{del("a"), create("b", "")}},
		// A copy with the same bytes, mode and times is another file.
		{name: "cp -p then rm", files: files, script: "cp -p a b; rm a",
			want: []evidence.Write{del("a"), create("b", "")}},
		// b is another name of a, which is still there.
		{name: "ln", files: files, script: "ln a b",
			want: []evidence.Write{{Path: "a", Op: "modify", Kind: "file"}, create("b", "")}},
		{name: "ln then rm", files: files, script: "ln a b; rm a",
			want: []evidence.Write{del("a"), create("b", "a")}},
		{name: "mv then ln", files: files, script: "mv a b; ln b c",
			want: []evidence.Write{del("a"), create("b", "a"), create("c", "a")}},
		{name: "mv and a new file at the old path", files: files, script: "mv a b; echo new > a",
			want: []evidence.Write{{Path: "a", Op: "modify", Kind: "file"}, create("b", "")}},
		// Two files alike deleted: which one b was, nothing tells.
		{name: "two alike deleted", files: alike, setup: sameTimes("a", "c"), script: "mv a b; rm c",
			want: []evidence.Write{del("a"), create("b", ""), del("c")}},
		// b is a, still there, not the deleted c it is alike to.
		{name: "ln and an alike one deleted", files: alike, setup: sameTimes("a", "c"), script: "ln a b; rm c",
			want: []evidence.Write{{Path: "a", Op: "modify", Kind: "file"}, create("b", ""), del("c")}},
		// Alike but for their bytes: the bytes tell which one b was.
		{name: "alike but for the bytes", files: map[string]string{"x1": "one", "x2": "two", "x3": "six"},
			setup: sameTimes("x1", "x2", "x3"), script: "mv x2 y; rm x1 x3",
			want: []evidence.Write{del("x1"), del("x2"), del("x3"), create("y", "x2")}},
		{name: "an alike one kept", files: alike, setup: sameTimes("a", "c"), script: "mv a b",
			want: []evidence.Write{del("a"), create("b", "a")}},
		// Overlay refuses to rename a directory of the tree's (mv
		// copies it); the copy method's rename is recorded as that.
		{name: "directory of the tree renamed", files: files, script: "mv d e",
			want: []evidence.Write{{Path: "d", Op: "delete", Was: "dir"}, del("d/f"), create("e/f", "")}},
		{name: "names not UTF-8", files: map[string]string{"bad\xff": "x", "bad\xfe": "y"},
			script: `mv "$(printf 'bad\377')" b; mv "$(printf 'bad\376')" "$(printf 'c\375')"`,
			want:   []evidence.Write{create("b", "bad\xff"), del("bad\xfe"), del("bad\xff"), create("c\xfd", "bad\xfe")}},
		// Bytes past sameContentMax are not compared: no proof.
		{name: "larger than the content rule", files: map[string]string{"big": strings.Repeat("x", sameContentMax+1)},
			script: "mv big b", want: []evidence.Write{create("b", ""), del("big")}},
		{name: "at the content rule's size", files: map[string]string{"big": strings.Repeat("x", sameContentMax)},
			script: "mv big b", want: []evidence.Write{create("b", "big"), del("big")}},
	})
}

// TestWritesExactRenamesDeep: a file renamed in a directory nested past
// PATH_MAX is compared, and named, as one near the root is.
func TestWritesExactRenamesDeep(t *testing.T) {
	into := `cd old && for i in $(seq ` + fmt.Sprint(deepDirs) + `); do cd ` + deepName + ` || exit 1; done; `
	deep := deepPath("old")
	runWritesCases(t, []writesCase{
		{name: "renamed deep", setup: func(t *testing.T, dir string) { makeDeep(t, dir, "old") }, script: into + "mv f g",
			want: []evidence.Write{{Path: deep + "/f", Op: "delete"}, {Path: deep + "/g", Op: "create", Kind: "file", From: deep + "/f"}}},
	})
}

// TestRenamedListPastItsLargestBlock: the lists of created and deleted
// files a rename may join take as many as the command makes. The size of
// each new block was 16<<k capped after the shift, which overflowed from
// the 60th block on: a run whose command made about 217,000 small files
// ended in the init's panic (makeslice: cap out of range), its record lost.
func TestRenamedListPastItsLargestBlock(t *testing.T) {
	var l renamedList
	const n = 300000
	for i := range n {
		l.add(renamed{at: i})
	}
	i := 0
	l.each(func(r *renamed) {
		if r.at != i {
			t.Fatalf("entry %d holds %d", i, r.at)
		}
		i++
	})
	if i != n || l.n != n {
		t.Errorf("%d entries listed, %d counted; want %d", i, l.n, n)
	}
}
