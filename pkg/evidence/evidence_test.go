package evidence

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestWritePathsSurviveJSON: a path that is not valid UTF-8 keeps its exact
// bytes through JSON (pathBytes), so names that differ only in invalid
// bytes stay apart; a valid path has no pathBytes.
func TestWritePathsSurviveJSON(t *testing.T) {
	checkWritesJSON(t, []Write{
		{Path: "bad\xff", Op: OpCreate, Kind: "file"},
		{Path: "bad\xfe", Op: OpCreate, Kind: "file"},
		{Path: "bad\uFFFD", Op: OpCreate, Kind: "file"},
		{Path: "dir/\xc3", Op: OpDelete},
		{Path: "ok/ünï\ncode", Op: OpModify, Kind: "file"},
	}, "pathBytes", 3, []string{
		"{\"path\":\"ok/ünï\\ncode\",\"op\":\"modify\",\"kind\":\"file\"}",
	})
}

// TestWriteTargetsSurviveJSON: a symlink's target is "target", left out
// for every other write; one that is not valid UTF-8 keeps its exact bytes
// through JSON (targetBytes), as a path does.
func TestWriteTargetsSurviveJSON(t *testing.T) {
	checkWritesJSON(t, []Write{
		{Path: "l", Op: OpCreate, Kind: "symlink", Target: "../../.git/hooks/post-commit"},
		{Path: "m", Op: OpModify, Kind: "symlink", Target: "bad\xff"},
		{Path: "bad\xfe", Op: OpCreate, Kind: "symlink", Target: "/etc/<passwd>"},
		{Path: "f", Op: OpCreate, Kind: "file"},
	}, "targetBytes", 1, []string{
		`{"path":"l","op":"create","kind":"symlink","target":"../../.git/hooks/post-commit"}`,
		`{"path":"m","op":"modify","kind":"symlink","target":"bad�","targetBytes":"YmFk/w=="}`,
		`{"path":"f","op":"create","kind":"file"}`,
	})
}

// TestWriteFromSurvivesJSON: the old path of a renamed file is "from",
// left out for every other write; one that is not valid UTF-8 keeps its
// exact bytes through JSON (fromBytes), as a path does.
func TestWriteFromSurvivesJSON(t *testing.T) {
	checkWritesJSON(t, []Write{
		{Path: "b", Op: OpCreate, Kind: "file", From: "a"},
		{Path: "d", Op: OpCreate, Kind: "file", From: "bad\xff"},
		{Path: "bad\xfe", Op: OpCreate, Kind: "file", From: "c<&>"},
		{Path: "a", Op: OpDelete},
	}, "fromBytes", 1, []string{
		`{"path":"b","op":"create","kind":"file","from":"a"}`,
		`{"path":"d","op":"create","kind":"file","from":"bad�","fromBytes":"YmFk/w=="}`,
		`{"path":"bad�","pathBytes":"YmFk/g==","op":"create","kind":"file","from":"c\u003c\u0026\u003e"}`,
		`{"path":"a","op":"delete"}`,
	})
}

// checkWritesJSON marshals in and checks that the JSON holds each of
// contains, that bytesField stands in it n times (once for each value that
// is not valid UTF-8, and for no other), and that the writes read back
// exactly as they were.
func checkWritesJSON(t *testing.T, in []Write, bytesField string, n int, contains []string) {
	t.Helper()
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range contains {
		if !strings.Contains(string(b), want) {
			t.Errorf("%s is not in %s", want, b)
		}
	}
	if got := strings.Count(string(b), `"`+bytesField+`"`); got != n {
		t.Errorf("%d %s in %s, want %d (only the values that are not UTF-8)", got, bytesField, b, n)
	}
	var out []Write
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	if len(out) != len(in) {
		t.Fatalf("%d writes back, want %d", len(out), len(in))
	}
	for i := range in {
		if out[i] != in[i] {
			t.Errorf("write %d: %+v back, want %+v", i, out[i], in[i])
		}
	}
}

