package sandbox

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/evidence"
)

const testEnvFile = ".claude/session-env/s1/sessionstart-hook-0.sh"

// TestEnvFileRecorded runs commands that leave CLAUDE_ENV_FILE in each
// state a hook can, through the real sandbox and both write methods: the
// content comes back exactly, nothing behind a link is read, and the
// directories made for the file are not the command's writes.
func TestEnvFileRecorded(t *testing.T) {
	requireConfinement(t)
	long := strings.Repeat("é", evidence.MaxEnvFile) // 2 bytes each: cut inside one
	for _, method := range []string{"overlay", "copy"} {
		for _, tt := range []struct {
			name, script  string
			kind, content string
			size          int64
			truncated     bool
			encoding      string
			writes        []string
			modified      []string // of writes, those that are modifies
		}{
			{name: "nothing", script: `true`, kind: "none"},
			{name: "exports", script: `printf 'export FOO=1\nalias ls=rm\n' >> "$CLAUDE_ENV_FILE"`, kind: "file",
				content: "export FOO=1\nalias ls=rm\n", size: 25, writes: []string{"~/" + testEnvFile}},
			{name: "empty", script: `: > "$CLAUDE_ENV_FILE"`, kind: "file", writes: []string{"~/" + testEnvFile}},
			{name: "symlink", script: `ln -s /etc/hostname "$CLAUDE_ENV_FILE"`, kind: "symlink", writes: []string{"~/" + testEnvFile}},
			{name: "dir symlink", script: `d=$(dirname "$CLAUDE_ENV_FILE"); rmdir "$d"; mkdir -p $TMPDIR/x; ln -s $TMPDIR/x "$d"; echo export A=1 > "$CLAUDE_ENV_FILE"`,
				kind: "symlink", writes: []string{"~/.claude/session-env/s1", "$TMPDIR/x/sessionstart-hook-0.sh"},
				modified: []string{"~/.claude/session-env/s1"}}, // a made directory replaced by a link: it was there before
			{name: "unreadable", script: `echo export B=2 > "$CLAUDE_ENV_FILE"; chmod 000 "$CLAUDE_ENV_FILE"; chmod 000 "$(dirname "$CLAUDE_ENV_FILE")"`, kind: "file",
				content: "export B=2\n", size: 11, writes: []string{"~/.claude/session-env/s1", "~/" + testEnvFile},
				modified: []string{"~/.claude/session-env/s1"}},
			{name: "made dir's mode", script: `chmod 700 "$(dirname "$CLAUDE_ENV_FILE")"`, kind: "none", writes: []string{"~/.claude/session-env/s1"},
				modified: []string{"~/.claude/session-env/s1"}},
			{name: "made dirs' modes", script: `chmod 700 ~/.claude "$(dirname "$CLAUDE_ENV_FILE")"; touch ~/.claude/session-env/f`, kind: "none",
				writes:   []string{"~/.claude", "~/.claude/session-env/f", "~/.claude/session-env/s1"},
				modified: []string{"~/.claude", "~/.claude/session-env/s1"}},
			{name: "made dirs' modes, nothing beneath", script: `chmod 700 ~/.claude ~/.claude/session-env`, kind: "none",
				writes:   []string{"~/.claude", "~/.claude/session-env"},
				modified: []string{"~/.claude", "~/.claude/session-env"}},
			{name: "fifo", script: `mkfifo "$CLAUDE_ENV_FILE"`, kind: "other", writes: []string{"~/" + testEnvFile}},
			{name: "binary", script: `printf 'export A=\377\n' > "$CLAUDE_ENV_FILE"`, kind: "file", content: "ZXhwb3J0IEE9/wo=", encoding: "base64", size: 11,
				writes: []string{"~/" + testEnvFile}},
			{name: "long", script: `{ printf x; yes é | tr -d '\n' | head -c ` + strconv.Itoa(len(long)) + `; } > "$CLAUDE_ENV_FILE"`, kind: "file", size: int64(1 + len(long)), truncated: true,
				content: "x" + long[:evidence.MaxEnvFile-2], writes: []string{"~/" + testEnvFile}},
		} {
			t.Run(method+"/"+tt.name, func(t *testing.T) {
				dir := makeTree(t, map[string]string{"a.txt": "a"})
				res, err := Run(context.Background(), Spec{Dir: dir, Mode: ModeStrict, WritesMethod: method, Command: sh(tt.script),
					EnvFile: testEnvFile, EnvFileVar: "CLAUDE_ENV_FILE"})
				if err != nil || res.ExitCode != 0 {
					t.Fatalf("Run: %v, exit %d, stderr %s", err, res.ExitCode, res.Stderr)
				}
				ef := res.EnvFile
				if ef == nil || ef.Content == nil {
					t.Fatalf("env file not recorded: %+v", ef)
				}
				if ef.Path != "~/"+testEnvFile || ef.Kind != tt.kind || *ef.Content != tt.content || ef.Size != tt.size ||
					ef.Truncated != tt.truncated || ef.Encoding != tt.encoding {
					c := *ef.Content
					if len(c) > 80 {
						c = c[:80] + "…"
					}
					t.Errorf("env file = {%s %s size %d trunc %v enc %q %q}, want {%s size %d trunc %v enc %q}",
						ef.Path, ef.Kind, ef.Size, ef.Truncated, ef.Encoding, c, tt.kind, tt.size, tt.truncated, tt.encoding)
				}
				var got, modified []string
				for _, w := range res.Writes {
					got = append(got, w.Path)
					if w.Op == evidence.OpModify {
						modified = append(modified, w.Path)
					}
				}
				if strings.Join(modified, " ") != strings.Join(tt.modified, " ") {
					t.Errorf("modified = %q, want %q", modified, tt.modified)
				}
				if strings.Join(got, " ") != strings.Join(tt.writes, " ") {
					t.Errorf("writes = %q, want %q", got, tt.writes)
				}
			})
		}
	}
}

