package reaper

import (
	"strconv"
	"strings"
	"testing"
)

// TestReadConfig: the config is read whole, a field this build does not
// know is refused (a layer the init asks for is never ignored), and a
// config of another build is named as such whatever its fields.
func TestReadConfig(t *testing.T) {
	this := func(doc string) string { return strings.ReplaceAll(doc, "PROTO", strconv.Itoa(Protocol)) }
	ok := this(`{"protocol": PROTO, "command": ["true"], "readOnly": ["/"], "writable": ["/tmp"], "runDir": "/run/vigiles"}` + "\n")
	r := strings.NewReader(ok)
	cfg, err := readConfig(r)
	if err != nil || cfg.RunDir != "/run/vigiles" || len(cfg.ReadOnly) != 1 || r.Len() != 0 {
		t.Errorf("readConfig(%s) = %+v, %v; %d bytes left unread", ok, cfg, err, r.Len())
	}
	for doc, want := range map[string]string{
		`{"protocol": PROTO, "command": ["true"], "maskNewThing": ["/x"]}`: `unknown field "maskNewThing"`,
		`{"protocol": 99, "command": ["true"], "maskNewThing": ["/x"]}`:    "come from different builds",
		`{"command": ["true"]}`: "(protocol 0) come from different builds",
		`{"protocol": PROTO,`:   "reading config",
	} {
		if _, err := readConfig(strings.NewReader(this(doc))); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("readConfig(%s): error %v, want one saying %q", doc, err, want)
		}
	}
}