func BenchmarkWritesJSON(b *testing.B) {
	ws := make([]Write, 10000)
	for i := range ws {
		ws[i] = Write{Path: "some/dir/file-" + strings.Repeat("x", i%40), Op: OpCreate, Kind: "file"}
	}
	for b.Loop() {
		data, _ := json.Marshal(ws)
		var back []Write
		json.Unmarshal(data, &back)
	}
}

// FuzzWriteJSON: a write is marshalled as encoding/json would marshal its
// fields (the hand-written common case), by json.Marshal and by an Encoder
// told to leave <, > and & alone (the CLI's JSON report), and reads back
// as it was.
func FuzzWriteJSON(f *testing.F) {
	for _, s := range []string{"", "a/b.txt", "<&>\u2028\u2029\x00\x1f\"\\\n\r\t", "bad\xff", "ünï/ç😀", "\x7f\u0085"} {
		f.Add(s, "file")
	}
	f.Fuzz(func(t *testing.T, path, kind string) {
		w := Write{Path: path, Op: OpCreate, Kind: kind, Target: path, From: path}
		got, err := json.Marshal(w)
		if err != nil {
			t.Fatal(err)
		}
		if utf8.ValidString(path) && utf8.ValidString(kind) {
			fields := struct {
				Path   string `json:"path"`
				Op     Op     `json:"op"`
				Kind   string `json:"kind,omitempty"`
				Target string `json:"target,omitempty"`
				From   string `json:"from,omitempty"`
			}{path, OpCreate, kind, path, path}
			want, _ := json.Marshal(fields)
			if string(got) != string(want) {
				t.Fatalf("marshalled %s, encoding/json says %s", got, want)
			}
			encode := func(v any) string {
				var buf bytes.Buffer
				enc := json.NewEncoder(&buf)
				enc.SetEscapeHTML(false)
				if err := enc.Encode(v); err != nil {
					t.Fatal(err)
				}
				return buf.String()
			}
			if got, want := encode(w), encode(fields); got != want {
				t.Fatalf("encoded without HTML escapes %s, encoding/json says %s", got, want)
			}
		}
		var back Write
		if err := json.Unmarshal(got, &back); err != nil {
			t.Fatal(err)
		}
		if back.Path != path || back.Target != path || back.From != path {
			t.Fatalf("path, target and from %q came back as %q, %q and %q", path, back.Path, back.Target, back.From)
		}
	})
}

// TestLumped: only the entry pkg/egress makes past the cap is lumped; a
// destination whose request line happens to read like the marker is not
// (it has a host, or an address), nor is an entry with no host for
// another reason.
func TestLumped(t *testing.T) {
	for _, c := range []struct {
		name string
		e    Egress
		want bool
	}{
		{"past the cap", Egress{Via: ViaConnect, Proto: "tcp", Detail: OverflowDetail, Attempts: 3}, true},
		{"past the cap, no attempt counted", Egress{Via: ViaConnect, Proto: "udp", Allowed: true, Detail: OverflowDetail, Packets: 2}, true},
		{"a named destination", Egress{Host: "a.example.test", Via: ViaProxy, Detail: OverflowDetail}, false},
		{"an address", Egress{IP: "192.0.2.1", Via: ViaConnect, Detail: OverflowDetail}, false},
		{"a port", Egress{Port: 80, Via: ViaProxy, Detail: OverflowDetail}, false},
		{"a malformed request", Egress{Via: ViaProxy, Proto: "http", Detail: "malformed request: x"}, false},
	} {
		if got := c.e.Lumped(); got != c.want {
			t.Errorf("%s: Lumped() = %v, want %v", c.name, got, c.want)
		}
	}
}

// Dest never names a destination with a blank.
func TestEgressDest(t *testing.T) {
	for _, c := range []struct {
		e    Egress
		want string
	}{
		{Egress{Host: "a.example.test", IP: "192.0.2.1"}, "a.example.test"},
		{Egress{IP: "192.0.2.1"}, "192.0.2.1"},
		{Egress{Via: ViaConnect, Detail: OverflowDetail}, "destinations past the first 10000, not recorded one by one"},
		{Egress{Via: ViaProxy, Detail: "malformed request: x"}, "(no host)"},
	} {
		if got := c.e.Dest(); got != c.want {
			t.Errorf("%+v: Dest() = %q, want %q", c.e, got, c.want)
		}
	}
}

