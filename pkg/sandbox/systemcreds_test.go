package sandbox

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestHoldsCredential: the system-wide files' text that holds a token or
// a password, in each tool's shape, and text that names none.
func TestHoldsCredential(t *testing.T) {
	for _, tc := range []struct {
		text string
		want bool
	}{
		{"http_proxy=\"http://user:pw@proxy.test:3128\"\n", true},
		{"https_proxy=https://TOKEN@proxy.test\n", true},
		{"[global]\nindex-url = https://__token__:tok@pypi.test/simple\n", true},
		{"//npm.test/:_authToken=tok\n", true},
		{"//npm.test/:_auth=dXNlcjpwdw==\n", true},
		{"_password=cHc=\n", true},
		{"[Credentials]\naws_secret_access_key = k\n", true},
		{"channel_token: t\n", true},
		{"export API_TOKEN=t\n", true},
		{"<server><password>pw</password></server>\n", true},
		{"[global]\ntimeout = 60\nindex-url = https://pypi.test/simple\n", false},
		{"PATH=\"/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin\"\n", false},
		{"registry=https://npm.test/\ncafile=/etc/ssl/certs/ca.pem\n", false},
		{"ssh_url = ssh://git@host.test/x\n", false},
		{"# set a token here\n", false},
		// Maven's stock settings.xml: an example in a comment.
		{"<settings>\n<servers>\n<!-- server\n<server>\n<username>repouser</username>\n<password>repopwd</password>\n</server>\n-->\n</servers>\n</settings>\n", false},
		// A comment never closed hides nothing; one closed hides only
		// itself.
		{"<settings><!-- <password>pw</password>\n", true},
		{"<!-- x --><server><password>pw</password></server><!-- y -->\n", true},
		{"<!-- a --><!-- b -->\n", false},
		// What the hints pass over, and what they may not: the
		// expressions fold U+017F to an s and U+212A to a K.
		{"PASSWORD=x\n", true},
		{"pa\u017fsword=x\n", true},
		{"user=x\nhost=y\n", false},
		// Forms the tools take that the names alone missed: a line
		// that ends in CR alone (npm's ini and Python's configparser
		// both break lines there), leading whitespace Python strips
		// (\v, \f, NBSP), boto's proxy_pass, an API key's name (as
		// RubyGems' :rubygems_api_key:), a SOCKS or FTP proxy's user
		// part, conda's channel token in its URL (/t/TOKEN/), Maven's
		// <password> with an attribute and GitLab's Private-Token,
		// Job-Token or Authorization header in a server's
		// httpHeaders, and a PEM private key (npm's key=).
		{"registry=https://npm.test/\r//npm.test/:_authToken=tok\r", true},
		{"[Credentials]\r\r\raws_secret_access_key = k\r", true},
		{"[Credentials]\n\vaws_secret_access_key = k\n", true},
		{"[Credentials]\n\u00a0aws_secret_access_key\u00a0= k\n", true},
		{"[Boto]\nproxy = proxy.test\nproxy_user = u\nproxy_pass = pw\n", true},
		{"ANTHROPIC_API_KEY=sk-x\n", true},
		{"---\n:rubygems_api_key: rubygems_x\n", true},
		{"DJANGO_SECRET_KEY=x\n", true},
		{"all_proxy=socks5h://user:pw@proxy.test:1080\n", true},
		{"ftp_proxy=ftp://user:pw@proxy.test\n", true},
		// A ' is a sub-delim RFC 3986 lets a password hold unescaped,
		// and pip passes such a URL on as it is.
		{"[global]\nindex-url = https://u:it's@pypi.test/simple\n", true},
		{"channels:\n  - https://conda.test/t/tk-0123abcd/private\n", true},
		{"<server><id>r</id><password combine.self=\"override\">pw</password></server>\n", true},
		{"<server><id>gitlab</id><configuration><httpHeaders><property><name>Private-Token</name><value>glpat-x</value></property></httpHeaders></configuration></server>\n", true},
		{"<property><name>Job-Token</name><value>${CI_JOB_TOKEN}</value></property>\n", true},
		{"<property>\n<name>Authorization</name>\n<value>Bearer x</value>\n</property>\n", true},
		{"key=\"-----BEGIN PRIVATE KEY-----\\nMIIE\\n-----END PRIVATE KEY-----\"\n", true},
		// What they still pass over: a key's id, a path to a key or a
		// certificate, a channel without a token, ssh's user part.
		{"[Credentials]\naws_access_key_id = AKIA\n", false},
		{"client_ssl_cert_key: /etc/ssl/k.pem\nssl_verify: true\n", false},
		{"//npm.test/:keyfile=/etc/ssl/k.pem\n//npm.test/:certfile=/etc/ssl/c.pem\n", false},
		{"channels:\n  - https://conda.test/tools/t\n  - conda-forge\n", false},
		{"all_proxy=socks5://proxy.test:1080\n", false},
		{"<settings><servers><server><id>r</id><username>u</username></server></servers></settings>\n", false},
		{"GPG_KEY_ID=ABCD\nno_bypass=1\n", false},
		// A YAML list item whose first key names a credential (a
		// condarc's or any YAML config's list of mappings), nested
		// lists too; conda's channels and custom_channels with a
		// token or a user part in their URLs.
		{"channel_settings:\n  - token: h115-x\n    channel: https://conda.test/private\n", true},
		{"servers:\n- password: pw\n", true},
		{"items:\n  -  api_key: k\n", true},
		{"items:\n  - - secret: s\n", true},
		{"items:\n\t-\tpassword: pw\n", true},
		{"channels:\n  - https://conda.test/t/tk-1/private\n  - defaults\n", true},
		{"custom_channels:\n  private: https://u:pw@conda.test/channels\n", true},
		// A key past the first of a YAML flow mapping, a one-line
		// JSON object or a TOML inline table (after a { , or [ on a
		// line no # comments out before it), quoted too; conda's
		// custom_channels as a flow mapping with a user part in its
		// URL, which the URL alone shows.
		{"channels: [{channel: https://conda.test/x, token: tk}]\n", true},
		{"channels: [{token: tk}]\n", true},
		{"channels: [token: tk]\n", true},
		{"{\"registry\": \"https://npm.test/\", \"_authToken\": \"t\"}\n", true},
		{"{\"registry\":\"r\",\"//npm.test/:_authToken\":\"t\"}\n", true},
		{"{'user': 'u', 'password': 'p'}\n", true},
		{"[registries]\nprivate = { index = \"https://r.test/\", token = \"t\" }\n", true},
		{"custom_channels: {private: https://u:pw@conda.test/channels}\n", true},
		// A # that a JSON string holds (not after a space) comments
		// nothing out.
		{"{\"color\": \"#fff\", \"token\": \"t\"}\n", true},
		// What those forms still pass over: such a word in a value or
		// a name that only holds it, a commented-out line.
		{"channels: [{channel: https://conda.test/x, auth: none}]\n", false},
		{"{\"max_tokens\": 5, \"tokenizer\": \"x\", \"api\": \"v1\"}\n", false},
		{"# channels: [{channel: x, token: y}]\n", false},
		{"opts: {mode: token-auth, ssl_verify: true}\n", false},
		// A JSON string that holds a space and a # reads as a YAML
		// comment's start (the limit docs/security.md names).
		{"{\"note\": \"a #1\", \"token\": \"t\"}\n", false},
		// A shell's ${NAME:-…} names a variable, a login script's
		// (debootstrap's functions: ${PRIVATEKEY:+"$PRIVATEKEY"}).
		{"[ -n \"${NPM_TOKEN:-}\" ] && echo set\nwget ${PRIVATEKEY:+\"$PRIVATEKEY\"} -O x\n", false},
		// Bundler's credentials for a source, keyed by its host
		// (bundle config set github.com TOKEN), or its URL, in its
		// YAML config or the environment's form.
		{"---\nBUNDLE_GITHUB__COM: \"x-access-token:h115-x\"\n", true},
		{"---\nBUNDLE_RUBYGEMS__PKG__GITHUB__COM: \"u:t\"\n", true},
		{"---\nBUNDLE_GEM__FURY__IO: \"t\"\n", true},
		{"---\nBUNDLE_MY___GEMS__EXAMPLE__TEST: \"u:p\"\n", true},
		{"---\nBUNDLE_HTTPS://RUBYGEMS__PKG__GITHUB__COM/OWNER: \"u:t\"\n", true},
		{"---\nBUNDLE_HTTPS://GEMS__EXAMPLE__TEST:8443/: \"u:t\"\n", true},
		{"BUNDLE_GITHUB__COM=t\n", true},
		{"export BUNDLE_GEMS__CONTRIBSYS__COM=u:p\n", true},
		// A host with a dash and no dot (BUNDLE_MY___GEMS: no
		// setting of Bundler's holds ___), and a key written with
		// the host's dashes or dots, which Bundler's config loader
		// takes as ___ and __ (a dash with a warning), its URL's too.
		{"---\nBUNDLE_MY___GEMS: \"u:p\"\n", true},
		{"BUNDLE_GEM___SERVER=t\n", true},
		{"---\nBUNDLE_MY-GEMS__EXAMPLE__TEST: \"u:p\"\n", true},
		{"---\nBUNDLE_GEMS.EXAMPLE.TEST: \"u:p\"\n", true},
		{"---\nBUNDLE_HTTPS://MY-GEMS.EXAMPLE.TEST/: \"u:p\"\n", true},
		// Bundler's own settings, in those forms too, are none; nor
		// is a host with neither a dot nor a dash (BUNDLE_LOCALHOST,
		// BUNDLE_GEMS), which reads as any one-word setting of
		// Bundler's, known or not (the limit docs/security.md names).
		{"---\nBUNDLE_BUILD.NOKOGIRI: \"--use-system-libraries\"\nBUNDLE_LOCAL.MY-GEM: \"/src/g\"\nBUNDLE_BUILD__MY-GEM: \"--x\"\nBUNDLE_GEM.TEST: \"rspec\"\n", false},
		{"---\nBUNDLE_SILENCE_ROOT_WARNING: \"1\"\nBUNDLE_FORCE_RUBY_PLATFORM: \"true\"\nBUNDLE_WITHOUT: \"development:test\"\nBUNDLE_APP_CONFIG: \"/usr/local/bundle\"\n", false},
		{"---\nBUNDLE_LOCALHOST: \"u:p\"\nBUNDLE_GEMS: \"t\"\n", false},
		// What the forms still pass over: a list of plain values or
		// of mappings with no such key, a dash that starts no list
		// item, and Bundler's own settings (a gem's build options,
		// a local override, gem's defaults, a mirror without
		// credentials in its URL).
		{"channels:\n  - conda-forge\n  - channel: https://conda.test/x\n    auth: conda-auth\n", false},
		{"opts:\n  -tokenizer\n", false},
		{"---\nBUNDLE_PATH: \"/usr/local/bundle\"\nBUNDLE_BUILD__NOKOGIRI: \"--use-system-libraries\"\nBUNDLE_LOCAL__RACK: \"/src/rack\"\n", false},
		{"---\nBUNDLE_GEM__TEST: \"rspec\"\nBUNDLE_GEM__CI: \"github\"\nBUNDLE_GEM__MIT: \"true\"\nBUNDLE_BUILD__SOME___GEM: \"--x\"\n", false},
		{"---\nBUNDLE_MIRROR__HTTPS://RUBYGEMS__ORG/: \"https://mirror.test/\"\nBUNDLE_JOBS: \"4\"\n", false},
		// Bundler's own path.system (bundle config set path.system true).
		{"---\nBUNDLE_PATH__SYSTEM: \"true\"\n", false},
		// systemd's Environment= (a drop-in's, each assignment of its
		// line) and pam_env.conf's NAME DEFAULT= or OVERRIDE=, the
		// forms of two files of the list, where a name that says it
		// holds a token did not start the line.
		{"[Service]\nEnvironment=\"GITHUB_TOKEN=ghp_x\"\n", true},
		{"[Service]\nEnvironment=GITHUB_TOKEN=ghp_x\n", true},
		{"[Service]\nEnvironment=\"A=1\" \"AWS_SECRET_ACCESS_KEY=k\"\n", true},
		{"[Service]\nEnvironment=A=1 NPM_TOKEN=t\n", true},
		{"NPM_TOKEN DEFAULT=t\n", true},
		{"API_KEY\tOVERRIDE=\"k\"\n", true},
		{"[Service]\nEnvironment=\"HTTP_PROXY=http://proxy.test:3128\" \"NO_PROXY=localhost\"\nExecStart=/usr/bin/dockerd --tokenfile=/x\n", false},
		{"PAGER DEFAULT=less\nEDITOR OVERRIDE=vi\n", false},
		// A shell's assignment past a line's start (a login script of
		// /etc/profile.d): after another on an export line, after
		// && or ;, after declare -x; not in a comment, not an
		// option's name.
		{"[ -n \"$CI\" ] && export NPM_TOKEN=t\n", true},
		{"export A=1 GITHUB_TOKEN=t\n", true},
		{"if true; then API_KEY=k; fi\n", true},
		{"declare -x API_TOKEN=t\n", true},
		{"# export A=1 GITHUB_TOKEN=t\n", false},
		{"exec app --token-file=/run/x --api-key-file=/run/k\n", false},
		{"[ -r /etc/x ] && . /etc/x\nPS1='\\u@\\h:\\w\\$ '\n", false},
		// The stock files of those images: the Ruby image's gemrc.
		{"gem: --no-document\n", false},
	} {
		if got := holdsCredential([]byte(tc.text)); got != tc.want {
			t.Errorf("holdsCredential(%q) = %v, want %v", tc.text, got, tc.want)
		}
		// The hints never pass over what the expressions match.
		b := withoutXMLComments([]byte(tc.text))
		if full := matchesCredential(b); full && !hintsCredential(lowerASCII(b)) {
			t.Errorf("hintsCredential(%q) passes over a text the expressions match", tc.text)
		}
	}
}