func TestEnvFileSpecChecked(t *testing.T) {
	for _, tt := range []struct{ path, name string }{
		{"/abs/f", "V"}, {"../f", "V"}, {"a/../../f", "V"}, {"a//f", "V"}, {"f", ""}, {"", "V"}, {"f", "A=B"},
	} {
		res, err := Run(context.Background(), Spec{Command: []string{"true"}, EnvFile: tt.path, EnvFileVar: tt.name})
		if err == nil || res.Tier != TierRefused {
			t.Errorf("EnvFile %q, EnvFileVar %q: tier %s, err %v; want refused", tt.path, tt.name, res.Tier, err)
		}
	}
}

// HomeDirs are made before the command, in both write methods, and are no
// writes of its; a file it puts in one is.
func TestHomeDirs(t *testing.T) {
	requireConfinement(t)
	for _, method := range []string{"overlay", "copy"} {
		t.Run(method, func(t *testing.T) {
			dir := makeTree(t, map[string]string{"a.txt": "a"})
			res, err := Run(context.Background(), Spec{Dir: dir, Mode: ModeStrict, WritesMethod: method,
				Command:  sh(`test -d ~/.claude/plugins/data/p && test -d ~/x && : > ~/.claude/plugins/data/p/f`),
				HomeDirs: []string{".claude/plugins/data/p", "x"}})
			if err != nil || res.ExitCode != 0 {
				t.Fatalf("Run: %v, exit %d, stderr %s", err, res.ExitCode, res.Stderr)
			}
			if got, want := opsOf(res.Writes), "create ~/.claude/plugins/data/p/f"; got != want {
				t.Errorf("writes %q; want only %q", got, want)
			}
		})
	}
	// Removing them is the command's write: the caller made them.
	dir := makeTree(t, nil)
	res, err := Run(context.Background(), Spec{Dir: dir, Mode: ModeStrict, Command: sh(`rm -rf ~/.claude`),
		HomeDirs: []string{".claude/plugins/data/p"}})
	if err != nil || res.ExitCode != 0 {
		t.Fatalf("Run: %v, exit %d, stderr %s", err, res.ExitCode, res.Stderr)
	}
	if got, want := opsOf(res.Writes), "delete ~/.claude,delete ~/.claude/plugins,delete ~/.claude/plugins/data,delete ~/.claude/plugins/data/p"; got != want {
		t.Errorf("rm -rf ~/.claude: writes %q; want %s", got, want)
	}
	for _, w := range res.Writes {
		// As any deleted directory is recorded: no kind, was dir (what
		// wrote-only's x/** tells an empty directory's delete by).
		if w.Kind != "" || w.Was != "dir" {
			t.Errorf("rm -rf ~/.claude: %s recorded with kind %q, was %q; want no kind, was dir", w.Path, w.Kind, w.Was)
		}
	}
	// A user xattr or a default ACL the command gives one is a change of
	// it, as it is of a directory of the tree; it was no write at all.
	for _, tt := range []struct{ name, py string }{
		{"user xattr", `os.setxattr(p, "user.x", b"1")`},
		{"default ACL", `os.setxattr(p, "system.posix_acl_default", struct.pack("<I", 2) + struct.pack("<HHI", 1, 7, 0xffffffff) + struct.pack("<HHI", 4, 7, 0xffffffff) + struct.pack("<HHI", 0x20, 7, 0xffffffff))`},
	} {
		dir := makeTree(t, nil)
		res, err := Run(context.Background(), Spec{Dir: dir, Mode: ModeStrict,
			Command:  []string{"python3", "-c", "import os, struct\np = os.path.expanduser('~/.claude')\n" + tt.py},
			HomeDirs: []string{".claude/plugins/data/p"}})
		if err != nil || res.ExitCode != 0 {
			t.Fatalf("%s: Run: %v, exit %d, stderr %s", tt.name, err, res.ExitCode, res.Stderr)
		}
		if got, want := opsOf(res.Writes), "modify ~/.claude"; got != want {
			t.Errorf("%s on ~/.claude: writes %q; want %s", tt.name, got, want)
		}
	}
	for _, d := range []string{"/abs", "..", "../x", "a/../../x", "a//b", "", "."} {
		if res, err := Run(context.Background(), Spec{Command: []string{"true"}, HomeDirs: []string{d}}); err == nil || res.Tier != TierRefused {
			t.Errorf("HomeDirs %q: tier %s, err %v; want refused", d, res.Tier, err)
		}
	}
}

