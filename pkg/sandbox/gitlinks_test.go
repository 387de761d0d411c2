package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestConfigWithOtherNamesIsRefused: a git config with credentials that
// has another name in the tree (a hard link, from cp -al or rsync
// --link-dest) would show the token through that name, which no scrubbed
// copy covers: the overlay's layer and the copy method's scrub both
// refuse it. Hard links the scan finds as configs themselves (each gets
// its scrubbed copy) and a config without credentials are no reason.
func TestConfigWithOtherNamesIsRefused(t *testing.T) {
	t.Run("overlay layer", func(t *testing.T) {
		tree := t.TempDir()
		g := gitRepo(t, tree, credConf)
		if err := os.Link(filepath.Join(g, "config"), filepath.Join(tree, "leak")); err != nil {
			t.Fatal(err)
		}
		_, err := credentialLayer(tree, "", t.TempDir(), nil, nil)
		if err == nil || !strings.Contains(err.Error(), "other name") || !strings.Contains(err.Error(), ".git/config") {
			t.Errorf("credentialLayer: %v; want the config's other name refused", err)
		}
	})
	t.Run("copy", func(t *testing.T) {
		orig := t.TempDir()
		g := gitRepo(t, orig, credConf)
		if err := os.Link(filepath.Join(g, "config"), filepath.Join(orig, "leak")); err != nil {
			t.Fatal(err)
		}
		cp := filepath.Join(t.TempDir(), "copy")
		if err := copyTree(orig, cp); err != nil {
			t.Fatal(err)
		}
		_, err := scrubInPlace(cp, orig, "", nil, nil)
		if err == nil || !strings.Contains(err.Error(), "other name") {
			t.Errorf("scrubInPlace: %v; want the config's other name refused", err)
		}
		if b, _ := os.ReadFile(filepath.Join(cp, "leak")); !strings.Contains(string(b), "extraheader") {
			t.Errorf("the copy's leak is %q: the test shows nothing", b)
		}
	})
	t.Run("every name found", func(t *testing.T) {
		tree := t.TempDir()
		g := gitRepo(t, tree, credConf)
		sub := filepath.Join(g, "modules", "m", "config")
		if err := os.MkdirAll(filepath.Dir(sub), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Link(filepath.Join(g, "config"), sub); err != nil {
			t.Fatal(err)
		}
		if ok, err := credentialLayer(tree, "", t.TempDir(), nil, nil); err != nil || !ok {
			t.Errorf("credentialLayer: %v %v; want both names scrubbed", ok, err)
		}
	})
	t.Run("no credentials", func(t *testing.T) {
		tree := t.TempDir()
		g := gitRepo(t, tree, "[core]\n\tbare = false\n")
		if err := os.Link(filepath.Join(g, "config"), filepath.Join(tree, "other")); err != nil {
			t.Fatal(err)
		}
		if ok, err := credentialLayer(tree, "", t.TempDir(), nil, nil); err != nil || ok {
			t.Errorf("credentialLayer: %v %v; want nothing to hide", ok, err)
		}
	})
}

// TestOutsideConfigWithOtherNamesIsRefused: the config of the checkout a
// work tree is a subdirectory of, covered by bubblewrap with a scrubbed
// copy at its path, given another name inside the tree (a hard link), is
// refused: that name showed the token.
func TestOutsideConfigWithOtherNamesIsRefused(t *testing.T) {
	root := t.TempDir()
	view := hostView{lookup: lookupHostPath}
	g := gitRepo(t, root, credConf)
	sub := filepath.Join(root, "plugins", "p")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if got, err := outsideGitConfigs(sub, nil, view); err != nil || len(got) != 1 {
		t.Fatalf("before the link: %v, %v; want the one config", got, err)
	}
	if err := os.Link(filepath.Join(g, "config"), filepath.Join(sub, "notes.txt")); err != nil {
		t.Fatal(err)
	}
	if _, err := outsideGitConfigs(sub, nil, view); err == nil || !strings.Contains(err.Error(), "other name") {
		t.Errorf("outsideGitConfigs: %v; want the config's other name refused", err)
	}
}

// TestOtherNamesNamesTheFirstConfig: with several configs given other
// names, the refusal names the first in the scan's order, the same one
// each run (not whichever a map gives first).
func TestOtherNamesNamesTheFirstConfig(t *testing.T) {
	tree := t.TempDir()
	var configs []scrubbedConfig
	for _, rel := range []string{"a/config", "b/config", "c/config", "d/config"} {
		p := filepath.Join(tree, rel)
		writeFile(t, p, credConf)
		if err := os.Link(p, p+".link"); err != nil {
			t.Fatal(err)
		}
		configs = append(configs, scrubbedConfig{path: p})
	}
	for range 20 {
		err := otherNames(tree, tree, configs)
		if err == nil || !strings.HasPrefix(err.Error(), "a/config holds") {
			t.Fatalf("otherNames: %v; want a/config named", err)
		}
	}
}