// FuzzHoldsCredential: holdsCredential, with its hints and its comment
// cut, says what matchesCredential (the expressions, with Bundler's own
// settings told apart) says over the text with every XML comment taken
// out by an expression too: the hints pass over no text they match.
func FuzzHoldsCredential(f *testing.F) {
	for _, s := range []string{"http_proxy=http://u:p@h\n", "//n/:_authToken=t\n", "- token: t\n", "BUNDLE_GITHUB__COM: t\n", "BUNDLE_BUILD__X: y\n", "<!-- <password>p</password> -->",
		"<!-- a <!-- b --> <password>x</password>", "pa\u017fsword=1", "\u212aey_token: 1", "export A_SECRET=1", "user=x\n",
		"{\"a\": 1, \"token\": 2}\n", "x: [{a: b, secret: c}] # d\n", "${API_TOKEN:-x}\n", "BUNDLE_MY-GEMS.TEST: t\n",
		"ftp://u@h", "x=https://h/a/T/b", "http:///t/1", "token\v\x1c=1", "password\n\n:1", "a secret_key\t override=1", "'api_key' default=x", "<name> job-token </name>", "-----BEGIN EC PRIVATE KEY-----", "p\u00e4ssword=1", "token\u00a0=1"} {
		f.Add([]byte(s))
	}
	comment := regexp.MustCompile(`(?s)<!--.*?-->`)
	f.Fuzz(func(t *testing.T, b []byte) {
		c := comment.ReplaceAll(b, nil)
		want := matchesCredential(c)
		if got := holdsCredential(b); got != want {
			t.Errorf("holdsCredential(%q) = %v, the expressions say %v", b, got, want)
		}
	})
}

