package sandbox

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/sys/unix"

	"github.com/vigiles/action/internal/hostprog"
	"github.com/vigiles/action/pkg/evidence"
)

// fakePasswd points passwdFile at a file holding lines for the test.
func fakePasswd(t *testing.T, lines ...string) {
	t.Helper()
	p := filepath.Join(t.TempDir(), "passwd")
	if err := os.WriteFile(p, []byte("root:x:0:0:root:/root:/bin/sh\nbin:x:2:2:bin:/bin:/usr/sbin/nologin\n"+strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	old := passwdFile
	passwdFile = p
	t.Cleanup(func() { passwdFile = old })
}

// fakeGroup points groupFile at a group file of lines, for the test.
func fakeGroup(t *testing.T, lines ...string) {
	t.Helper()
	p := filepath.Join(t.TempDir(), "group")
	if err := os.WriteFile(p, []byte("root:x:0:\nshadow:x:42:\n"+strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	old := groupFile
	groupFile = p
	t.Cleanup(func() { groupFile = old })
}

func TestOwnHomesAndOwnerGid(t *testing.T) {
	requireRoot(t, "homes owned by other uids are made with chown")
	home := tempDirIn(t, "/var/lib", "svc-home-", 0o750)
	if err := os.Chown(home, 2000001234, 2000001234); err != nil {
		t.Fatal(err)
	}
	fakePasswd(t,
		fmt.Sprintf("svc:x:2000001234:2000001299::%s:/bin/sh", home),
		"sys:x:2000001235:2000001235::/usr/sbin:/bin/sh", // a system directory, root's: never a home to mask
		"gone:x:2000001236:2000001236::/nonexistent:/bin/sh")
	for _, c := range []struct {
		uid  uint32
		want []string
	}{{2000001234, []string{home}}, {2000001235, nil}, {2000001236, nil}, {2, nil}} {
		got := ownHomes(&syscall.Credential{Uid: c.uid})
		if strings.Join(got, ",") != strings.Join(c.want, ",") {
			t.Errorf("ownHomes(uid %d) = %q, want %q", c.uid, got, c.want)
		}
	}
	fakeGroup(t, "team:x:2000001300:svc", "odd:x: +02000001400:")
	for _, c := range []struct {
		uid, treeGid, want uint32
		why                string
	}{
		{2000001234, 2000001888, 2000001299, "the passwd primary group, whatever the tree's"},
		{2000001777, 0, 65534, "nogroup for a uid passwd does not name, on a tree of root's group"},
		{2000001777, 42, 65534, "nogroup, never a group this system names (shadow)"},
		{2000001777, 2000001300, 65534, "nogroup, never a group this system names"},
		{2000001777, 2000001400, 65534, "nogroup, never a group the group file names as the C library reads it (\" +02000001400\")"},
		{2000001777, 2000001888, 2000001888, "the tree's group, which this system does not name either"},
	} {
		if g := ownerGid(c.uid, c.treeGid); g != c.want {
			t.Errorf("ownerGid(%d, %d) = %d, want %d: %s", c.uid, c.treeGid, g, c.want, c.why)
		}
	}
	groupFile = filepath.Join(t.TempDir(), "missing")
	if g := ownerGid(2000001777, 2000001888); g != 65534 {
		t.Errorf("ownerGid with no group file = %d, want 65534", g)
	}
}

// TestOwnerGidNeverTakesAGroupTheNameServiceNames: a group that /etc/group
// does not name but another source of the system's name service does
// (LDAP, SSSD, systemd's userdb: here a userdb drop-in, which nss-systemd
// reads) is a group of this system, which may own anything (a team's
// 0750 directory): never taken from the tree, nogroup then. Read from
// /etc/group alone, a tree of such a group gave the sandbox its files.
func TestOwnerGidNeverTakesAGroupTheNameServiceNames(t *testing.T) {
	requireRoot(t, "a userdb drop-in is written in /run/userdb")
	const gid = 2000001901
	fakePasswd(t)
	fakeGroup(t)
	dir := "/run/userdb"
	if _, err := os.Stat(dir); os.IsNotExist(err) {
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Remove(dir) })
	}
	rec := filepath.Join(dir, "vigiles-test-nss.group")
	link := filepath.Join(dir, fmt.Sprintf("%d.group", gid))
	t.Cleanup(func() { os.Remove(link); os.Remove(rec) })
	if err := os.WriteFile(rec, []byte(fmt.Sprintf(`{"groupName":"vigiles-test-nss","gid":%d}`, gid)), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Base(rec), link); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("getent", "group", fmt.Sprint(gid)).Output(); err != nil || !strings.HasPrefix(string(out), "vigiles-test-nss:") {
		missing(t, fmt.Sprintf("a name service that reads systemd's userdb drop-ins (libnss-systemd; getent: %q, %v)", out, err))
	}
	if g := ownerGid(2000001777, gid); g != 65534 {
		t.Errorf("ownerGid on a tree of a group the name service names = %d, want nogroup (65534)", g)
	}
	if g := ownerGid(2000001777, gid+1); g != gid+1 {
		t.Errorf("ownerGid on a tree of a group nothing names = %d, want the tree's (%d)", g, gid+1)
	}
}

// fakeNsswitch points nsswitchFile at a configuration of text.
func fakeNsswitch(t *testing.T, text string) {
	t.Helper()
	p := filepath.Join(t.TempDir(), "nsswitch.conf")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	old := nsswitchFile
	nsswitchFile = p
	t.Cleanup(func() { nsswitchFile = old })
}

// TestOwnerGidWithADirectoryServiceDown: getent answers "not found" (exit
// status 2) as well when a source of groups cannot be reached (LDAP or
// SSSD down, a module missing: getent -s ldap group 0 exits 2 where no
// module is installed). Where nsswitch.conf names such a source, a gid
// nothing local names may be the directory's, which owns files here: the
// sandbox takes nogroup then, never the tree's group. It took the tree's.
func TestOwnerGidWithADirectoryServiceDown(t *testing.T) {
	fakePasswd(t)
	fakeGroup(t)
	bin := fakeBinDir(t)
	if err := os.WriteFile(filepath.Join(bin, "getent"), []byte("#!/bin/sh\nexit 2\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+":"+os.Getenv("PATH"))
	hostprog.SetDirsForTest(t, append([]string{bin}, hostprog.Dirs...)...)
	for i, c := range []struct {
		conf string
		want bool // the tree's group is taken
	}{
		{"passwd: files\ngroup: files systemd\n", true},
		{"group:files [NOTFOUND=return] compat # a comment: ldap\n", true},
		{"group: files ldap\n", false},
		{"group: files [ UNAVAIL = return ] sss\n", false},
		{"passwd: files\ngroup: files\ngroup: nis\n", false},
		{"group: files [NOTFOUND=return\n", false},
		// The C library ends the database's name at a blank as at a
		// colon; it compares it as it is.
		{"group ldap files\n", false},
		{"  group\t:: sss\n", false},
		{"GROUP: ldap\ngroups: ldap\ngroup: files\n", true},
	} {
		fakeNsswitch(t, c.conf)
		gid := uint32(2000002000 + i) // one each: the answers are cached
		want := uint32(65534)
		if c.want {
			want = gid
		}
		if g := ownerGid(2000001777, gid); g != want {
			t.Errorf("nsswitch.conf %q: ownerGid = %d, want %d", c.conf, g, want)
		}
	}
	// Without nsswitch.conf the C library asks the group file alone;
	// compat reads NIS for its + lines.
	fakeNsswitch(t, "")
	nsswitchFile = filepath.Join(t.TempDir(), "missing")
	if !groupSourcesLocal() {
		t.Errorf("no nsswitch.conf: the sources are not local, want local")
	}
	fakeGroup(t, "+:::")
	if groupSourcesLocal() {
		t.Errorf("no nsswitch.conf, a group file with a NIS line: local, want not")
	}
}

// TestTreeOfAnUnnamedOwnerAndGroup: a root caller's run on a tree whose
// owner and group this system does not name (a container's bind-mounted
// workspace, of the host runner's uid and group) runs with that group, so
// the command can change the tree's files, recorded: with nogroup it
// could change none (EOVERFLOW at copy-up), and an audit recorded no
// write of a hook that makes them.
func TestTreeOfAnUnnamedOwnerAndGroup(t *testing.T) {
	requireConfinement(t)
	requireRoot(t, "trees owned by other uids are made with chown")
	const uid, gid = 2000001234, 2000001888
	fakePasswd(t)
	fakeGroup(t)
	tree := tempDirIn(t, "", "vigiles-unnamed-", 0o755)
	for p, c := range map[string]string{"m": "m\n", "d/f": "f\n", "r": "r\n"} {
		os.MkdirAll(filepath.Join(tree, filepath.Dir(p)), 0o755)
		if err := os.WriteFile(filepath.Join(tree, p), []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	filepath.Walk(tree, func(p string, _ os.FileInfo, _ error) error { return os.Lchown(p, uid, gid) })
	res := run(t, Spec{Dir: tree, Command: sh(`echo more >> m; echo g > d/g; mv r r2; tr -s ' ' < /proc/self/gid_map`)})
	if res.Tier != TierConfined || res.Error != "" || res.ExitCode != 0 {
		t.Fatalf("tier %s exit %d error %q stderr %q", res.Tier, res.ExitCode, res.Error, res.Stderr)
	}
	if want := fmt.Sprintf(" 0 %d 1\n", gid); res.Stdout != want {
		t.Errorf("gid map %q, want the tree's group (%q)", res.Stdout, want)
	}
	want := []evidence.Write{{Path: "d/g", Op: "create", Kind: "file"}, {Path: "m", Op: "modify", Kind: "file"},
		{Path: "r", Op: "delete"}, {Path: "r2", Op: "create", Kind: "file", From: "r"}}
	if d := cmp.Diff(want, res.Writes); d != "" {
		t.Errorf("writes (-want +got):\n%s", d)
	}
}

// TestTreeOwnersHomeAndGroupStayHidden: a root caller's run on a tree a
// service account owns, in that account's home outside /home (a
// jenkins's /var/lib/jenkins), runs as that account: its 0600
// credentials beside the tree must stay unreadable, and the sandbox's
// group is the account's own, never the tree's directory's (a tree of
// group shadow gave the sandbox /etc/shadow; the review read both).
func TestTreeOwnersHomeAndGroupStayHidden(t *testing.T) {
	requireConfinement(t)
	requireRoot(t, "trees owned by other uids are made with chown")
	const uid, gid, secretGid = 2000001234, 2000001299, 2000001300
	home := tempDirIn(t, "/var/lib", "svc-home-", 0o750)
	tree := filepath.Join(home, "repo")
	secret := filepath.Join(tempDirIn(t, "/var/lib", "svc-group-", 0o755), "shadowish")
	for _, f := range []struct {
		path string
		body string
		mode os.FileMode
		gid  int
	}{
		{filepath.Join(home, ".git-credentials"), "https://svc:ghp_HOMESECRET@host\n", 0o600, gid},
		{secret, "GROUPSECRET\n", 0o640, secretGid},
	} {
		if err := os.WriteFile(f.path, []byte(f.body), f.mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(f.path, uid, f.gid); err != nil {
			t.Fatal(err)
		}
		if f.path == secret {
			os.Chown(f.path, 0, f.gid)
		}
	}
	if err := os.Mkdir(tree, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{home, tree} {
		if err := os.Chown(d, uid, gid); err != nil {
			t.Fatal(err)
		}
	}
	// The tree's directory in the secret's group, as `chgrp` may leave it.
	if err := os.Chown(tree, uid, secretGid); err != nil {
		t.Fatal(err)
	}
	fakePasswd(t, fmt.Sprintf("svc:x:%d:%d::%s:/bin/sh", uid, gid, home))
	res := run(t, Spec{Dir: tree, Command: sh(`tr -s ' ' < /proc/self/uid_map; tr -s ' ' < /proc/self/gid_map; cat ../.git-credentials ` + secret + `; exit 0`)})
	if res.Tier != TierConfined || res.Error != "" {
		t.Fatalf("tier %s error %q refusal %q", res.Tier, res.Error, res.Refusal)
	}
	if want := fmt.Sprintf(" 0 %d 1\n 0 %d 1\n", uid, gid); res.Stdout != want {
		t.Errorf("stdout %q, want the owner's uid and its passwd group mapped (%q)", res.Stdout, want)
	}
	if strings.Contains(res.Stdout, "SECRET") {
		t.Errorf("the command read the owner's credentials or a file of the tree's group:\n%s", res.Stdout)
	}
}

// TestSecretFilesTheRunsGroupReadsAreCovered: a secret file (/etc/shadow
// and its kind) that the sandbox's uid may read by its group is covered
// with /dev/null, as it is for a run as the host's root: the modes keep
// another uid out only where no group of its lets it in.
func TestSecretFilesTheRunsGroupReadsAreCovered(t *testing.T) {
	requireConfinement(t)
	requireRoot(t, "trees owned by other uids are made with chown")
	const uid, gid = 2000001234, 2000001301
	secret := filepath.Join(tempDirIn(t, "/var/lib", "svc-etc-", 0o755), "shadow")
	if err := os.WriteFile(secret, []byte("SHADOWSECRET\n"), 0o640); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(secret, 0, gid); err != nil {
		t.Fatal(err)
	}
	old := secretFiles
	secretFiles = []string{secret}
	t.Cleanup(func() { secretFiles = old })
	fakePasswd(t, fmt.Sprintf("svc:x:%d:%d::/nonexistent:/bin/sh", uid, gid))
	tree := tempDirIn(t, "/var/lib", "svc-tree-", 0o755)
	if err := os.Chown(tree, uid, gid); err != nil {
		t.Fatal(err)
	}
	res := run(t, Spec{Dir: tree, Command: sh(`tr -s ' ' < /proc/self/gid_map; cat ` + secret + `; exit 0`)})
	if res.Tier != TierConfined || res.Error != "" {
		t.Fatalf("tier %s error %q refusal %q", res.Tier, res.Error, res.Refusal)
	}
	if want := fmt.Sprintf(" 0 %d 1\n", gid); res.Stdout != want {
		t.Errorf("stdout %q, want only the gid map %q (the secret covered, empty)", res.Stdout, want)
	}
}

// TestCredentialFilesTheEnvironmentNamesAreHidden: a file the caller's
// environment names as credentials (google-github-actions/auth's
// gha-creds-*.json in the workspace, GOOGLE_APPLICATION_CREDENTIALS
// naming it) reads as empty, in the work tree (either writes method; no
// write recorded for it) and outside it; the variable itself never
// reaches the command.
func TestCredentialFilesTheEnvironmentNamesAreHidden(t *testing.T) {
	requireConfinement(t)
	tree := makeTree(t, map[string]string{"gha-creds-0123456789abcdef.json": `{"token": "TREESECRET"}`, "keep.txt": "kept\n"})
	outside := filepath.Join(tempDirIn(t, "/var/lib", "creds-", 0o755), "kube.conf")
	if err := os.WriteFile(outside, []byte("token: OUTSIDESECRET\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GOOGLE_APPLICATION_CREDENTIALS", filepath.Join(tree, "gha-creds-0123456789abcdef.json"))
	t.Setenv("KUBECONFIG", "/nonexistent:"+outside)
	for _, method := range []string{"overlay", "copy"} {
		res := run(t, Spec{Dir: tree, WritesMethod: method, Command: sh(`cat gha-creds-*.json ` + outside + ` keep.txt; env | grep -c CREDENTIALS; exit 0`)})
		if res.Tier != TierConfined || res.Error != "" {
			t.Fatalf("%s: tier %s error %q refusal %q", method, res.Tier, res.Error, res.Refusal)
		}
		if res.Stdout != "kept\n0\n" || strings.Contains(res.Stdout, "SECRET") {
			t.Errorf("%s: stdout %q, want both credential files empty and the rest as it is", method, res.Stdout)
		}
		if len(res.Writes) != 0 {
			t.Errorf("%s: writes %+v, want none (the file left as it was shown)", method, res.Writes)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(tree, "gha-creds-0123456789abcdef.json")); !strings.Contains(string(b), "TREESECRET") {
		t.Errorf("the host's file changed: %q", b)
	}
}

// TestMayReachHonoursACLs: a root-only file that a POSIX ACL entry gives
// the sandbox's uid is one it could read (the review read a root caller's
// secret file, env-named credential file and outside git config that way:
// the mode bits alone said no), so it is hidden.
func TestMayReachHonoursACLs(t *testing.T) {
	requireRoot(t, "files of other owners are made with chown")
	const uid, gid = 2000001234, 2000001234
	f := filepath.Join(tempDirIn(t, "/var/lib", "acl-", 0o755), "secret")
	if err := os.WriteFile(f, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if mayReach(f, uid, gid, 0o4) {
		t.Fatal("a root 0600 file without an ACL reads as readable")
	}
	// user::rw-, user:UID:r--, group::---, mask::r--, other::---
	acl := binary.LittleEndian.AppendUint32(nil, 2)
	for _, e := range []struct {
		tag, perm uint16
		id        uint32
	}{{1, 6, ^uint32(0)}, {2, 4, uid}, {4, 0, ^uint32(0)}, {0x10, 4, ^uint32(0)}, {0x20, 0, ^uint32(0)}} {
		acl = binary.LittleEndian.AppendUint16(acl, e.tag)
		acl = binary.LittleEndian.AppendUint16(acl, e.perm)
		acl = binary.LittleEndian.AppendUint32(acl, e.id)
	}
	if err := unix.Setxattr(f, "system.posix_acl_access", acl, 0); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("setting an ACL: %v", err)
		}
		t.Skipf("no POSIX ACLs here: %v", err)
	}
	if !mayReach(f, uid, gid, 0o4) {
		t.Error("a file an ACL entry lets uid read reads as unreadable")
	}
}

// TestSecretDirTheRunMayEnterIsMasked: a directory of secrets that the
// run's group may enter and not list (/etc/ssl/private, 0710
// root:ssl-cert) is masked whole: its glob lists nothing, and the run could
// still open a key there by its name (the review read Debian's snakeoil
// key so).
func TestSecretDirTheRunMayEnterIsMasked(t *testing.T) {
	requireConfinement(t)
	requireRoot(t, "trees owned by other uids are made with chown")
	const uid, gid = 2000001234, 2000001302
	dir := tempDirIn(t, "/var/lib", "svc-private-", 0o710)
	key := filepath.Join(dir, "snakeoil.key")
	if err := os.WriteFile(key, []byte("KEYSECRET\n"), 0o640); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{dir, key} {
		if err := os.Chown(p, 0, gid); err != nil {
			t.Fatal(err)
		}
	}
	oldFiles, oldDirs := secretFiles, secretDirs
	secretFiles, secretDirs = []string{dir + "/*"}, []string{dir}
	t.Cleanup(func() { secretFiles, secretDirs = oldFiles, oldDirs })
	fakePasswd(t, fmt.Sprintf("svc:x:%d:%d::/nonexistent:/bin/sh", uid, gid))
	tree := tempDirIn(t, "/var/lib", "svc-tree-", 0o755)
	if err := os.Chown(tree, uid, gid); err != nil {
		t.Fatal(err)
	}
	// The run's group may enter it: it is masked whole, an empty tmpfs
	// (a caller that cannot list it, not root, finds no file there to
	// cover one by one).
	res := run(t, Spec{Dir: tree, Command: sh(`stat -c %a ` + dir + `; cat ` + key + `; ls ` + dir + `; exit 0`)})
	if res.Tier != TierConfined || res.Error != "" {
		t.Fatalf("tier %s error %q refusal %q", res.Tier, res.Error, res.Refusal)
	}
	if strings.HasPrefix(res.Stdout, "710") || strings.Contains(res.Stdout, "SECRET") || strings.Contains(res.Stdout, "snakeoil") {
		t.Errorf("the directory of secrets is not masked whole: %q", res.Stdout)
	}
}

// TestRelativeCredentialPathsAreHidden: a variable that names its file by
// a relative path names it in the caller's working directory, as the
// libraries that read it take it (the review read GOOGLE_APPLICATION_
// CREDENTIALS=gha-creds-1.json and DOCKER_CONFIG=.docker so).
func TestRelativeCredentialPathsAreHidden(t *testing.T) {
	requireConfinement(t)
	tree := makeTree(t, map[string]string{"gha-creds-1.json": "GSECRET\n", ".docker/config.json": "DSECRET\n", "sub/kube": "KSECRET\n"})
	t.Chdir(tree)
	t.Setenv("GOOGLE_APPLICATION_CREDENTIALS", "gha-creds-1.json")
	t.Setenv("DOCKER_CONFIG", ".docker")
	t.Setenv("KUBECONFIG", "sub/kube")
	res := run(t, Spec{Dir: tree, Command: sh(`cat gha-creds-1.json .docker/config.json sub/kube; exit 0`)})
	if res.Tier != TierConfined || res.Error != "" || strings.Contains(res.Stdout, "SECRET") {
		t.Errorf("tier %s error %q stdout %q, want the three files empty", res.Tier, res.Error, res.Stdout)
	}
}

// TestCredentialDirsTheEnvironmentNames: a tool's directory moved out of
// HOME by its variable (XDG_CONFIG_HOME, CARGO_HOME, AZURE_CONFIG_DIR,
// CLOUDSDK_CONFIG) keeps its tokens there, and a file variable
// (TF_CLI_CONFIG_FILE, REGISTRY_AUTH_FILE, NETRC) names one: each reads as
// empty, and the directory's other files as they are (the review found
// them readable).
func TestCredentialDirsTheEnvironmentNames(t *testing.T) {
	requireConfinement(t)
	// XDG_CONFIG_HOME in the tree is refused (it is masked whole
	// elsewhere: TestTreeThatHoldsTheCallersXDGDir).
	tree := makeTree(t, map[string]string{
		"cargo/credentials.toml": "S3\n", "az/msal_token_cache.json": "S4\n", "gcloud/credentials.db": "S5\n",
		"tf.rc": "S6\n", "auth.json": "S7\n", "netrc": "S8\n", "aws.ini": "S9\n", "boto": "S10\n",
		"krb5cc_0": "S11\n", "krb5.keytab": "S12\n",
		"claude/.credentials.json": "S13\n", "claude/.claude.json": "S14\n", "codex/auth.json": "S15\n",
		"claude/settings.json": "KEPT\n", "age.txt": "S16\n", "vault-pass": "S17\n", "rclone.conf": "S18\n", "hf-token": "S19\n",
		"hf/token": "S20\n", "hf/stored_tokens": "S21\n", "hf/hub/model.bin": "KEPT\n",
	})
	t.Chdir(tree)
	for k, v := range map[string]string{"CARGO_HOME": "cargo", "AZURE_CONFIG_DIR": tree + "/az",
		"CLOUDSDK_CONFIG": "gcloud", "TF_CLI_CONFIG_FILE": "tf.rc", "REGISTRY_AUTH_FILE": "auth.json", "NETRC": "netrc", "AWS_CONFIG_FILE": "aws.ini", "BOTO_CONFIG": "boto",
		"KRB5CCNAME": "FILE:" + tree + "/krb5cc_0", "KRB5_CLIENT_KTNAME": "krb5.keytab",
		"CLAUDE_CONFIG_DIR": "claude", "CODEX_HOME": tree + "/codex",
		"SOPS_AGE_KEY_FILE": "age.txt", "ANSIBLE_VAULT_PASSWORD_FILE": "vault-pass", "RCLONE_CONFIG": "rclone.conf",
		"HF_TOKEN_PATH": "hf-token", "HF_HOME": "hf"} {
		t.Setenv(k, v)
	}
	res := run(t, Spec{Dir: tree, Command: sh(`cat cargo/credentials.toml az/msal_token_cache.json gcloud/credentials.db tf.rc auth.json netrc aws.ini boto krb5cc_0 krb5.keytab claude/.credentials.json claude/.claude.json codex/auth.json age.txt vault-pass rclone.conf hf-token hf/token hf/stored_tokens hf/hub/model.bin claude/settings.json; exit 0`)})
	if res.Tier != TierConfined || res.Error != "" || strings.Contains(res.Stdout, "S") || strings.Count(res.Stdout, "KEPT") != 2 {
		t.Errorf("tier %s error %q stdout %q, want the credential files empty and hf/hub/model.bin and claude/settings.json as they are", res.Tier, res.Error, res.Stdout)
	}
}

// TestCallersTMPDIRIsMasked: the caller's TMPDIR outside /tmp is hidden
// as /tmp is: another tool's files there, and its sockets (an ssh-agent's,
// which would answer the sandbox as the caller), were readable.
func TestCallersTMPDIRIsMasked(t *testing.T) {
	requireConfinement(t)
	requireRoot(t, "a directory outside the masks is made in /var/lib")
	tree := makeTree(t, nil)
	tmpdir := tempDirIn(t, "/var/lib", "caller-tmp-", 0o755)
	if err := os.WriteFile(filepath.Join(tmpdir, "token"), []byte("TMPDIRSECRET\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(tmpdir, "agent.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	os.Chmod(sock, 0o777)
	t.Setenv("TMPDIR", tmpdir)
	res := run(t, Spec{Dir: tree, Command: sh(`cat ` + tmpdir + `/token; ls -A ` + tmpdir + `; [ -S ` + sock + ` ] && echo SOCKET; exit 0`)})
	if res.Tier != TierConfined || res.Error != "" {
		t.Fatalf("tier %s error %q refusal %q", res.Tier, res.Error, res.Refusal)
	}
	if res.Stdout != "" {
		t.Errorf("the command saw the caller's TMPDIR %s: %q", tmpdir, res.Stdout)
	}
}

// TestCallersTMPDIRInDevShm: a TMPDIR in /dev/shm (a RAM-backed temporary
// directory, TMPDIR=/dev/shm or /dev/shm/$USER) needs no mask: the
// sandbox's /dev is its own and its /dev/shm the run's scratch, where the
// host's files never show. A mask there made the command's /dev/shm
// read-only (the reaper remounted the scratch as the mask), or, below it,
// failed every run as a host directory that vanished.
func TestCallersTMPDIRInDevShm(t *testing.T) {
	requireConfinement(t)
	if fi, err := os.Stat("/dev/shm"); err != nil || !fi.IsDir() {
		missing(t, "a /dev/shm directory")
	}
	tree := makeTree(t, nil)
	sub := tempDirIn(t, "/dev/shm", "caller-tmp-", 0o755)
	if err := os.WriteFile(filepath.Join(sub, "token"), []byte("TMPDIRSECRET\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tmpdir := range []string{"/dev/shm", sub} {
		t.Run(tmpdir, func(t *testing.T) {
			t.Setenv("TMPDIR", tmpdir)
			res := run(t, Spec{Dir: tree, Command: sh(`cat ` + sub + `/token 2>/dev/null; echo m > /dev/shm/made && echo MADE`)})
			if res.Tier != TierConfined || res.Error != "" {
				t.Fatalf("tier %s error %q refusal %q", res.Tier, res.Error, res.Refusal)
			}
			if res.Stdout != "MADE\n" {
				t.Errorf("stdout %q stderr %q; want the command's own /dev/shm writable and nothing of the host's", res.Stdout, res.Stderr)
			}
			if want := []evidence.Write{{Path: "/dev/shm/made", Op: "create", Kind: "file"}}; !cmp.Equal(want, res.Writes) {
				t.Errorf("writes %v, want %v", res.Writes, want)
			}
		})
	}
}

// TestCallersTMPDIRInProcOrSys: a TMPDIR in /proc or /sys (a mistake, or a
// script's TMPDIR=/proc/self/fd) holds none of the caller's files: the
// sandbox's /proc is its own, /sys the kernel's. A mask there refused
// every run with "remounting /proc read-only: device or resource busy",
// naming neither TMPDIR nor a fix.
func TestCallersTMPDIRInProcOrSys(t *testing.T) {
	requireConfinement(t)
	tree := makeTree(t, nil)
	for _, tmpdir := range []string{"/proc", "/proc/self", "/sys"} {
		t.Run(tmpdir, func(t *testing.T) {
			t.Setenv("TMPDIR", tmpdir)
			res := run(t, Spec{Dir: tree, Command: sh(`ls /proc/1 >/dev/null && echo OK`)})
			if res.Tier != TierConfined || res.Error != "" || res.Stdout != "OK\n" {
				t.Errorf("tier %s error %q refusal %q stdout %q", res.Tier, res.Error, res.Refusal, res.Stdout)
			}
		})
	}
}

// TestTreeThatHoldsTheCallersTMPDIR: a TMPDIR inside the work tree (a
// project's .envrc: TMPDIR=$PWD/.tmp) would show the command another
// tool's files and sockets there through the tree: refused, naming the
// fix that works, a TMPDIR elsewhere, not only another directory.
func TestTreeThatHoldsTheCallersTMPDIR(t *testing.T) {
	requireConfinement(t)
	tree := makeTree(t, map[string]string{".tmp/": "", "hook.sh": "exit 0\n"})
	t.Setenv("TMPDIR", filepath.Join(tree, ".tmp"))
	res, err := Run(context.Background(), Spec{Dir: tree, Mode: ModeStrict, Timeout: 30 * time.Second, Command: sh(`echo RAN`)})
	if !errors.Is(err, ErrRefused) || res.Stdout != "" {
		t.Fatalf("err %v stdout %q, want a refusal", err, res.Stdout)
	}
	if !strings.Contains(res.Refusal, "TMPDIR="+filepath.Join(tree, ".tmp")) || !strings.Contains(res.Refusal, "outside the work tree") {
		t.Errorf("refusal %q does not name the TMPDIR and its fix", res.Refusal)
	}
}

// TestCallersAgentSocketsAreHidden: the sockets the caller's environment
// names (SSH_AUTH_SOCK: an ssh-agent started with -a, anywhere; DOCKER_HOST
// and CONTAINER_HOST as unix://PATH) are covered where the run could
// reach them outside the masks: an agent answers the sandbox as the caller
// (its uid mapped back), and signs with the caller's keys; a container
// engine's socket is the host.
func TestCallersAgentSocketsAreHidden(t *testing.T) {
	requireConfinement(t)
	requireRoot(t, "a directory outside the masks is made in /var/lib")
	tree := makeTree(t, nil)
	dir := tempDirIn(t, "/var/lib", "caller-agent-", 0o755)
	var socks []string
	for _, v := range []struct{ name, value, sock, after string }{
		{"SSH_AUTH_SOCK", "", "agent.sock", ""},
		{"DOCKER_HOST", "unix://", "docker-engine.sock", ""},
		{"CONTAINER_HOST", "unix://", "podman-engine.sock", ""},
		{"BUILDKIT_HOST", "unix://", "buildkitd.sock", ""},
		{"DBUS_SESSION_BUS_ADDRESS", "unix:abstract=/x,guid=0;unix:path=", "session%2dbus", ",guid=0123"},
		{"DBUS_SYSTEM_BUS_ADDRESS", "unix:path=", "system_bus_socket", ""},
		{"GPG_AGENT_INFO", "", "S.gpg-agent", ":4242:1"},
		{"PULSE_SERVER", "tcp:localhost unix:", "pulse-native", ""},
	} {
		sock := filepath.Join(dir, strings.ReplaceAll(v.sock, "%2d", "-"))
		l, err := net.Listen("unix", sock)
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		os.Chmod(sock, 0o777)
		t.Setenv(v.name, v.value+filepath.Join(dir, v.sock)+v.after)
		socks = append(socks, sock)
	}
	script := ""
	for _, s := range socks {
		script += `[ -S ` + s + ` ] && echo "SOCKET ` + s + `"; `
	}
	res := run(t, Spec{Dir: tree, Command: sh(script + `ls ` + dir + ` >/dev/null && echo LISTED; exit 0`)})
	if res.Tier != TierConfined || res.Error != "" {
		t.Fatalf("tier %s error %q refusal %q", res.Tier, res.Error, res.Refusal)
	}
	if res.Stdout != "LISTED\n" {
		t.Errorf("stdout %q, want no socket the caller's environment names, the directory still there", res.Stdout)
	}
}

// TestCallersRelativeTMPDIRAndHOMEAreMasked: a relative TMPDIR or HOME
// (TMPDIR=tmp, HOME=.) names, for the caller's tools, a directory against
// their working directory, as it does for vigiles: it is masked there, as
// an absolute one is. It was passed over, and the directory shown whole
// (another tool's files and sockets, the caller's ~/.netrc).
func TestCallersRelativeTMPDIRAndHOMEAreMasked(t *testing.T) {
	requireConfinement(t)
	requireRoot(t, "a directory outside the masks is made in /var/lib")
	tree := makeTree(t, nil)
	parent := tempDirIn(t, "/var/lib", "caller-cwd-", 0o755)
	for _, d := range []string{"tmp", "home"} {
		if err := os.Mkdir(filepath.Join(parent, d), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(parent, d, "token"), []byte("RELSECRET\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(parent)
	for _, v := range []struct{ name, value, dir string }{
		{"TMPDIR", "tmp", "tmp"},
		{"HOME", "./home/", "home"},
	} {
		t.Run(v.name, func(t *testing.T) {
			t.Setenv(v.name, v.value)
			dir := filepath.Join(parent, v.dir)
			res := run(t, Spec{Dir: tree, Command: sh(`cat ` + dir + `/token; ls -A ` + dir + `; exit 0`)})
			if res.Tier != TierConfined || res.Error != "" {
				t.Fatalf("tier %s error %q refusal %q", res.Tier, res.Error, res.Refusal)
			}
			if res.Stdout != "" {
				t.Errorf("%s=%s: the command saw %s: %q", v.name, v.value, dir, res.Stdout)
			}
		})
	}
}

// TestTreeThatIsTheCallersRelativeHOME: HOME=. in the work tree makes the
// tree the caller's HOME (its ~/.netrc, ~/.ssh): refused, as a tree that
// is the caller's absolute HOME is, naming the fix.
func TestTreeThatIsTheCallersRelativeHOME(t *testing.T) {
	requireConfinement(t)
	tree := makeTree(t, map[string]string{".netrc": "machine x password RELSECRET\n"})
	t.Chdir(tree)
	t.Setenv("HOME", ".")
	res, err := Run(context.Background(), Spec{Dir: tree, Mode: ModeStrict, Timeout: 30 * time.Second, Command: sh(`cat .netrc`)})
	if !errors.Is(err, ErrRefused) || res.Stdout != "" {
		t.Fatalf("err %v stdout %q, want a refusal", err, res.Stdout)
	}
	if !strings.Contains(res.Refusal, "HOME=. ("+tree+")") || !strings.Contains(res.Refusal, "fix: set HOME") {
		t.Errorf("refusal %q does not name HOME and its fix", res.Refusal)
	}
	// TMPDIR=.tmp as TMPDIR=$PWD/.tmp.
	if err := os.Mkdir(".tmp", 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", "/root")
	t.Setenv("TMPDIR", ".tmp")
	res, err = Run(context.Background(), Spec{Dir: tree, Mode: ModeStrict, Timeout: 30 * time.Second, Command: sh(`echo RAN`)})
	if !errors.Is(err, ErrRefused) || !strings.Contains(res.Refusal, "TMPDIR="+filepath.Join(tree, ".tmp")) {
		t.Errorf("TMPDIR=.tmp: err %v refusal %q, want one naming the TMPDIR", err, res.Refusal)
	}
}

// TestTreeThatHoldsTheCallersAbsoluteHOME: an absolute HOME that is or
// lies in the work tree (a container's -w /work -e HOME=/work) is refused
// naming HOME and a HOME outside the tree: the generic refusal told the
// caller to give a directory that holds only the project, which it had.
func TestTreeThatHoldsTheCallersAbsoluteHOME(t *testing.T) {
	requireConfinement(t)
	tree := makeTree(t, map[string]string{".netrc": "machine x password ABSSECRET\n", "home/": ""})
	for _, home := range []string{tree, filepath.Join(tree, "home")} {
		t.Setenv("HOME", home)
		res, err := Run(context.Background(), Spec{Dir: tree, Mode: ModeStrict, Timeout: 30 * time.Second, Command: sh(`cat .netrc`)})
		if !errors.Is(err, ErrRefused) || res.Stdout != "" {
			t.Fatalf("HOME=%s: err %v stdout %q, want a refusal", home, err, res.Stdout)
		}
		if !strings.Contains(res.Refusal, "HOME="+home+",") || !strings.Contains(res.Refusal, "fix: set HOME outside the work tree") || strings.Contains(res.Refusal, "holds only the project") {
			t.Errorf("HOME=%s: refusal %q does not name HOME and its fix", home, res.Refusal)
		}
	}
}

// TestCallersRuntimeDirAndGnuPGHomeAreMasked: the caller's
// XDG_RUNTIME_DIR outside /run (a login without systemd-logind's: in /tmp
// or under /var) holds its agents' and services' sockets (gpg-agent, dbus,
// podman, pipewire), which answer the sandbox as the caller; a GNUPGHOME
// outside HOME its private keys. Both are masked as TMPDIR is; both were
// shown.
func TestCallersRuntimeDirAndGnuPGHomeAreMasked(t *testing.T) {
	requireConfinement(t)
	requireRoot(t, "a directory outside the masks is made in /var/lib")
	tree := makeTree(t, nil)
	for _, name := range []string{"XDG_RUNTIME_DIR", "GNUPGHOME"} {
		t.Run(name, func(t *testing.T) {
			// Modes the sandbox's uid (not the caller's, for a root
			// caller) can use: a runtime dir is the caller's 0700 one,
			// which that uid enters where it is the caller.
			dir := tempDirIn(t, "/var/lib", "caller-dir-", 0o755)
			if err := os.WriteFile(filepath.Join(dir, "secret"), []byte("DIRSECRET\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			sock := filepath.Join(dir, "S.gpg-agent")
			l, err := net.Listen("unix", sock)
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()
			os.Chmod(sock, 0o777)
			t.Setenv(name, dir)
			res := run(t, Spec{Dir: tree, Command: sh(`cat ` + dir + `/secret; ls -A ` + dir + `; [ -S ` + sock + ` ] && echo SOCKET; exit 0`)})
			if res.Tier != TierConfined || res.Error != "" {
				t.Fatalf("tier %s error %q refusal %q", res.Tier, res.Error, res.Refusal)
			}
			if res.Stdout != "" {
				t.Errorf("%s=%s: the command saw it: %q", name, dir, res.Stdout)
			}
		})
	}
}

// TestTreeThatHoldsTheCallersGnuPGHomeOrRuntimeDir: a project's
// GNUPGHOME=$PWD/.gnupg (a test suite's signing keys) or a runtime dir in
// the work tree is refused, as a tree that holds the caller's TMPDIR is,
// naming the variable and the fix; the refusal named neither.
func TestTreeThatHoldsTheCallersGnuPGHomeOrRuntimeDir(t *testing.T) {
	requireConfinement(t)
	tree := makeTree(t, map[string]string{".gnupg/private-keys-v1.d/k.key": "GPGSECRET\n", "run/x": ""})
	t.Chdir(tree)
	for _, v := range []struct{ name, value, dir string }{
		{"GNUPGHOME", tree + "/.gnupg/", ".gnupg"},
		{"XDG_RUNTIME_DIR", "run", "run"},
	} {
		t.Run(v.name, func(t *testing.T) {
			t.Setenv(v.name, v.value)
			res, err := Run(context.Background(), Spec{Dir: tree, Mode: ModeStrict, Timeout: 30 * time.Second, Command: sh(`cat .gnupg/private-keys-v1.d/k.key`)})
			if !errors.Is(err, ErrRefused) || res.Stdout != "" {
				t.Fatalf("err %v stdout %q, want a refusal", err, res.Stdout)
			}
			want := v.name + "=" + v.value + " (" + filepath.Join(tree, v.dir) + ")"
			if !strings.Contains(res.Refusal, want) || !strings.Contains(res.Refusal, "fix: move "+v.name+" out of the work tree") {
				t.Errorf("refusal %q does not name %s and its fix", res.Refusal, want)
			}
		})
	}
}

// TestKerberosCollectionsAndWritableKeytabsAreHidden: a KRB5CCNAME that
// names a cache collection (DIR:DIR, or DIR::DIR/FILE, one cache of it)
// holds the caller's tickets in every file of that directory, and
// KRB5_KTNAME=WRFILE:PATH is a keytab as FILE:PATH is: the directory is
// masked, the keytab hidden. Both were readable.
func TestKerberosCollectionsAndWritableKeytabsAreHidden(t *testing.T) {
	requireConfinement(t)
	requireRoot(t, "a directory outside the masks is made in /var/lib")
	tree := makeTree(t, map[string]string{"krb5.keytab": "KTSECRET\n"})
	t.Chdir(tree)
	t.Setenv("KRB5_KTNAME", "WRFILE:krb5.keytab")
	for _, v := range []struct{ name, value string }{{"DIR", "DIR:"}, {"DIR::", "DIR::"}} {
		t.Run(v.name, func(t *testing.T) {
			dir := tempDirIn(t, "/var/lib", "caller-krb5-", 0o755)
			for _, n := range []string{"primary", "tktAbc", "tktDef"} {
				if err := os.WriteFile(filepath.Join(dir, n), []byte("TKTSECRET\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			val := v.value + dir
			if v.value == "DIR::" {
				val += "/tktAbc"
			}
			t.Setenv("KRB5CCNAME", val)
			res := run(t, Spec{Dir: tree, Command: sh(`cat krb5.keytab ` + dir + `/*; ls -A ` + dir + `; exit 0`)})
			if res.Tier != TierConfined || res.Error != "" {
				t.Fatalf("tier %s error %q refusal %q", res.Tier, res.Error, res.Refusal)
			}
			if res.Stdout != "" {
				t.Errorf("KRB5CCNAME=%s KRB5_KTNAME=WRFILE:krb5.keytab: the command saw %q", val, res.Stdout)
			}
		})
	}
}

// TestPulseServerForAMachine: a PulseAudio server may start with
// {MACHINE-ID}, the machine it is for; its socket is covered as a bare
// one is. It was passed over.
func TestPulseServerForAMachine(t *testing.T) {
	dir := t.TempDir()
	sock := filepath.Join(dir, "native")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	for _, v := range []string{"{0123abcd}unix:" + sock, "tcp:localhost {0123abcd}" + sock} {
		if got := envCredentialSockets(func(k string) string { return map[string]string{"PULSE_SERVER": v}[k] }); !slices.Equal(got, []string{sock}) {
			t.Errorf("PULSE_SERVER=%s: %v; want [%s]", v, got, sock)
		}
	}
}

// TestCallersXDGDirsAndPasswordStoreAreMasked: the caller's XDG base
// directories moved out of HOME (its config: gh's hosts.yml, rclone's;
// its data: GNOME keyrings, browser profiles; its state: shell history;
// its cache) and its pass store are masked as HOME is: each was readable
// where no fixed mask covered it.
func TestCallersXDGDirsAndPasswordStoreAreMasked(t *testing.T) {
	requireConfinement(t)
	requireRoot(t, "a directory outside the masks is made in /var/lib")
	tree := makeTree(t, nil)
	for _, name := range []string{"XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME", "PASSWORD_STORE_DIR"} {
		t.Run(name, func(t *testing.T) {
			dir := tempDirIn(t, "/var/lib", "caller-dir-", 0o755)
			if err := os.WriteFile(filepath.Join(dir, "secret"), []byte("DIRSECRET\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			t.Setenv(name, dir)
			res := run(t, Spec{Dir: tree, Command: sh(`cat ` + dir + `/secret; ls -A ` + dir + `; exit 0`)})
			if res.Tier != TierConfined || res.Error != "" {
				t.Fatalf("tier %s error %q refusal %q", res.Tier, res.Error, res.Refusal)
			}
			if res.Stdout != "" {
				t.Errorf("%s=%s: the command saw it: %q", name, dir, res.Stdout)
			}
		})
	}
}

// TestCallersAskpassProgramIsHidden: an askpass program (GIT_ASKPASS,
// SSH_ASKPASS, SUDO_ASKPASS) outside the system's program directories
// prints the caller's password when run, and may hold it: it is covered
// with /dev/null, by its path or by its name on the caller's PATH. It was
// readable, and ran.
func TestCallersAskpassProgramIsHidden(t *testing.T) {
	requireConfinement(t)
	requireRoot(t, "a directory outside the masks is made in /var/lib")
	tree := makeTree(t, nil)
	for _, name := range []string{"GIT_ASKPASS", "SSH_ASKPASS", "SUDO_ASKPASS"} {
		t.Run(name, func(t *testing.T) {
			dir := tempDirIn(t, "/var/lib", "askpass-", 0o755)
			prog := filepath.Join(dir, "askpass.sh")
			if err := os.WriteFile(prog, []byte("#!/bin/sh\necho ASKSECRET\n"), 0o755); err != nil {
				t.Fatal(err)
			}
			for _, v := range []string{prog, "askpass.sh"} {
				t.Setenv(name, v)
				t.Setenv("PATH", os.Getenv("PATH")+":"+dir)
				res := run(t, Spec{Dir: tree, Command: sh(`cat ` + prog + `; ` + prog + `; exit 0`)})
				if res.Tier != TierConfined || res.Error != "" {
					t.Fatalf("tier %s error %q refusal %q", res.Tier, res.Error, res.Refusal)
				}
				if strings.Contains(res.Stdout, "ASKSECRET") {
					t.Errorf("%s=%s: the command read or ran it: %q", name, v, res.Stdout)
				}
			}
		})
	}
}

// TestTreeThatHoldsTheCallersXDGDir: a work tree that holds the caller's
// XDG_CONFIG_HOME (or another masked directory of the caller's) is
// refused, naming the variable and the fix, as one that holds its
// GNUPGHOME is: the tree is shown whole, the config with it.
func TestTreeThatHoldsTheCallersXDGDir(t *testing.T) {
	requireConfinement(t)
	tree := makeTree(t, map[string]string{".config/gh/other.yml": "XDGSECRET\n", ".pass/x.gpg": ""})
	t.Chdir(tree)
	for _, v := range []struct{ name, value, dir string }{
		{"XDG_CONFIG_HOME", tree + "/.config", ".config"},
		{"PASSWORD_STORE_DIR", ".pass", ".pass"},
	} {
		t.Run(v.name, func(t *testing.T) {
			t.Setenv(v.name, v.value)
			res, err := Run(context.Background(), Spec{Dir: tree, Mode: ModeStrict, Timeout: 30 * time.Second, Command: sh(`cat .config/gh/other.yml`)})
			if !errors.Is(err, ErrRefused) || res.Stdout != "" {
				t.Fatalf("err %v stdout %q, want a refusal", err, res.Stdout)
			}
			want := v.name + "=" + v.value + " (" + filepath.Join(tree, v.dir) + ")"
			if !strings.Contains(res.Refusal, want) || !strings.Contains(res.Refusal, "fix: move "+v.name+" out of the work tree") {
				t.Errorf("refusal %q does not name %s and its fix", res.Refusal, want)
			}
		})
	}
}

// TestTreeInsideTheCallersXDGDir: a work tree inside the caller's
// XDG_DATA_HOME is shown, as one inside HOME is, and nothing beside it
// in that directory.
func TestTreeInsideTheCallersXDGDir(t *testing.T) {
	requireConfinement(t)
	requireRoot(t, "a directory outside the masks is made in /var/lib")
	dir := tempDirIn(t, "/var/lib", "caller-data-", 0o755)
	if err := os.WriteFile(filepath.Join(dir, "secret"), []byte("DIRSECRET\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tree := filepath.Join(dir, "project")
	writeFile(t, filepath.Join(tree, "keep.txt"), "kept\n")
	t.Setenv("XDG_DATA_HOME", dir)
	res := run(t, Spec{Dir: tree, Command: sh(`cat keep.txt ../secret; ls -A ..; exit 0`)})
	if res.Tier != TierConfined || res.Error != "" {
		t.Fatalf("tier %s error %q refusal %q", res.Tier, res.Error, res.Refusal)
	}
	if res.Stdout != "kept\nproject\n" {
		t.Errorf("stdout %q, want the tree alone in XDG_DATA_HOME", res.Stdout)
	}
}

// TestCallersHOMEAtOptIsMasked: a service user's HOME=/opt holds its
// keys and logins as any HOME does: /opt is masked, and the run works
// without the tools there. It was passed over as a system directory, and
// the command read the caller's files in it.
func TestCallersHOMEAtOptIsMasked(t *testing.T) {
	requireConfinement(t)
	requireRoot(t, "a file is put in /opt")
	requireOpt(t)
	f, err := os.CreateTemp("/opt", ".vigiles-home-secret-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Remove(f.Name()) })
	if _, err := f.WriteString("HOMESECRET\n"); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if err := os.Chmod(f.Name(), 0o644); err != nil {
		t.Fatal(err)
	}
	tree := makeTree(t, nil)
	t.Setenv("HOME", "/opt")
	res := run(t, Spec{Dir: tree, Command: sh(`cat ` + f.Name() + `; ls -A /opt; exit 0`)})
	if res.Tier != TierConfined || res.Error != "" {
		t.Fatalf("tier %s error %q refusal %q", res.Tier, res.Error, res.Refusal)
	}
	if res.Stdout != "" {
		t.Errorf("HOME=/opt: the command saw it: %q", res.Stdout)
	}
}
