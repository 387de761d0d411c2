package sandbox

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/evidence"
)

// TestBytesThatAreNotUTF8 runs a command, confined, as a project checked
// out under a directory whose name is not UTF-8 would run it: the tree's
// path, the directory it starts in, its arguments, an environment value,
// its made HOME directories and files are bytes the kernel takes as they
// are, which reach the init and the reaper in JSON. The command sees each
// exactly, and the files it makes whose names differ only in such bytes
// (and one whose name holds U+FFFD, what JSON's strings would make of
// them) are three writes in the record, also once it is read back.
func TestBytesThatAreNotUTF8(t *testing.T) {
	requireConfinement(t)
	parent := tempDirIn(t, "", "vigiles-bytes-", 0o755)
	dir := filepath.Join(parent, "tree\xff")
	if err := os.MkdirAll(filepath.Join(dir, "sub\xfe"), 0o755); err != nil {
		t.Fatal(err)
	}
	names := []string{"a\xff", "a\xfe", "a\uFFFD"}
	script := `printf '%s\n' "$(pwd)" "$ODD" "$1" "$(cat ~/home` + "\xfb" + `/f` + "\xfa" + `)"; ` +
		`test -d ~/made` + "\xf9" + ` && echo made; : > "$2" && : > "$3" && : > "$4"`
	for _, method := range []string{"overlay", "copy"} {
		t.Run(method, func(t *testing.T) {
			res := run(t, Spec{Dir: dir, Cwd: "sub\xfe", WritesMethod: method,
				Env:       []string{"ODD=v\xfd"},
				HomeDirs:  []string{"made\xf9"},
				HomeFiles: map[string][]byte{"home\xfb/f\xfa": []byte("c\xf8")},
				Command:   append([]string{"bash", "-c", script, "sh", "arg\xfc"}, names...)})
			if res.Tier != TierConfined || res.ExitCode != 0 {
				t.Fatalf("tier %s exit %d refusal %q error %q stderr %q", res.Tier, res.ExitCode, res.Refusal, res.Error, res.Stderr)
			}
			want := dir + "/sub\xfe\nv\xfd\narg\xfc\nc\xf8\nmade\n"
			if got := string(res.StdoutBytes()); got != want {
				t.Errorf("the command saw\n%q\nwant\n%q", got, want)
			}
			var got []string
			for _, w := range res.Writes {
				got = append(got, w.Path)
			}
			wantWrites := []string{"sub\xfe/a\uFFFD", "sub\xfe/a\xfe", "sub\xfe/a\xff"} // sorted
			slices.Sort(got)
			if !slices.Equal(got, wantWrites) {
				t.Errorf("writes %q, want %q", got, wantWrites)
			}
			// The result as JSON, as vigiles run --json writes it and
			// the runner reads it: three entries still.
			b, err := json.Marshal(res)
			if err != nil {
				t.Fatal(err)
			}
			var back struct{ Writes []evidence.Write }
			if err := json.Unmarshal(b, &back); err != nil {
				t.Fatal(err)
			}
			got = got[:0]
			for _, w := range back.Writes {
				got = append(got, w.Path)
			}
			slices.Sort(got)
			if !slices.Equal(got, wantWrites) {
				t.Errorf("writes read back from JSON %q, want %q\n%s", got, wantWrites, b)
			}
		})
	}
}

// TestDirectRunKeepsBytesThatAreNotUTF8: a run of trusted code, which
// crosses no JSON, gives the command the same bytes.
func TestDirectRunKeepsBytesThatAreNotUTF8(t *testing.T) {
	parent := tempDirIn(t, "", "vigiles-bytes-", 0o755)
	dir := filepath.Join(parent, "tree\xff")
	if err := os.MkdirAll(filepath.Join(dir, "sub\xfe"), 0o755); err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), Spec{Dir: dir, Cwd: "sub\xfe", Trusted: true, Mode: ModeAuto, Env: []string{"ODD=v\xfd"},
		Command: []string{"bash", "-c", `printf '%s\n' "$(pwd)" "$ODD" "$1"`, "sh", "arg\xfc"}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Tier != TierDirect {
		t.Fatalf("tier %s, want direct", res.Tier)
	}
	if got, want := string(res.StdoutBytes()), dir+"/sub\xfe\nv\xfd\narg\xfc\n"; got != want {
		t.Errorf("the command saw\n%q\nwant\n%q", got, want)
	}
}