// TestSystemCredentialPathsCoverImages: the places well-known images and
// runner images keep these tools' system-wide files under their own
// prefixes are among systemCredentialPaths (a path or a glob that
// matches it): the Ruby image's system gemrc (Ruby built with prefix
// /usr/local reads $sysconfdir/gemrc) and Bundler's config
// (BUNDLE_APP_CONFIG=/usr/local/bundle), the Rust image's CARGO_HOME,
// the Gradle image's GRADLE_HOME (/opt/gradle) and the runner images'
// Gradle and Maven under /usr/share, conda's $CONDA_ROOT/condarc.d and
// pip's site config of conda's prefix (/opt/conda).
func TestSystemCredentialPathsCoverImages(t *testing.T) {
	for _, p := range []string{
		"/usr/local/etc/gemrc",
		"/usr/local/bundle/config",
		"/usr/local/cargo/credentials.toml", "/usr/local/cargo/credentials",
		"/opt/gradle/gradle.properties", "/usr/share/gradle-8.14.3/gradle.properties", "/usr/share/gradle/gradle.properties",
		"/usr/share/apache-maven-3.9.11/conf/settings.xml",
		"/opt/conda/condarc.d/private.yml", "/opt/conda/pip.conf",
	} {
		if !slices.ContainsFunc(systemCredentialPaths, func(g string) bool {
			ok, err := filepath.Match(g, p)
			return err == nil && ok
		}) {
			t.Errorf("%s: no path of systemCredentialPaths matches it", p)
		}
	}
}

