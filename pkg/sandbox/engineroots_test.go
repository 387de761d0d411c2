package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestDockerDataRoots: of a daemon.json, "data-root", "graph" and
// "exec-root" as
// dockerd's encoding/json reads them (a key in another case too, the
// last of two); a file it could not read (a comment, a trailing comma)
// or a value not a string names nothing.
func TestDockerDataRoots(t *testing.T) {
	for _, c := range []struct {
		name, in string
		want     []string
	}{
		{"data-root", `{"data-root": "/mnt/docker", "log-driver": "json-file"}`, []string{"/mnt/docker"}},
		{"graph", `{"graph": "/data/docker"}`, []string{"/data/docker"}},
		{"both", `{"graph": "/old", "data-root": "/new"}`, []string{"/new", "/old"}},
		{"exec-root", `{"exec-root": "/data/docker-run", "data-root": "/data/docker"}`, []string{"/data/docker", "/data/docker-run"}},
		{"case", `{"Data-Root": "/opt/docker"}`, []string{"/opt/docker"}},
		{"last of two", `{"data-root": "/a", "data-root": "/b"}`, []string{"/b"}},
		{"relative kept for the caller to refuse", `{"data-root": "docker"}`, []string{"docker"}},
		{"comment", "{\n// moved to the data disk\n\"data-root\": \"/mnt/docker\"\n}", nil},
		{"trailing comma", `{"data-root": "/mnt/docker",}`, nil},
		{"not a string", `{"data-root": 7}`, nil},
		{"empty", ``, nil},
		{"none", `{"debug": true}`, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := dockerDataRoots([]byte(c.in)); !slices.Equal(got, c.want) {
				t.Errorf("dockerDataRoots(%q) = %q, want %q", c.in, got, c.want)
			}
		})
	}
}

// TestDockerdFlagRoots: of a unit, a drop-in or an environment file,
// dockerd's --data-root, --graph and -g in each of their forms, quoted
// or not; not a commented-out line's, a flag with no value, nor another
// flag that starts alike (-G, the socket's group; --graph-opt).
func TestDockerdFlagRoots(t *testing.T) {
	for _, c := range []struct {
		name, in string
		want     []string
	}{
		{"drop-in", "[Service]\nExecStart=\nExecStart=/usr/bin/dockerd -H fd:// --containerd=/run/containerd/containerd.sock --data-root=/mnt/docker\n", []string{"/mnt/docker"}},
		{"space", "ExecStart=/usr/bin/dockerd --data-root /data/docker -H fd://\n", []string{"/data/docker"}},
		{"exec-root", "ExecStart=/usr/bin/dockerd --exec-root=/data/run --exec-root /data/run2 --exec-opt native.cgroupdriver=systemd\n", []string{"/data/run", "/data/run2"}},
		{"graph", "ExecStart=/usr/bin/dockerd --graph=/a\nExecStart=/usr/bin/dockerd --graph /b\n", []string{"/a", "/b"}},
		{"short", "ExecStart=/usr/bin/dockerd -g /a -G docker\nExecStart=/usr/bin/dockerd -g=/b\nExecStart=/usr/bin/dockerd -g/c\n", []string{"/a", "/b", "/c"}},
		{"debian", "# DOCKER_OPTS=\"--dns 8.8.8.8\"\nDOCKER_OPTS=\"--data-root /srv/docker\"\n", []string{"/srv/docker"}},
		{"red hat", "OPTIONS='--selinux-enabled --log-driver=journald -g /home/docker'\n", []string{"/home/docker"}},
		{"a space in a quoted path cuts it", `ExecStart=/usr/bin/dockerd "--data-root=/q w"` + "\n", []string{"/q"}},
		{"commented out", "#ExecStart=/usr/bin/dockerd --data-root=/x\n; -g /y\n", nil},
		{"no value", "ExecStart=/usr/bin/dockerd --data-root\n", nil},
		{"alike", "ExecStart=/usr/bin/dockerd -G docker --graph-opt x=y --data-root-x /z\n", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := dockerdFlagRoots([]byte(c.in)); !slices.Equal(got, c.want) {
				t.Errorf("dockerdFlagRoots(%q) = %q, want %q", c.in, got, c.want)
			}
		})
	}
}

// TestContainerdFlagRoots: of containerd's unit or a drop-in, --root
// and --state; not --config, nor another flag that starts alike.
func TestContainerdFlagRoots(t *testing.T) {
	b := []byte("[Service]\nExecStart=\nExecStart=/usr/bin/containerd --root /data/containerd --state=/data/containerd-state -c /etc/containerd/config.toml --rootless x\n#ExecStart=/usr/bin/containerd --root /old\n")
	if got, want := containerdFlagRoots(b), []string{"/data/containerd", "/data/containerd-state"}; !slices.Equal(got, want) {
		t.Errorf("containerdFlagRoots = %q, want %q", got, want)
	}
}