// TestNestedCheckoutNamedNotUTF8KeepsNoToken: a checkout nested in the
// tree under a directory whose name is not UTF-8 reaches the init by that
// name (initConfig.NestedGits), which scrubs its config as any other's:
// the command (which names it by a glob), in a tree whose own path is
// such a name too, reads no
// credential there, by either writes method, and reading records no write.
func TestNestedCheckoutNamedNotUTF8KeepsNoToken(t *testing.T) {
	requireConfinement(t)
	parent := tempDirIn(t, "", "vigiles-bytes-", 0o755)
	dir := filepath.Join(parent, "tree\xff")
	gitRepo(t, dir, "[core]\n\tbare = false\n")
	gitRepo(t, filepath.Join(dir, "sub\xfe"), credConf)
	for _, method := range []string{"overlay", "copy"} {
		t.Run(method, func(t *testing.T) {
			res := run(t, Spec{Dir: dir, WritesMethod: method, Command: sh(`cat sub*/.git/config`)})
			if res.Tier != TierConfined || res.ExitCode != 0 {
				t.Fatalf("tier %s exit %d refusal %q error %q stderr %q", res.Tier, res.ExitCode, res.Refusal, res.Error, res.Stderr)
			}
			if strings.Contains(res.Stdout, "c2VjcmV0") || !strings.Contains(res.Stdout, "[http") {
				t.Errorf("the nested checkout's config as the command read it: %q; want the header out, the rest kept", res.Stdout)
			}
			if len(res.Writes) != 0 {
				t.Errorf("reading recorded writes: %+v", res.Writes)
			}
		})
	}
}

// TestCredentialFileNamedNotUTF8IsHidden: a credentials file the caller's
// environment names in the tree, under names that are not UTF-8, reaches
// the init by its name (initConfig.CredentialFiles) and reads as empty.
func TestCredentialFileNamedNotUTF8IsHidden(t *testing.T) {
	requireConfinement(t)
	parent := tempDirIn(t, "", "vigiles-bytes-", 0o755)
	dir := filepath.Join(parent, "tree\xff")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	creds := filepath.Join(dir, "gha-creds-\xfe.json")
	for p, c := range map[string]string{creds: `{"token": "TREESECRET"}`, filepath.Join(dir, "keep.txt"): "kept\n"} {
		if err := os.WriteFile(p, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("GOOGLE_APPLICATION_CREDENTIALS", creds)
	for _, method := range []string{"overlay", "copy"} {
		t.Run(method, func(t *testing.T) {
			res := run(t, Spec{Dir: dir, WritesMethod: method, Command: sh(`cat gha-creds-*.json keep.txt`)})
			if res.Tier != TierConfined || res.ExitCode != 0 {
				t.Fatalf("tier %s exit %d refusal %q error %q stderr %q", res.Tier, res.ExitCode, res.Refusal, res.Error, res.Stderr)
			}
			if res.Stdout != "kept\n" {
				t.Errorf("stdout %q, want the credentials file empty and the rest as it is", res.Stdout)
			}
			if len(res.Writes) != 0 {
				t.Errorf("writes %+v, want none", res.Writes)
			}
		})
	}
}

// TestLingeredKeepsBytesThatAreNotUTF8: a command, confined, leaves three
// sleeps whose first arguments differ only in bytes that are not UTF-8
// (one holds U+FFFD, what JSON's strings made of them on the way from the
// reaper), and a process with an empty command line whose name is such
// bytes. The record lists three command lines, each first argument quoted
// (one line, shown apart) and naming its exact bytes, and the name
// exactly, also once the result is read back from JSON.
func TestLingeredKeepsBytesThatAreNotUTF8(t *testing.T) {
	requireConfinement(t)
	dir := makeTree(t, nil)
	odd := []string{"a\xff", "a\xfe", "a\uFFFD"}
	// The main process waits until each child runs its program (its comm
	// says so), so that none is listed by the shell's command line it had
	// before its exec; then it exits and leaves them.
	script := `for a in "$@"; do (exec -a "$a" sleep 1000) & p=$!; until [ "$(cat /proc/$p/comm)" = sleep ]; do sleep 0.01; done; done
		name=$(printf 'n\377m'); ln -s "$(command -v cat)" "$TMPDIR/$name"; mkfifo "$TMPDIR/f"; exec 3<>"$TMPDIR/f"
		(exec -a "" "$TMPDIR/$name" <&3 >/dev/null 2>&1) & p=$!
		until [ "$(cat /proc/$p/comm)" = "$name" ]; do sleep 0.01; done`
	res := run(t, Spec{Dir: dir, Command: append([]string{"bash", "-c", script, "sh"}, odd...)})
	if res.Tier != TierConfined || res.ExitCode != 0 {
		t.Fatalf("tier %s exit %d refusal %q error %q stderr %q", res.Tier, res.ExitCode, res.Refusal, res.Error, res.Stderr)
	}
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	var back struct{ Lingered []string }
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	for _, l := range [][]string{res.Lingered, back.Lingered} {
		var cmds []string
		named := false
		for _, e := range l {
			_, shown, _ := strings.Cut(e, " ")
			if shown == `["n\xffm"]` {
				named = true
				continue
			}
			first, rest, _ := strings.Cut(shown, " ")
			arg, err := strconv.Unquote(first)
			if err != nil {
				t.Errorf("lingered %q: %q is not quoted (%v)", l, first, err)
			}
			cmds = append(cmds, arg+" "+rest)
		}
		want := []string{"a\xff 1000", "a\xfe 1000", "a\uFFFD 1000"}
		if !slices.Equal(cmds, want) || !named {
			t.Errorf("lingered %q: command lines %q, want %q and the process named \"n\\xffm\"", l, cmds, want)
		}
	}
}