// TestEgressPortZeroIsAPort: a connect to port 0 shows its port, as 0;
// a DNS question and a lumped entry have none.
func TestEgressPortZeroIsAPort(t *testing.T) {
	for _, c := range []struct {
		e    Egress
		want string
	}{
		{Egress{IP: "198.51.100.3", Proto: "tcp", Via: ViaConnect, Attempts: 1},
			`{"ip":"198.51.100.3","port":0,"proto":"tcp","via":"connect","allowed":false,"attempts":1,"packets":0,"bytes":0}`},
		{Egress{IP: "198.51.100.3", Proto: "icmp", Via: ViaConnect, Attempts: 1},
			`{"ip":"198.51.100.3","proto":"icmp","via":"connect","allowed":false,"attempts":1,"packets":0,"bytes":0}`},
		{Egress{Host: "a.test", Proto: "dns", Via: ViaDNS, Attempts: 1},
			`{"host":"a.test","proto":"dns","via":"dns","allowed":false,"attempts":1,"packets":0,"bytes":0}`},
		{Egress{Proto: "udp", Via: ViaConnect, Attempts: 3, Detail: OverflowDetail},
			`{"proto":"udp","via":"connect","allowed":false,"attempts":3,"packets":0,"bytes":0,"detail":"more destinations than vigiles records one by one"}`},
		{Egress{Host: "h.test", IP: "203.0.113.7", Port: 443, Proto: "tcp", Via: ViaProxy, Attempts: 1},
			`{"host":"h.test","ip":"203.0.113.7","port":443,"proto":"tcp","via":"proxy","allowed":false,"attempts":1,"packets":0,"bytes":0}`},
	} {
		b, err := json.Marshal(c.e)
		if err != nil || string(b) != c.want {
			t.Errorf("json.Marshal(%+v) = %s, %v; want %s", c.e, b, err, c.want)
		}
		var back Egress
		if err := json.Unmarshal(b, &back); err != nil || back != c.e {
			t.Errorf("%s read back as %+v, %v", b, back, err)
		}
	}
}

// TestEnvFileNotRecordedJSON: an env file whose content was not recorded
// is {"path", "content": null} in JSON, with no size (0 would read as
// recorded and empty) nor kind; a recorded one keeps them all, an empty
// one its size 0; both read back as they were.
func TestEnvFileNotRecordedJSON(t *testing.T) {
	empty, text := "", "export A=1\n"
	for _, c := range []struct {
		in   EnvFile
		want string
	}{
		{EnvFile{Path: "~/e"}, `{"path":"~/e","content":null}`},
		{EnvFile{Path: "~/e", Kind: "file", Size: 3}, `{"path":"~/e","content":null}`},
		{EnvFile{Path: "~/e", Kind: "none", Content: &empty}, `{"path":"~/e","kind":"none","size":0,"content":""}`},
		{EnvFile{Path: "~/e", Kind: "file", Size: 11, Content: &text}, `{"path":"~/e","kind":"file","size":11,"content":"export A=1\n"}`},
	} {
		for _, v := range []any{c.in, &c.in} {
			b, err := json.Marshal(v)
			if err != nil || string(b) != c.want {
				t.Errorf("%+v: %s (%v), want %s", c.in, b, err, c.want)
			}
		}
		var back EnvFile
		if err := json.Unmarshal([]byte(c.want), &back); err != nil || back.Path != c.in.Path || (back.Content == nil) != (c.in.Content == nil) {
			t.Errorf("%s read back as %+v (%v)", c.want, back, err)
		}
	}
}

// TestWithPort: an IPv6 address with its port is bracketed, as ::1:4000
// is itself an address.
func TestWithPort(t *testing.T) {
	for _, c := range []struct {
		dest string
		port int
		want string
	}{{"127.0.0.1", 4000, "127.0.0.1:4000"}, {"::1", 4000, "[::1]:4000"}, {"api.example.test", 443, "api.example.test:443"}, {"2001:db8::1", 0, "[2001:db8::1]:0"}} {
		if got := WithPort(c.dest, c.port); got != c.want {
			t.Errorf("WithPort(%q, %d) = %q, want %q", c.dest, c.port, got, c.want)
		}
	}
}

