package escape

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// imageCredentialFiles are the files, by their absolute paths, that
// TestRedteam19ImagesSystemCredentialFilesAreEmptied adds, each with a
// token where a well-known image or GitHub's runner images keep that
// tool's system-wide file under their own prefix, in the tool's form; and
// one of those places with no credential, which must read as it is.
var imageCredentialFiles = map[string]string{
	// conda: a YAML list item whose first key is the token.
	"/etc/conda/condarc.d/list.yml": "channel_settings:\n  - token: h115-condalist-token\n    channel: https://conda.example.test/private\n",
	// conda: a token past a flow mapping's first key, on one line.
	"/etc/conda/condarc.d/flow.yml": "channel_settings: [{channel: https://conda.example.test/private, token: \"h115-condaflow-token\"}]\n",
	// The Ruby image: Bundler's config (BUNDLE_APP_CONFIG=/usr/local/bundle),
	// a source's token keyed by its host, and RubyGems' system gemrc
	// (Ruby built with prefix /usr/local reads /usr/local/etc/gemrc; the
	// image writes `gem: --no-document` there).
	"/usr/local/bundle/config": "---\nBUNDLE_GITHUB__COM: \"x-access-token:h115-bundle-token\"\n",
	"/usr/local/etc/gemrc":     "gem: --no-document\n:sources:\n- https://gemuser:h115-gemrc-token@gems.example.test/\n",
	// The Rust image: CARGO_HOME=/usr/local/cargo, where `cargo login`
	// writes its token.
	"/usr/local/cargo/credentials.toml": "[registry]\ntoken = \"h115-cargo-token\"\n",
	// The Gradle image (GRADLE_HOME=/opt/gradle) and the runner images
	// (Gradle and Maven unpacked into /usr/share): the installation's
	// gradle.properties and Maven's global settings.xml.
	"/opt/gradle/gradle.properties":                    "mavenUser=u\nmavenPassword=h115-gradle-token\n",
	"/usr/share/gradle-8.14.3/gradle.properties":       "systemProp.https.proxyUser=u\nsystemProp.https.proxyPassword=h115-rgradle-token\n",
	"/usr/share/apache-maven-3.9.11/conf/settings.xml": "<settings><servers><server><id>x</id><username>u</username><password>h115-rmaven-token</password></server></servers></settings>\n",
	// conda's images (its root at /opt/conda): $CONDA_ROOT/condarc.d
	// and pip's site config of that prefix.
	"/opt/conda/condarc.d/private.yml": "channels:\n  - https://conda.example.test/t/h115-optcondad-token/private\n",
	"/opt/conda/pip.conf":              "[global]\nindex-url = https://__token__:h115-condapip-token@pypi.example.test/simple\n",
	// Two files of the list whose own forms the setting names missed: a
	// systemd drop-in's Environment= line past its first assignment
	// (or its first, quoted), and pam_env.conf's NAME DEFAULT=VALUE.
	"/etc/systemd/system/runner.service.d/env.conf": "[Service]\nEnvironment=\"RUNNER_ALLOW_RUNASROOT=1\" \"GITHUB_TOKEN=h115-dropin-token\"\n",
	"/etc/security/pam_env.conf":                    "NPM_TOKEN DEFAULT=h115-pamenv-token\n",
	// A drop-in that names the file with the proxy's credentials
	// (Docker's documented EnvironmentFile=, - for "if it is there"):
	// the drop-in, which holds none, reads as it is, the file as empty.
	"/etc/systemd/system/docker.service.d/proxy.conf": "[Service]\nEnvironmentFile=-/etc/default/docker-proxy\n",
	"/etc/default/docker-proxy":                       "HTTPS_PROXY=http://u:h115-envfile-token@proxy.example.test:3128\n",
	// A login script's assignment past its line's start.
	"/etc/profile.d/h115-ci.sh": "[ -n \"$CI\" ] && export NPM_TOKEN=h115-profile-token\n",
	// No credential: read as it is.
	"/usr/share/gradle/gradle.properties": "org.gradle.daemon=false\n",
}

// TestRedteam19ImagesSystemCredentialFilesAreEmptied: the nineteenth
// round's attempt (scripts/redteam18syscreds2.py) against the system-wide
// files the check of the eighteenth round left out: a token in a YAML
// list item (`- token: …`, which the setting names did not take for
// one), Bundler's credentials for a source keyed by its host
// (BUNDLE_GITHUB__COM), a token's name in a systemd drop-in's
// Environment= line, in pam_env.conf's NAME DEFAULT= and in a login
// script's `… && export NPM_TOKEN=…` (which the names took for one only
// at a line's start), the file a drop-in's EnvironmentFile= names, and each tool's system-wide file at the prefix a
// well-known image installs it under (the Ruby image's gemrc and Bundler
// config, the Rust image's CARGO_HOME, the Gradle image's and the runner
// images' Gradle and Maven, conda's root): each world-readable and read
// whole by every caller and a --root-sandbox run. Each that holds a
// credential now reads as empty; the one that holds none reads as it is.
// The test adds them in a mount namespace of its own: an overlay over
// /etc, /usr/local and /usr/share (their upper layers on a tmpfs) and a
// tmpfs over /opt.
func TestRedteam19ImagesSystemCredentialFilesAreEmptied(t *testing.T) {
	requireBwrap(t)
	requireRoot(t, "the test puts system-wide configuration files in place in a mount namespace of its own")
	requireTools(t, "python3", "unshare", "setpriv")
	for _, d := range []string{"/usr/local", "/usr/share", "/opt"} {
		if fi, err := os.Stat(d); err != nil || !fi.IsDir() {
			lacking(t, "a directory "+d)
		}
	}
	etc := map[string]string{}
	others := t.TempDir()
	os.Chmod(others, 0o755)
	args := []string{"--", "python3", "redteam18syscreds2.py"}
	paths := make([]string, 0, len(imageCredentialFiles))
	for p := range imageCredentialFiles {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	for _, p := range paths {
		text := imageCredentialFiles[p]
		if rel, ok := strings.CutPrefix(p, "/etc/"); ok {
			etc[rel] = text
		} else {
			q := filepath.Join(others, p)
			if err := os.MkdirAll(filepath.Dir(q), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(q, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		token := "+" + strings.TrimSpace(text)
		if i := strings.Index(text, "h115-"); i >= 0 {
			token = text[i : i+strings.IndexAny(text[i:], "@\"<\n/")]
		}
		args = append(args, p+"="+token)
	}
	// /opt is a tmpfs, /usr/local and /usr/share overlays; each file of
	// $OTHERS is copied to its path there, world-readable.
	setup := etcOverlay + `mount -t tmpfs -o mode=0755 tmpfs /opt
for d in /usr/local /usr/share; do
	o=$(mktemp -d -p "$OV")
	mkdir "$o/u" "$o/w"
	mount -t overlay overlay -o "lowerdir=$d,upperdir=$o/u,workdir=$o/w" $d
done
(cd "$OTHERS" && for f in $(find . -type f); do
	mkdir -p "/${f%/*}"
	cp "$f" "/$f"
	chmod 0644 "/$f"
done)
chmod -R go+rX /opt /usr/local/bundle /usr/local/etc /usr/local/cargo
`
	for _, c := range callers(t) {
		t.Run(c.name(), func(t *testing.T) {
			dir := workTree(t)
			res := vigilesInMountNS(t, c.runner, dir, setup, []string{"OV=" + t.TempDir(), "ETC=" + etcFiles(t, etc), "OTHERS=" + others}, c.withArgs(args)...)
			checkScriptRan(t, res, len(imageCredentialFiles))
		})
	}
}
