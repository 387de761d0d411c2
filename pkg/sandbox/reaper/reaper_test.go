package reaper

import (
	"errors"
	"io"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// readConfig reads both documents as the reaper does, the command after
// the config.
func readConfig(r io.Reader) (Config, CommandDoc, error) {
	cr := newConfigReader(r)
	cfg, err := cr.config()
	if err != nil {
		return cfg, CommandDoc{}, err
	}
	cmd, err := cr.command()
	return cfg, cmd, err
}

// TestReadConfig: the config and then the command (with its environment)
// are read whole, to the pipe's end, a field this build does not know is
// refused (a layer the init asks for is never ignored), a config of
// another build is named as such whatever its fields, and the command
// comes only in its own document, the one a reaper from before the
// protocol number never reads.
func TestReadConfig(t *testing.T) {
	this := func(doc string) string { return strings.ReplaceAll(doc, "PROTO", strconv.Itoa(Protocol)) }
	ok := this(`{"protocol": PROTO, "command": null, "readOnly": ["/"], "writable": ["/tmp"], "runDir": "/run/vigiles", "resolvConfFile": "/run/vigiles/resolv.conf"}` + "\n" + `{"command": ["true", "x"], "env": ["A=1"]}` + "\n")
	r := strings.NewReader(ok)
	cfg, cmd, err := readConfig(r)
	if err != nil || cfg.RunDir != "/run/vigiles" || len(cfg.ReadOnly) != 1 || cfg.ResolvConfFile != "/run/vigiles/resolv.conf" ||
		strings.Join(cmd.Command, " ") != "true x" || strings.Join(cmd.Env, " ") != "A=1" || r.Len() != 0 {
		t.Errorf("readConfig(%s) = %+v, %+v, %v; %d bytes left unread", ok, cfg, cmd, err, r.Len())
	}
	for doc, want := range map[string]string{
		`{"protocol": PROTO, "maskNewThing": ["/x"]} {"command": ["true"]}`: `unknown field "maskNewThing"`,
		`{"protocol": 99, "maskNewThing": ["/x"]}`:                          "come from different builds",
		`{"command": ["true"]}`:                                             "(protocol 0) come from different builds",
		`{"protocol": PROTO,`:                                               "reading config",
		`{"protocol": PROTO, "command": ["true"]} {"command": ["true"]}`:    "the command comes in a document of its own",
		`{"protocol": PROTO}`:                                               "reading the command",
		`{"protocol": PROTO, "env": []} {"command": ["true"]}`:              `unknown field "env"`,
		`{"protocol": PROTO} {"command": ["true"], "cwd": "/"}`:             `unknown field "cwd"`,
		`{"protocol": PROTO} {"command": ["true"]} {}`:                      "more than the config and the command",
		`{"protocol": PROTO} {"command": ["true"]} ]`:                       "more than the config and the command",
	} {
		if _, _, err := readConfig(strings.NewReader(this(doc))); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("readConfig(%s): error %v, want one saying %q", doc, err, want)
		}
	}
}

// TestLimitedReader: the config's bound lets exactly its size through and
// refuses one byte more, rather than cutting it short.
func TestLimitedReader(t *testing.T) {
	for _, c := range []struct {
		in   string
		n    int64
		fail bool
	}{{"abcd", 4, false}, {"abcd", 5, false}, {"abcd", 3, true}, {"", 0, false}, {"a", 0, true}} {
		b, err := io.ReadAll(&limitedReader{r: strings.NewReader(c.in), n: c.n})
		if c.fail != (err != nil) || !c.fail && string(b) != c.in {
			t.Errorf("reading %q under %d: %q, %v", c.in, c.n, b, err)
		}
	}
}

// A mount whose path vanished (ENOENT) is told apart from any other
// failure to remount it: the broker starts such a run again.
func TestRemountError(t *testing.T) {
	if err := remountError("/github", unix.ENOENT); !strings.HasPrefix(err.Error(), VanishedMount) || !errors.Is(err, unix.ENOENT) {
		t.Errorf("ENOENT: %v; want it to start with %q", err, VanishedMount)
	}
	if err := remountError("/github", unix.EPERM); strings.HasPrefix(err.Error(), VanishedMount) {
		t.Errorf("EPERM: %v; want a plain refusal", err)
	}
}