// TestAtLoopback: an attempt at the sandbox's loopback is one nothing
// answered, or a refused proxy request for localhost or a loopback
// address, by name or by address (the proxy records an address request
// with no host); an allowed or remote one is not.
func TestAtLoopback(t *testing.T) {
	for _, c := range []struct {
		e    Egress
		want bool
	}{
		{Egress{IP: "127.0.0.1", Port: 4000, Via: ViaLoopback}, true},
		{Egress{Host: "localhost", Port: 4000, Via: ViaProxy}, true},
		{Egress{Host: "app.localhost.", Port: 80, Via: ViaProxy}, true},
		{Egress{IP: "127.0.0.1", Port: 4000, Via: ViaProxy}, true},
		{Egress{IP: "::ffff:127.0.0.1", Port: 4000, Via: ViaProxy}, true},
		{Egress{Host: "[::1]", Port: 80, Via: ViaProxy}, true},
		{Egress{Host: "api.example.test", Port: 443, Via: ViaProxy}, false},
		{Egress{Host: "localhost", Port: 80, Via: ViaProxy, Allowed: true}, false},
		{Egress{IP: "127.0.0.1", Port: 53, Via: ViaConnect}, false},
	} {
		if got := c.e.AtLoopback(); got != c.want {
			t.Errorf("%+v: AtLoopback = %v, want %v", c.e, got, c.want)
		}
	}
}

// TestShownNameTellsNamesApart: names a command can choose that differ
// only in bytes that are not UTF-8, in U+FFFD, or in looking quoted or
// escaped, never show the same, and each shows as one line.
func TestShownNameTellsNamesApart(t *testing.T) {
	names := []string{"a\xff", "a\xfe", "a\xff\xfe", "a\uFFFD", `a\xff`, `a\ufffd`, `"a\xff"`, `"a\uFFFD"`, `"a`,
		"a", " a", "a\n", "a\u202e", `a"`, "a\\", "ü", "\xc3"}
	seen := map[string]string{}
	for _, n := range names {
		s := ShownName(n)
		if other, ok := seen[s]; ok {
			t.Errorf("%q and %q both show as %s", other, n, s)
		}
		seen[s] = n
		if strings.ContainsAny(s, "\n\r") || !utf8.ValidString(s) {
			t.Errorf("%q shows as %q, not one line of UTF-8", n, s)
		}
	}
	for n, want := range map[string]string{"a": "a", "a\xff": `"a\xff"`, "a\uFFFD": "\"a\uFFFD\"", `"a"`: `"\"a\""`, "dir/f.txt": "dir/f.txt",
		// Space at either end is quoted, so that it shows; inside, not.
		"a ": `"a "`, " a": `" a"`, "a\t": `"a\t"`, "a b": "a b"} {
		if got := ShownName(n); got != want {
			t.Errorf("ShownName(%q) = %s, want %s", n, got, want)
		}
	}
}

// TestEscapeTellsCharactersApart: each character Escape shows as an
// escape reads as that character alone: a byte that is not UTF-8 apart
// from U+FFFD, and one past U+FFFF in eight digits, so that the digit
// after \ue004 is never read as the escape's; every other character, a
// backslash and a ':' among them, is shown as itself.
func TestEscapeTellsCharactersApart(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"\x1b", `\u001b`},
		{"\r", `\u000d`},
		{"\n", `\u000a`},
		{"\b", `\u0008`},
		{"\x7f", `\u007f`},
		{"\u009b", `\u009b`},
		{"\u202e", `\u202e`},
		{"\u2028", `\u2028`},
		{"\ufeff", `\ufeff`},
		{"\ufffd", `\ufffd`},
		{"\xff", `\xff`},
		{"\U000e0041", `\U000e0041`},
		{"\\", ""}, {":", ""}, {"é", ""}, {"\ue004", ""}, {"🙂", ""},
	} {
		for i, r := range c.in {
			got, ok := Escape(c.in, i, r)
			if got != c.want || ok != (c.want != "") {
				t.Errorf("Escape(%q) = %q, %v; want %q", c.in, got, ok, c.want)
			}
			break
		}
	}
}