// TestContainerdRoots: of a containerd config.toml, root and state at
// its top level only (a plugin's root in a table is not the daemon's),
// in either quoting, a comment after them; a commented-out line, a key in
// a table or an array of tables, a value not a string, a string left open
// or followed by more names nothing.
func TestContainerdRoots(t *testing.T) {
	containerd := func(b []byte) []string { return tomlStrings(b, "root", "state") }
	for _, c := range []struct {
		name, in string
		want     []string
	}{
		{"stock", "version = 2\nroot = \"/var/lib/containerd\"\nstate = \"/run/containerd\"\n", []string{"/var/lib/containerd", "/run/containerd"}},
		{"moved", "version = 3\n  root   =   '/data/containerd'  # the big disk\r\nstate=\"/data/containerd-state\"\n", []string{"/data/containerd", "/data/containerd-state"}},
		{"commented out", "#root = \"/var/lib/containerd\"\n  # state = \"/run/containerd\"\n", nil},
		{"in a table", "[plugins.\"io.containerd.grpc.v1.cri\"]\nroot = \"/x\"\n[grpc]\nroot = \"/y\"\n", nil},
		{"after a table", "[grpc]\naddress = \"/run/containerd/containerd.sock\"\nroot = \"/y\"\n", nil},
		{"array of tables", "[[x]]\nroot = \"/y\"\n", nil},
		{"escapes", `root = "/data/con\u0074ainerd"` + "\n" + `state = "C:\\x"`, []string{"/data/containerd", `C:\x`}},
		{"quoted key", `"root" = "/q"`, []string{"/q"}},
		{"not a string", "root = 7\nstate = [\"/a\"]\n", nil},
		{"open", "root = \"/data/containerd\n", nil},
		{"more after", "root = \"/a\" \"/b\"\n", nil},
		{"multi-line", "root = \"\"\"/a\"\"\"\n", nil},
		{"twice", "root = \"/a\"\nroot = \"/b\"\n", []string{"/a", "/b"}},
		{"other key", "rootless = \"/a\"\nroots = \"/b\"\n", nil},
		{"not UTF-8", "root = \"/data/\xff\"\nstate = '/s\xfe'\n", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := containerd([]byte(c.in)); !slices.Equal(got, c.want) {
				t.Errorf("containerd roots of %q = %q, want %q", c.in, got, c.want)
			}
		})
	}
}

// TestStorageConfRoots: of a containers/storage storage.conf, graphroot,
// runroot and imagestore of [storage] (by its header, with spaces or a
// comment, or a dotted key at the top level), not those of its subtables
// ([storage.options]) or of the top level, nor a commented-out one.
func TestStorageConfRoots(t *testing.T) {
	for _, c := range []struct {
		name, in string
		want     []string
	}{
		{"stock", "[storage]\ndriver = \"overlay\"\nrunroot = \"/run/containers/storage\"\ngraphroot = \"/var/lib/containers/storage\"\n# imagestore = \"/var/lib/containers/images\"\n[storage.options]\nadditionalimagestores = [\n]\n",
			[]string{"/run/containers/storage", "/var/lib/containers/storage"}},
		{"moved", "[ storage ] # ours\ngraphroot = '/data/containers'\nimagestore = \"/data/images\"\n", []string{"/data/containers", "/data/images"}},
		{"dotted", "storage.graphroot = \"/data/containers\"\n", []string{"/data/containers"}},
		{"subtable", "[storage.options]\ngraphroot = \"/x\"\n", nil},
		{"top level", "graphroot = \"/x\"\n", nil},
		{"bad header", "[storage\ngraphroot = \"/x\"\n", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := storageConfRoots([]byte(c.in)); !slices.Equal(got, c.want) {
				t.Errorf("storageConfRoots(%q) = %q, want %q", c.in, got, c.want)
			}
		})
	}
}

// TestCrioRoots: of a crio.conf, root and runroot of [crio], not of its
// subtables ([crio.runtime]).
func TestCrioRoots(t *testing.T) {
	b := []byte("[crio]\nroot = \"/data/crio\"\nrunroot = \"/run/containers/storage\"\n[crio.runtime]\nroot = \"/x\"\n")
	if got, want := crioRoots(b), []string{"/data/crio", "/run/containers/storage"}; !slices.Equal(got, want) {
		t.Errorf("crioRoots = %q, want %q", got, want)
	}
}

// TestMaskableRoot: an engine's root elsewhere is masked; /, a system
// directory or one in it, a shared directory itself, and what the
// sandbox makes anew are not.
func TestMaskableRoot(t *testing.T) {
	for r, want := range map[string]bool{
		"/mnt/docker": true, "/var/snap/docker": true, "/data/docker": true, "/opt/docker": true, "/data": true, "/srv/containerd": true, "/var/lib/docker2": true,
		"/": false, "/usr": false, "/etc": false, "/usr/lib/docker": false, "/etc/docker": false, "/lib": false,
		"/var": false, "/var/lib": false, "/opt": false, "/home": false, "/mnt": false,
		"/proc": false, "/proc/1": false, "/sys/fs/x": false, "/dev/shm/docker": false, "/tmp/docker": false, "/run/containerd": false,
	} {
		if got := maskableRoot(r); got != want {
			t.Errorf("maskableRoot(%q) = %v, want %v", r, got, want)
		}
	}
}