// HOME itself: a change of its mode, user xattrs or ACLs is a modify of
// "~" (the caller's home would keep it), TMPDIR's of "$TMPDIR" and
// /dev/shm's of "/dev/shm"; it was no write. A file made and
// removed again there is none.
func TestHomeRootChanges(t *testing.T) {
	requireConfinement(t)
	for _, tt := range []struct{ script, want string }{
		{`chmod 777 ~`, "modify ~"},
		{`python3 -c 'import os; os.setxattr(os.path.expanduser("~"), "user.x", b"1")'`, "modify ~"},
		{`chmod 777 ~ && : > ~/f`, "modify ~,create ~/f"},
		// TMPDIR is the user's own where a session has a private one
		// (macOS): a change to it is kept as HOME's is.
		{`chmod 700 "$TMPDIR"`, "modify $TMPDIR"},
		{`: > "$TMPDIR/f" && rm "$TMPDIR/f"`, ""},
		// /dev/shm is the host's: a command run in the open as root
		// would change it for every process.
		{`chmod 700 /dev/shm`, "modify /dev/shm"},
		{`python3 -c 'import os; os.setxattr("/dev/shm", "user.x", b"1")'`, "modify /dev/shm"},
		{`: > /dev/shm/f && rm /dev/shm/f`, ""},
		{`: > ~/f && rm ~/f && cat <<EOF >/dev/null
here-document
EOF`, ""},
	} {
		dir := makeTree(t, nil)
		res, err := Run(context.Background(), Spec{Dir: dir, Mode: ModeStrict, Command: sh(tt.script)})
		if err != nil || res.ExitCode != 0 {
			t.Fatalf("%s: Run: %v, exit %d, stderr %s", tt.script, err, res.ExitCode, res.Stderr)
		}
		if got := opsOf(res.Writes); got != tt.want {
			t.Errorf("%s: writes %q; want %q", tt.script, got, tt.want)
		}
	}
}

// opsOf is "op path" of each write, comma-separated.
func opsOf(ws []evidence.Write) string {
	var out []string
	for _, w := range ws {
		out = append(out, string(w.Op)+" "+w.Path)
	}
	return strings.Join(out, ",")
}

// A made directory whose parent the command replaced by a file, or by a
// link to where it moved them, is gone from its path as one removed is:
// its delete was in no record, and the made directory replaced was a
// create of a file (it was there before the command).
func TestHomeDirsParentReplaced(t *testing.T) {
	requireConfinement(t)
	for _, method := range []string{"overlay", "copy"} {
		for _, tt := range []struct{ script, want string }{
			{`rm -rf ~/.claude && : > ~/.claude`, "modify ~/.claude,delete ~/.claude/plugins,delete ~/.claude/plugins/data,delete ~/.claude/plugins/data/p"},
			{`mv ~/.claude /tmp/x && ln -s /tmp/x ~/.claude`, "modify ~/.claude,delete ~/.claude/plugins,delete ~/.claude/plugins/data,delete ~/.claude/plugins/data/p,create $TMPDIR/x/plugins/data/p"},
			{`rm -rf ~/.claude/plugins/data && : > ~/.claude/plugins/data`, "modify ~/.claude/plugins/data,delete ~/.claude/plugins/data/p"},
			// Replaced by a directory: there before the command too, as a
			// tree's directory replaced so is a modify.
			{`rm -rf ~/.claude/plugins/data/p && mkdir ~/.claude/plugins/data/p`, "modify ~/.claude/plugins/data/p"},
			{`mv ~/.claude /tmp/y && mkdir ~/.claude`, "modify ~/.claude,delete ~/.claude/plugins,delete ~/.claude/plugins/data,delete ~/.claude/plugins/data/p,create $TMPDIR/y/plugins/data/p"},
		} {
			dir := makeTree(t, nil)
			res, err := Run(context.Background(), Spec{Dir: dir, Mode: ModeStrict, WritesMethod: method, Command: sh(tt.script),
				HomeDirs: []string{".claude/plugins/data/p"}})
			if err != nil || res.ExitCode != 0 {
				t.Fatalf("%s: Run: %v, exit %d, stderr %s", tt.script, err, res.ExitCode, res.Stderr)
			}
			if got := opsOf(res.Writes); got != tt.want {
				t.Errorf("%s, %s: writes %q; want %q", method, tt.script, got, tt.want)
			}
			for _, w := range res.Writes {
				if w.Op == "modify" && w.Kind != "dir" && w.Was != "dir" {
					t.Errorf("%s, %s: %s was %q, want dir", method, tt.script, w.Path, w.Was)
				}
			}
		}
	}
}