// TestUnitWorkingDirs: a runner's unit names its directory as systemd
// reads it, with svc.sh's form and the others systemd takes.
func TestUnitWorkingDirs(t *testing.T) {
	for _, tc := range []struct {
		unit string
		want []string
	}{
		{"[Service]\nWorkingDirectory=/opt/a\n", []string{"/opt/a"}},
		{"[Service]\r\n  WorkingDirectory = -/opt/b/ \r\n", []string{"/opt/b"}},
		{"[Service]\n#WorkingDirectory=/opt/c\nWorkingDirectory=~\nWorkingDirectory=rel\n", nil},
	} {
		if got := unitWorkingDirs([]byte(tc.unit)); !slices.Equal(got, tc.want) {
			t.Errorf("unitWorkingDirs(%q) = %q, want %q", tc.unit, got, tc.want)
		}
	}
}

// TestReadSmallRegular: a system-wide file is read without waiting on a
// FIFO or following a link put at its place, and one past
// maxSystemCredentialFile is an error (the run refuses), not a file read
// in part and shown as holding nothing.
func TestReadSmallRegular(t *testing.T) {
	d := t.TempDir()
	p := filepath.Join(d, "pip.conf")
	text := "[global]\nindex-url = https://u:tok@pypi.test/simple\n"
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, err := readSmallRegular(p, maxSystemCredentialFile); err != nil || string(b) != text {
		t.Errorf("readSmallRegular(file) = %q, %v", b, err)
	}
	fifo := filepath.Join(d, "fifo")
	if err := unix.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if b, err := readSmallRegular(fifo, maxSystemCredentialFile); err != nil || b != nil {
			t.Errorf("readSmallRegular(FIFO) = %q, %v; want nothing", b, err)
		}
	}()
	select {
	case <-done:
	case <-time.After(time.Minute): // ends a hang only
		t.Fatal("readSmallRegular waits on a FIFO")
	}
	link := filepath.Join(d, "link")
	if err := os.Symlink(p, link); err != nil {
		t.Fatal(err)
	}
	if b, err := readSmallRegular(link, maxSystemCredentialFile); err != nil || b != nil {
		t.Errorf("readSmallRegular(link) = %q, %v; want nothing (the caller resolves links)", b, err)
	}
	big := filepath.Join(d, "big")
	if err := os.WriteFile(big, []byte(strings.Repeat("x", maxSystemCredentialFile)+"\n"+text), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, err := readSmallRegular(big, maxSystemCredentialFile); err == nil {
		t.Errorf("readSmallRegular(%d bytes) = %d bytes, no error; want a refusal", maxSystemCredentialFile+1+len(text), len(b))
	}
	if b, err := readSmallRegular(filepath.Join(d, "missing"), maxSystemCredentialFile); err != nil || b != nil {
		t.Errorf("readSmallRegular(missing) = %q, %v", b, err)
	}
}

