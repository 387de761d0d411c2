package sandbox

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/evidence"
)

// testHomeFile is a file the tests have the init make in HOME, as the
// runner makes a session's transcript.
const (
	testHomeFile    = ".claude/projects/-w/s1.jsonl"
	testHomeContent = `{"type":"user","message":{"role":"user","content":"hi"}}` + "\n"
)

// TestHomeFiles runs commands that leave a made file (Spec.HomeFiles) in
// each state a hook can, through the real sandbox and both write methods:
// the file and its directories are there, with their content, before the
// command starts, and are no write of its; what it does to the file is
// recorded as what it did to a file that was there before it: a modify
// (kind file) when its bytes (a write through a shared mapping too, which
// changes neither mtime nor ctime on tmpfs), mode, times, link count or
// user xattrs changed, a delete when it is gone, a modify with was file
// when another kind took its place.
func TestHomeFiles(t *testing.T) {
	requireConfinement(t)
	const f = "~/" + testHomeFile
	type want struct{ op, path, kind, was string }
	modify := func(p, kind, was string) want { return want{"modify", p, kind, was} }
	for _, method := range []string{"overlay", "copy"} {
		for _, tt := range []struct {
			name, script string
			writes       []want
		}{
			{name: "read", script: `test -d ~/.claude/projects/-w && test "$(stat -c %a ~/` + testHomeFile + `)" = 600 && ` +
				`test "$(cat ~/` + testHomeFile + `)" = '` + strings.TrimSuffix(testHomeContent, "\n") + `' && ` +
				`test "$(wc -c < ~/` + testHomeFile + `)" = ` + strconv.Itoa(len(testHomeContent)) + ` && python3 -c 'import mmap, os
with open(os.path.expanduser("~/` + testHomeFile + `"), "rb") as h:
    mmap.mmap(h.fileno(), 0, prot=mmap.PROT_READ)[:1]'`},
			{name: "opened for writing, left as it was", script: `exec 3>>~/` + testHomeFile + `; exec 3>&-`},
			{name: "chmod to its own mode", script: `chmod 600 ~/` + testHomeFile},
			{name: "same bytes again, times put back", script: `f=~/` + testHomeFile + `; cp -p "$f" $TMPDIR/c && cat $TMPDIR/c > "$f" && touch -r $TMPDIR/c "$f" && rm $TMPDIR/c`},
			{name: "append", script: `echo '{}' >> ~/` + testHomeFile, writes: []want{modify(f, "file", "")}},
			{name: "truncate", script: `: > ~/` + testHomeFile, writes: []want{modify(f, "file", "")}},
			{name: "touch", script: `touch ~/` + testHomeFile, writes: []want{modify(f, "file", "")}},
			{name: "same bytes again", script: `f=~/` + testHomeFile + `; cat "$f" > $TMPDIR/c && cat $TMPDIR/c > "$f" && rm $TMPDIR/c`,
				writes: []want{modify(f, "file", "")}},
			{name: "rewritten through a shared mapping, times put back", script: `python3 -c 'import mmap, os
p = os.path.expanduser("~/` + testHomeFile + `")
st = os.stat(p)
with open(p, "r+b") as h:
    m = mmap.mmap(h.fileno(), 0)
    m[0:1] = b"["
    m.flush()
    m.close()
os.utime(p, ns=(st.st_atime_ns, st.st_mtime_ns))'`, writes: []want{modify(f, "file", "")}},
			{name: "chmod", script: `chmod 644 ~/` + testHomeFile, writes: []want{modify(f, "file", "")}},
			{name: "user xattr", script: `python3 -c 'import os; os.setxattr(os.path.expanduser("~/` + testHomeFile + `"), "user.x", b"1")'`,
				writes: []want{modify(f, "file", "")}},
			{name: "hard link", script: `ln ~/` + testHomeFile + ` ~/l`, writes: []want{modify(f, "file", ""), {"create", "~/l", "file", ""}}},
			{name: "replaced by a new file with its bytes", script: `f=~/` + testHomeFile + `; cp -p "$f" "$f.new" && mv "$f.new" "$f"`,
				writes: []want{modify(f, "file", "")}},
			{name: "delete", script: `rm ~/` + testHomeFile, writes: []want{{"delete", f, "", ""}}},
			{name: "symlink", script: `rm ~/` + testHomeFile + ` && ln -s /etc/hostname ~/` + testHomeFile, writes: []want{modify(f, "symlink", "file")}},
			{name: "directory", script: `rm ~/` + testHomeFile + ` && mkdir ~/` + testHomeFile, writes: []want{modify(f, "dir", "file")}},
			{name: "directory with a file", script: `rm ~/` + testHomeFile + ` && mkdir ~/` + testHomeFile + ` && : > ~/` + testHomeFile + `/x`,
				writes: []want{modify(f, "dir", "file"), {"create", f + "/x", "file", ""}}},
			{name: "fifo", script: `rm ~/` + testHomeFile + ` && mkfifo ~/` + testHomeFile, writes: []want{modify(f, "other", "file")}},
			{name: "its directories removed", script: `rm -rf ~/.claude`, writes: []want{{"delete", "~/.claude", "", "dir"},
				{"delete", "~/.claude/projects", "", "dir"}, {"delete", "~/.claude/projects/-w", "", "dir"}, {"delete", f, "", ""}}},
			{name: "its directory replaced by a file", script: `rm -rf ~/.claude/projects/-w && : > ~/.claude/projects/-w`,
				writes: []want{modify("~/.claude/projects/-w", "file", "dir"), {"delete", f, "", ""}}},
			// Moved away and a link put in its directory's place: the
			// file at the path is the same one, but no longer at the path.
			{name: "its directory moved and linked", script: `mv ~/.claude/projects/-w /tmp/x && ln -s /tmp/x ~/.claude/projects/-w`,
				writes: []want{modify("~/.claude/projects/-w", "symlink", "dir"), {"delete", f, "", ""}, {"create", "$TMPDIR/x/s1.jsonl", "file", ""}}},
		} {
			t.Run(method+"/"+tt.name, func(t *testing.T) {
				dir := makeTree(t, map[string]string{"a.txt": "a"})
				res, err := Run(context.Background(), Spec{Dir: dir, Mode: ModeStrict, WritesMethod: method, Command: sh(tt.script),
					HomeFiles: map[string][]byte{testHomeFile: []byte(testHomeContent)}})
				if err != nil || res.ExitCode != 0 {
					t.Fatalf("Run: %v, exit %d, stderr %s", err, res.ExitCode, res.Stderr)
				}
				var got, exp []string
				for _, w := range res.Writes {
					got = append(got, strings.Join([]string{string(w.Op), w.Path, w.Kind, w.Was}, " "))
				}
				for _, w := range tt.writes {
					exp = append(exp, strings.Join([]string{w.op, w.path, w.kind, w.was}, " "))
				}
				if strings.Join(got, ", ") != strings.Join(exp, ", ") {
					t.Errorf("writes:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(exp, "\n  "))
				}
			})
		}
	}
}

// Made files beside made directories and an env file: each is made, and
// none is a write.
func TestHomeFilesBesideHomeDirs(t *testing.T) {
	requireConfinement(t)
	dir := makeTree(t, nil)
	res, err := Run(context.Background(), Spec{Dir: dir, Mode: ModeStrict,
		Command:   sh(`test -s ~/` + testHomeFile + ` && test -s ~/.claude/projects/-w/s1/subagents/agent-a.jsonl && test -d ~/.claude/plugins/data/p && test ! -e "$CLAUDE_ENV_FILE"`),
		HomeFiles: map[string][]byte{testHomeFile: []byte(testHomeContent), ".claude/projects/-w/s1/subagents/agent-a.jsonl": []byte(testHomeContent)},
		HomeDirs:  []string{".claude/plugins/data/p"}, EnvFile: testEnvFile, EnvFileVar: "CLAUDE_ENV_FILE"})
	if err != nil || res.ExitCode != 0 {
		t.Fatalf("Run: %v, exit %d, stderr %s", err, res.ExitCode, res.Stderr)
	}
	if got := opsOf(res.Writes); got != "" {
		t.Errorf("writes %q; want none", got)
	}
	if res.EnvFile == nil || res.EnvFile.Kind != "none" {
		t.Errorf("env file %+v; want none", res.EnvFile)
	}
}

// The broker refuses a made file at a path that is not clean and beneath
// HOME, one that would stand where a made directory, the env file or
// another made file must be, and files larger than MaxHomeFileBytes.
func TestHomeFilesSpecChecked(t *testing.T) {
	big := make([]byte, MaxHomeFileBytes+1)
	for _, tt := range []struct {
		name  string
		files map[string][]byte
		dirs  []string
		env   string
	}{
		{name: "absolute", files: map[string][]byte{"/abs/f": nil}},
		{name: "dot dot", files: map[string][]byte{"../f": nil}},
		{name: "dot dot inside", files: map[string][]byte{"a/../../f": nil}},
		{name: "not clean", files: map[string][]byte{"a//f": nil}},
		{name: "empty", files: map[string][]byte{"": nil}},
		{name: "dot", files: map[string][]byte{".": nil}},
		{name: "a made directory", files: map[string][]byte{"a/b": nil}, dirs: []string{"a/b"}},
		{name: "above a made directory", files: map[string][]byte{"a": nil}, dirs: []string{"a/b"}},
		{name: "the env file", files: map[string][]byte{testEnvFile: nil}, env: testEnvFile},
		{name: "above the env file", files: map[string][]byte{".claude/session-env": nil}, env: testEnvFile},
		{name: "below the env file", files: map[string][]byte{testEnvFile + "/x": nil}, env: testEnvFile},
		{name: "above another", files: map[string][]byte{"a": nil, "a/b": nil}},
		{name: "a name too long", files: map[string][]byte{".claude/projects/-" + strings.Repeat("a", 255) + "/s.jsonl": nil}},
		{name: "too many", files: map[string][]byte{"f0": nil, "f1": nil, "f2": nil, "f3": nil, "f4": nil, "f5": nil, "f6": nil, "f7": nil, "f8": nil, "f9": nil, "f10": nil, "f11": nil, "f12": nil, "f13": nil, "f14": nil, "f15": nil, "f16": nil}},
		{name: "too large", files: map[string][]byte{"a": big}},
		{name: "too large together", files: map[string][]byte{"a": big[:MaxHomeFileBytes/2+1], "b": big[:MaxHomeFileBytes/2]}},
	} {
		spec := Spec{Command: []string{"true"}, HomeFiles: tt.files, HomeDirs: tt.dirs}
		if tt.env != "" {
			spec.EnvFile, spec.EnvFileVar = tt.env, "CLAUDE_ENV_FILE"
		}
		if HomeFilesFit(spec) == nil {
			t.Errorf("%s: HomeFilesFit passed it; want an error", tt.name)
		}
		res, err := Run(context.Background(), spec)
		if err == nil || res.Tier != TierRefused {
			t.Errorf("%s: tier %s, err %v; want refused", tt.name, res.Tier, err)
		}
	}
	// Beside a made directory that holds it, and in the env file's
	// directory: fine.
	ok := Spec{Command: []string{"true"}, HomeFiles: map[string][]byte{"a/b/c": nil, ".claude/session-env/s1/t.jsonl": nil},
		HomeDirs: []string{"a/b", "a"}, EnvFile: testEnvFile, EnvFileVar: "CLAUDE_ENV_FILE"}
	if err := HomeFilesFit(ok); err != nil {
		t.Errorf("HomeFilesFit: %v; want nil", err)
	}
}

// A direct run, whose HOME is the caller's, gets no made file, as it gets
// no made directory.
func TestHomeFilesDirectRunMakesNothing(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	res, err := Run(context.Background(), Spec{Dir: makeTree(t, nil), Mode: ModeOff, Command: []string{"true"},
		HomeFiles: map[string][]byte{testHomeFile: []byte(testHomeContent)}, HomeDirs: []string{".claude/plugins/data/p"}})
	if err != nil || res.Tier != TierDirect || res.ExitCode != 0 {
		t.Fatalf("Run: tier %s, err %v, exit %d", res.Tier, err, res.ExitCode)
	}
	if _, err := os.Lstat(filepath.Join(home, ".claude")); !os.IsNotExist(err) {
		t.Errorf("the direct run's HOME has .claude (%v); want nothing made", err)
	}
	if res.Writes != nil {
		t.Errorf("direct run recorded writes %v; want none recorded", res.Writes)
	}
}

// Made files of MaxHomeFileBytes together, the most the broker takes,
// travel in the init's config and are made whole.
func TestHomeFilesAtTheBound(t *testing.T) {
	requireConfinement(t)
	const line = "{\"x\":\"\\u00e9é\"}\n" // and bytes that are not UTF-8 at the end
	big := []byte(strings.Repeat(line, MaxHomeFileBytes/len(line)) + strings.Repeat("\xff", MaxHomeFileBytes%len(line)))
	if len(big) != MaxHomeFileBytes {
		t.Fatalf("%d bytes; want %d", len(big), MaxHomeFileBytes)
	}
	sum := sha256.Sum256(big)
	res, err := Run(context.Background(), Spec{Dir: makeTree(t, nil), Mode: ModeStrict,
		Command:   sh(`sha256sum < ~/` + testHomeFile),
		HomeFiles: map[string][]byte{testHomeFile: big}})
	if err != nil || res.ExitCode != 0 {
		t.Fatalf("Run: %v, exit %d, stderr %s", err, res.ExitCode, res.Stderr)
	}
	if got := strings.Fields(res.Stdout); len(got) == 0 || got[0] != hex.EncodeToString(sum[:]) {
		t.Errorf("sha256sum %q; want %x", res.Stdout, sum)
	}
	if got := opsOf(res.Writes); got != "" {
		t.Errorf("writes %q; want none", got)
	}
}

// A made directory the command changed is listed in path order, before
// what lies beneath it, whatever else the command wrote in HOME.
func TestMadeDirsInPathOrder(t *testing.T) {
	requireConfinement(t)
	for _, tt := range []struct{ script, want string }{
		{`chmod 700 ~/.claude && : > ~/z`, "modify ~/.claude,create ~/z"},
		{`chmod 700 ~/.claude && : > ~/.claude-x`, "modify ~/.claude,create ~/.claude-x"},
		{`chmod 700 ~/.claude && : > ~/.claude-x && : > ~/.claude/y`, "modify ~/.claude,create ~/.claude-x,create ~/.claude/y"},
		{`rm -rf ~/.claude && : > ~/z`, "delete ~/.claude,delete ~/.claude/projects,delete ~/.claude/projects/-w,delete ~/" + testHomeFile + ",create ~/z"},
	} {
		res, err := Run(context.Background(), Spec{Dir: makeTree(t, nil), Mode: ModeStrict, Command: sh(tt.script),
			HomeFiles: map[string][]byte{testHomeFile: []byte(testHomeContent)}})
		if err != nil || res.ExitCode != 0 {
			t.Fatalf("%s: Run: %v, exit %d, stderr %s", tt.script, err, res.ExitCode, res.Stderr)
		}
		if got := opsOf(res.Writes); got != tt.want {
			t.Errorf("%s: writes %q; want %q", tt.script, got, tt.want)
		}
	}
}

// A made directory the command replaced by another that holds entries
// (its files moved, or copied, into a new one of another mode) is a
// modify, as one replaced by an empty directory is: the record lists such
// a directory by its entries only, and the made file moved into it is no
// write, so the made directories' mode (0777 in place of 0755) changed in
// no record. One moved away and back is the same directory, no write.
func TestMadeDirsReplacedByFullOnes(t *testing.T) {
	requireConfinement(t)
	const f = "~/" + testHomeFile
	kinds := func(ws []evidence.Write) string {
		var out []string
		for _, w := range ws {
			out = append(out, strings.TrimSpace(string(w.Op)+" "+w.Path+" "+w.Kind+" "+w.Was))
		}
		return strings.Join(out, ",")
	}
	dirs := "modify ~/.claude dir,modify ~/.claude/projects dir,modify ~/.claude/projects/-w dir"
	for _, method := range []string{"overlay", "copy"} {
		for _, tt := range []struct {
			script, want string
			dirs         []string
		}{
			{`mkdir -p ~/x/projects/-w && chmod 777 ~/x ~/x/projects ~/x/projects/-w && mv ~/` + testHomeFile + ` ~/x/projects/-w/ && rm -rf ~/.claude && mv ~/x ~/.claude && test "$(stat -c %a ~/.claude)" = 777`, dirs, nil},
			{`cp -a ~/.claude ~/x && rm -rf ~/.claude && mv ~/x ~/.claude`, dirs + ",modify " + f + " file", nil},
			{`rm -rf ~/.claude/plugins/data/p && mkdir -m 777 ~/.claude/plugins/data/p && : > ~/.claude/plugins/data/p/x`,
				"modify ~/.claude/plugins/data/p dir,create ~/.claude/plugins/data/p/x file", []string{".claude/plugins/data/p"}},
			{`mv ~/.claude ~/y && mv ~/y ~/.claude`, "", nil},
		} {
			res, err := Run(context.Background(), Spec{Dir: makeTree(t, nil), Mode: ModeStrict, WritesMethod: method, Command: sh(tt.script),
				HomeFiles: map[string][]byte{testHomeFile: []byte(testHomeContent)}, HomeDirs: tt.dirs})
			if err != nil || res.ExitCode != 0 {
				t.Fatalf("%s: Run: %v, exit %d, stderr %s", tt.script, err, res.ExitCode, res.Stderr)
			}
			if got := kinds(res.Writes); got != tt.want {
				t.Errorf("%s %s: writes %q; want %q", method, tt.script, got, tt.want)
			}
		}
	}
}

// A work tree under the command's HOME (/root/proj, a root caller's) is
// mounted over the directories the init made for it there: a made file
// at, in or above the tree's place would be hidden under the mount, the
// command would never see it, and the record read it as changed (a
// modify of a file the command never touched). The broker refuses such a
// file (HomeFilesFit), so the runner leaves a transcript a payloads:
// entry puts there out; one beside the tree is made as ever.
func TestHomeFilesNotUnderTheTree(t *testing.T) {
	requireRoot(t, "the tree is made in /root")
	requireConfinement(t)
	dir, err := os.MkdirTemp(sandboxHome, "vigiles-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("a"), 0o644); err != nil {
		t.Fatal(err)
	}
	base := filepath.Base(dir)
	for _, f := range []string{base + "/t.jsonl", base + "/.claude/t.jsonl", base + "/a.txt", base} {
		spec := Spec{Dir: dir, Mode: ModeStrict, Command: sh(`true`), HomeFiles: map[string][]byte{f: []byte(testHomeContent)}}
		if HomeFilesFit(spec) == nil {
			t.Errorf("%s: HomeFilesFit passed it; want an error", f)
		}
		res, err := Run(context.Background(), spec)
		if err == nil || res.Tier != TierRefused {
			t.Errorf("%s: tier %s, err %v, writes %q; want refused", f, res.Tier, err, opsOf(res.Writes))
		}
	}
	res, err := Run(context.Background(), Spec{Dir: dir, Mode: ModeStrict, Command: sh(`test -s ~/` + base + `-t.jsonl`),
		HomeFiles: map[string][]byte{base + "-t.jsonl": []byte(testHomeContent)}})
	if err != nil || res.ExitCode != 0 || opsOf(res.Writes) != "" {
		t.Errorf("beside the tree: err %v, exit %d, writes %q; want the file made and no write", err, res.ExitCode, opsOf(res.Writes))
	}
}