// BenchmarkEngineDataRoots times what every confined run pays to read the
// engines' configs on this host (where none is, a failed open each).
func BenchmarkEngineDataRoots(b *testing.B) {
	for b.Loop() {
		engineDataRoots()
	}
}

// FuzzEngineConfigs feeds any bytes to the engines' configs' readers:
// none panics, and what the line readers find is text of the file (a
// TOML string's escapes aside).
func FuzzEngineConfigs(f *testing.F) {
	f.Add([]byte("{\"data-root\": \"/mnt/docker\"}"))
	f.Add([]byte("version = 2\nroot = \"/data/con\\u0074ainerd\" # x\n[storage]\ngraphroot = '/g'\n"))
	f.Add([]byte("ExecStart=/usr/bin/dockerd -g/a --data-root \"/b\" --graph=\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		dockerDataRoots(b)
		storageConfRoots(b)
		for _, p := range tomlStrings(b, "root", "state") {
			if !strings.Contains(string(b), p) && !strings.Contains(string(b), `\`) {
				t.Errorf("tomlStrings found %q, not in %q", p, b)
			}
		}
		for _, p := range slices.Concat(dockerdFlagRoots(b), containerdFlagRoots(b)) {
			if !strings.Contains(string(b), p) {
				t.Errorf("flagRoots found %q, not in %q", p, b)
			}
		}
	})
}

// TestSecretDirsToMask: a secret directory that is there is kept, one
// that is a link is at the path it leads to (once, where another names
// that path too), one not there or a link to / is not.
func TestSecretDirsToMask(t *testing.T) {
	d := t.TempDir()
	real := filepath.Join(d, "real")
	if err := os.Mkdir(real, 0o700); err != nil {
		t.Fatal(err)
	}
	for link, to := range map[string]string{"link": real, "root": "/"} {
		if err := os.Symlink(to, filepath.Join(d, link)); err != nil {
			t.Fatal(err)
		}
	}
	old := secretDirs
	t.Cleanup(func() { secretDirs = old })
	secretDirs = []string{filepath.Join(d, "link"), real, filepath.Join(d, "missing"), filepath.Join(d, "root")}
	got := secretDirsToMask()
	want := append([]string{real}, engineDataRoots()...)
	if !slices.Equal(got, want) {
		t.Errorf("secretDirsToMask = %q, want %q", got, want)
	}
}

// TestEngineConfigThroughALinkIsRead: an engine's config that is a link
// (NixOS's /etc/docker/daemon.json, a link into its store; one a config
// manager links into place) names its data root as the file it leads to
// does, as dockerd reads it through the link; so does a drop-in that is
// one. The roots lie in /var/tmp, as /tmp's are not masked (maskableRoot).
func TestEngineConfigThroughALinkIsRead(t *testing.T) {
	roots := make([]string, 2)
	for i := range roots {
		r, err := os.MkdirTemp("/var/tmp", "vigiles-engine-root-")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.RemoveAll(r) })
		if roots[i], err = filepath.EvalSymlinks(r); err != nil {
			t.Fatal(err)
		}
	}
	d := t.TempDir()
	store := filepath.Join(d, "store")
	if err := os.MkdirAll(filepath.Join(d, "etc", "docker.service.d"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(store, 0o755); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"daemon.json": `{"data-root": "` + roots[0] + `"}`,
		"root.conf":   "[Service]\nExecStart=\nExecStart=/usr/bin/dockerd --data-root " + roots[1] + "\n",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(store, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(store, "daemon.json"), filepath.Join(d, "etc", "daemon.json")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(store, "root.conf"), filepath.Join(d, "etc", "docker.service.d", "root.conf")); err != nil {
		t.Fatal(err)
	}
	oldConfigs, oldDefaults := engineConfigs, engineDefaultRoots
	t.Cleanup(func() { engineConfigs, engineDefaultRoots = oldConfigs, oldDefaults })
	engineConfigs = []struct {
		path  string
		roots func([]byte) []string
	}{
		{filepath.Join(d, "etc", "daemon.json"), dockerDataRoots},
		{filepath.Join(d, "etc", "docker.service.d", "*.conf"), dockerdFlagRoots},
	}
	engineDefaultRoots = nil
	got := engineDataRoots()
	for _, r := range roots {
		if !slices.Contains(got, r) {
			t.Errorf("engineDataRoots() = %q: no %s, which a config through a link names", got, r)
		}
	}
}