// TestFileHoldsCredentialSeesAChange: what fileHoldsCredential keeps of a
// file is taken again only while the file is the same: a rewrite of the
// same size that adds a credential is read anew, and a file changed as
// recently as racyMargin is not kept at all.
func TestFileHoldsCredentialSeesAChange(t *testing.T) {
	p := filepath.Join(t.TempDir(), "pip.conf")
	if err := os.WriteFile(p, []byte("index-url = https://x.test/simple\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// Just written: not kept.
	if holds, err := fileHoldsCredential(p); err != nil || holds {
		t.Fatalf("a file with no credential: %v, %v", holds, err)
	}
	if _, kept := fileChecks.Load(p); kept {
		t.Fatal("a file changed within racyMargin was kept")
	}
	// Kept as if read long after its change, then rewritten, as long
	// as it takes the coarse clock to stamp another ctime.
	var st unix.Stat_t
	if err := unix.Lstat(p, &st); err != nil {
		t.Fatal(err)
	}
	future := st.Ctim.Nano() + 2*racyMargin.Nanoseconds()
	if holds, err := fileHoldsCredentialAt(p, future); err != nil || holds {
		t.Fatalf("a file with no credential: %v, %v", holds, err)
	}
	if _, kept := fileChecks.Load(p); !kept {
		t.Fatal("a file older than racyMargin on a local file system was not kept")
	}
	was := st.Ctim
	for bound := time.Now().Add(10 * time.Second); st.Ctim == was; {
		if time.Now().After(bound) {
			t.Fatal("the file's ctime did not change in 10 s of rewrites")
		}
		time.Sleep(5 * time.Millisecond)
		if err := os.WriteFile(p, []byte("index-url = https://u:p@x.test/si\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := unix.Lstat(p, &st); err != nil {
			t.Fatal(err)
		}
	}
	if holds, err := fileHoldsCredentialAt(p, future); err != nil || !holds {
		t.Fatalf("the same file rewritten with a credential, same size: %v, %v", holds, err)
	}
}

// BenchmarkHoldsCredential times holdsCredential over texts of a
// system-wide file's size that hold its hints and no credential (what a
// stock file costs each run that reads it anew): a commented INI file
// (wgetrc's shape) and a YAML config with flow mappings (a condarc's),
// which name a secret as a setting does, in a comment, so that every
// expression reads the whole text; and a one-line JSON object and a
// commented config whose hints are words of its prose (wgetrc's and
// pam_env's as Debian ships them, an apt config's), which
// credentialGates passes over. Each beside "expressions": the same text
// through the hints and matchesCredential alone, as before the gates.
func BenchmarkHoldsCredential(b *testing.B) {
	for _, tc := range []struct{ name, text string }{
		{"ini", strings.Repeat("# Set the password for FTP and HTTP here:\n#password = x\n#use_proxy = on\ntimeout = 60\n", 60)},
		{"yaml", strings.Repeat("channels:\n  - conda-forge\n  - {channel: https://conda.test/x, auth: none}\nssl_verify: true\n# token: see conda token\n", 60)},
		{"json", `{"registry": "https://npm.test/", ` + strings.Repeat(`"tokenizer": "x", "api": "v1", `, 100) + `"end": 1}` + "\n"},
		{"prose", strings.Repeat("# Use passive FTP to get past a firewall, and the proxy's password\n# from the environment; mail bugs to maint@example.test,\n# see https://docs.example.test/rapid-api for more.\n#passive_ftp = on\nAPT::Update::Post-Invoke { \"true\"; };\n", 30)},
	} {
		text := []byte(tc.text)
		if holdsCredential(text) {
			b.Fatalf("%s: the text holds a credential", tc.name)
		}
		b.Run(tc.name, func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				holdsCredential(text)
			}
		})
		b.Run(tc.name+"/expressions", func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				c := withoutXMLComments(text)
				_ = hintsCredential(lowerASCII(c)) && matchesCredential(c)
			}
		})
	}
}

// TestSecretNameWords: the words credentialGates looks for are
// secretName's alternatives, each optional _ both ways: a word the
// expression gains and the list lacks would pass a text over.
func TestSecretNameWords(t *testing.T) {
	var want []string
	for _, alt := range strings.Split(strings.TrimSuffix(strings.TrimPrefix(secretName, "(?:"), ")"), "|") {
		if a, b, ok := strings.Cut(alt, "_?"); ok {
			want = append(want, a+"_"+b, a+b)
			continue
		}
		want = append(want, alt)
	}
	var got []string
	for _, w := range secretNameWords {
		got = append(got, string(w))
	}
	slices.Sort(want)
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("secretNameWords = %q, secretName's alternatives are %q", got, want)
	}
}
