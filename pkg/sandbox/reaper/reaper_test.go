package reaper

import (
	"strconv"
	"strings"
	"testing"
)

// TestReadConfig: the config and then the command are read whole, a field
// this build does not know is refused (a layer the init asks for is never
// ignored), a config of another build is named as such whatever its
// fields, and the command comes only in its own document, the one a
// reaper from before the protocol number never reads.
func TestReadConfig(t *testing.T) {
	this := func(doc string) string { return strings.ReplaceAll(doc, "PROTO", strconv.Itoa(Protocol)) }
	ok := this(`{"protocol": PROTO, "command": null, "readOnly": ["/"], "writable": ["/tmp"], "runDir": "/run/vigiles"}` + "\n" + `{"command": ["true", "x"]}` + "\n")
	r := strings.NewReader(ok)
	cfg, err := readConfig(r)
	if err != nil || cfg.RunDir != "/run/vigiles" || len(cfg.ReadOnly) != 1 || strings.Join(cfg.Command, " ") != "true x" || r.Len() != 0 {
		t.Errorf("readConfig(%s) = %+v, %v; %d bytes left unread", ok, cfg, err, r.Len())
	}
	for doc, want := range map[string]string{
		`{"protocol": PROTO, "maskNewThing": ["/x"]} {"command": ["true"]}`: `unknown field "maskNewThing"`,
		`{"protocol": 99, "maskNewThing": ["/x"]}`:                          "come from different builds",
		`{"command": ["true"]}`:                                             "(protocol 0) come from different builds",
		`{"protocol": PROTO,`:                                               "reading config",
		`{"protocol": PROTO, "command": ["true"]} {"command": ["true"]}`:    "the command comes in a document of its own",
		`{"protocol": PROTO}`:                                               "reading the command",
		`{"protocol": PROTO} {"command": ["true"], "env": []}`:              `unknown field "env"`,
		`{"protocol": PROTO} {"command": ["true"]} {}`:                      "more than the config and the command",
	} {
		if _, err := readConfig(strings.NewReader(this(doc))); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("readConfig(%s): error %v, want one saying %q", doc, err, want)
		}
	}
}
