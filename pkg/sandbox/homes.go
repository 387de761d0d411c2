package sandbox

import (
	"bufio"
	"context"
	"errors"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/vigiles/action/internal/hostprog"
	"github.com/vigiles/action/pkg/sandbox/internal/fsx"
)

// passwdFile is the user database the homes and groups of uids are read
// from, groupFile the group database (variables for the tests).
var (
	passwdFile = "/etc/passwd"
	groupFile  = "/etc/group"
)

// groupNamed reports whether this system names gid: its group file, or
// any other source of its name service (LDAP, SSSD, systemd's userdb),
// which may name groups that own files (a team's 0750 directory) and
// that the group file does not list. A file that cannot be read names
// every gid, and so does a name service that cannot be asked or that has
// a directory service among its sources, whose "not found" may mean down
// (nothing is taken for unnamed).
func groupNamed(gid uint32) bool {
	return groupFileNames(gid) || nameServiceNamesGroup(gid)
}

// groupFileNames reports whether the group file names gid.
func groupFileNames(gid uint32) bool {
	f, err := os.Open(groupFile)
	if err != nil {
		return true
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20) // a group of many members is one long line
	for sc.Scan() {
		// name:password:gid:members; the gid read as the C library
		// reads it (strtoul: "0118" and "+118" are 118), and a field it
		// might read otherwise names every gid.
		fs := strings.Split(sc.Text(), ":")
		if len(fs) < 3 || fs[2] == "" {
			continue
		}
		g, err := strconv.ParseUint(strings.TrimPrefix(strings.TrimLeft(fs[2], " \t"), "+"), 10, 32)
		if err != nil || uint32(g) == gid {
			return true
		}
	}
	return sc.Err() != nil
}

// nameServiceGroups caches nameServiceNamesGroup's answers: getent takes
// a few milliseconds (nss-systemd asks its sockets), an audit's runs are
// hundreds.
var nameServiceGroups sync.Map // uint32 -> bool

// nameServiceNamesGroup asks the name service, through getent as the C
// library reads nsswitch.conf, whether it names gid: true unless getent
// answers that no source does (exit status 2), and unless a source of
// groups is a directory service (groupSourcesLocal): getent's "not found"
// is its answer too when a source cannot be reached (LDAP or SSSD down, a
// module missing), and a group of the directory's would then be taken
// for one nothing names: the sandbox would have it, and its files.
func nameServiceNamesGroup(gid uint32) bool {
	if named, ok := nameServiceGroups.Load(gid); ok {
		return named.(bool)
	}
	if !groupSourcesLocal() {
		nameServiceGroups.Store(gid, true)
		return true
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	getent, err := hostprog.Find("getent")
	if err != nil {
		// Not asked: the group is taken as one a directory service
		// might name, as where the answer is not trusted.
		nameServiceGroups.Store(gid, true)
		return true
	}
	cmd := exec.CommandContext(ctx, getent, "group", strconv.FormatUint(uint64(gid), 10))
	cmd.Env = hostprog.Env() // none of the caller's secrets
	err = cmd.Run()
	var exit *exec.ExitError
	named := !(errors.As(err, &exit) && exit.ExitCode() == 2)
	nameServiceGroups.Store(gid, named)
	return named
}

// nsswitchFile is the name service's configuration (a variable for the
// tests).
var nsswitchFile = "/etc/nsswitch.conf"

// localGroupSources are the sources of groups nsswitch.conf may name that
// answer from this machine's own files and services, whose "not found"
// means not found: the group file (files; compat, but for its +/- lines,
// which ask NIS), systemd's userdb and dynamic users (systemd), another
// file (altfiles, extrausers, db) and local containers' (mymachines).
var localGroupSources = []string{"files", "compat", "systemd", "altfiles", "extrausers", "db", "mymachines"}

// groupSourcesLocal reports whether every source nsswitch.conf names for
// groups is local (localGroupSources), the C library's default (files)
// where it has none; false where it cannot be read or names another (ldap,
// sss, nis, winbind, oslogin: a directory service, which may be down).
func groupSourcesLocal() bool {
	b, err := os.ReadFile(nsswitchFile)
	if errors.Is(err, os.ErrNotExist) {
		return groupFileLocal()
	}
	if err != nil {
		return false
	}
	for _, line := range strings.Split(string(b), "\n") {
		line, _, _ = strings.Cut(line, "#")
		// The database's name ends at a colon or a blank, as the C
		// library reads it: "group ldap" names ldap too.
		line = strings.TrimLeft(line, " \t\r\f\v")
		n := strings.IndexAny(line, ": \t\r\f\v")
		if n < 0 || line[:n] != "group" {
			continue
		}
		srcs := strings.TrimLeft(line[n:], ": \t\r\f\v")
		// Actions ([NOTFOUND=return], spaces allowed inside) are no
		// sources.
		for {
			i := strings.Index(srcs, "[")
			if i < 0 {
				break
			}
			j := strings.Index(srcs[i:], "]")
			if j < 0 {
				return false
			}
			srcs = srcs[:i] + " " + srcs[i+j+1:]
		}
		for _, src := range strings.Fields(srcs) {
			if !slices.Contains(localGroupSources, src) || (src == "compat" && !groupFileLocal()) {
				return false
			}
		}
	}
	return true
}

// groupFileLocal reports whether the group file names no NIS groups (the
// +/- lines compat reads): false where it cannot be read.
func groupFileLocal() bool {
	b, err := os.ReadFile(groupFile)
	if errors.Is(err, os.ErrNotExist) {
		return true
	}
	if err != nil {
		return false
	}
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "+") || strings.HasPrefix(line, "-") {
			return false
		}
	}
	return true
}

// passwdEntry returns the primary gid and the home the passwd file gives
// uid; ok is false when it names no such uid (or cannot be read).
func passwdEntry(uid uint32) (gid uint32, home string, ok bool) {
	f, err := os.Open(passwdFile)
	if err != nil {
		return 0, "", false
	}
	defer f.Close()
	want := strconv.FormatUint(uint64(uid), 10)
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// name:password:uid:gid:gecos:home:shell
		fs := strings.Split(sc.Text(), ":")
		if len(fs) < 7 || fs[2] != want {
			continue
		}
		g, err := strconv.ParseUint(fs[3], 10, 32)
		if err != nil {
			return 0, "", false
		}
		return uint32(g), fs[5], true
	}
	return 0, "", false
}

// ownHomes lists the homes, as the passwd file gives them, of the caller
// and of the uid a run's sandbox takes (cred; nil: the caller's), which
// hold that user's credentials (~/.git-credentials, ~/.ssh, ~/.docker)
// wherever they are: a service account's /var/lib/jenkins is under no
// fixed mask, and HOME may be unset or name another directory. The
// sandbox, as the tree's owner, could read its owner's 0600 files there.
// A home is listed only where it is a directory that uid owns, as a home
// is: the passwd homes of system users (/bin, /usr/sbin, /var/mail) are
// system directories, root's, never masked so. Root's own is masked
// already (/root).
func ownHomes(cred *syscall.Credential) []string {
	uids := []uint32{uint32(os.Getuid())}
	if cred != nil && cred.Uid != uids[0] {
		uids = append(uids, cred.Uid)
	}
	var out []string
	for _, uid := range uids {
		if uid == 0 {
			continue
		}
		_, home, ok := passwdEntry(uid)
		if !ok || !filepath.IsAbs(home) {
			continue
		}
		var st syscall.Stat_t
		if err := syscall.Stat(home, &st); err != nil || st.Mode&syscall.S_IFMT != syscall.S_IFDIR || st.Uid != uid {
			continue
		}
		out = append(out, home)
	}
	return out
}

// ownerGid is the gid a root caller's sandbox takes with the work tree's
// owner uid: that user's primary group, as its own processes have it;
// never the tree's directory's group treeGid where this system names it,
// which may be any (a tree of group shadow would give the sandbox
// /etc/shadow). For a uid the passwd file does not name, treeGid where
// nothing on this system names it either (groupNamed: the group file,
// LDAP, SSSD, systemd's userdb): the tree came from elsewhere
// with its owner's group (a container's bind-mounted workspace, of the
// host runner's uid and group), which owns nothing this system knows of,
// and without it (nogroup) no file of the tree could be copied up into
// the overlay: the command could change none (EOVERFLOW). Otherwise the
// overflow gid, nogroup, which owns nothing.
func ownerGid(uid, treeGid uint32) uint32 {
	if gid, _, ok := passwdEntry(uid); ok && gid != 0 {
		return gid
	}
	if treeGid != 0 && !groupNamed(treeGid) {
		return treeGid
	}
	return 65534
}

// credentialFileVars name, in the caller's environment, files that hold
// credentials: the variables never reach the command (the environment is
// an allowlist), but the files they name would. google-github-actions/auth
// writes its gha-creds-*.json into the workspace, which is often the work
// tree itself. KUBECONFIG is a list.
var credentialFileVars = []string{
	"GOOGLE_APPLICATION_CREDENTIALS", "CLOUDSDK_AUTH_CREDENTIAL_FILE_OVERRIDE", "GOOGLE_GHA_CREDS_PATH",
	"AWS_SHARED_CREDENTIALS_FILE", "AWS_WEB_IDENTITY_TOKEN_FILE", "AZURE_FEDERATED_TOKEN_FILE",
	"KUBECONFIG", "NPM_CONFIG_USERCONFIG", "PGPASSFILE", "REGISTRY_AUTH_FILE", "TF_CLI_CONFIG_FILE",
	"NETRC", "GIT_CONFIG_GLOBAL", "PIP_CONFIG_FILE", "HELM_REGISTRY_CONFIG", "AWS_CONFIG_FILE", "BOTO_CONFIG",
	// sops' age private key, Ansible Vault's password (a file, or a
	// program that prints it), rclone's config (its remotes' tokens and
	// passwords), a Hugging Face token.
	"SOPS_AGE_KEY_FILE", "ANSIBLE_VAULT_PASSWORD_FILE", "RCLONE_CONFIG", "HF_TOKEN_PATH",
	// gcloud's access token, the AWS SDKs' container credentials token
	// (EKS Pod Identity's), an Azure service principal's certificate and
	// key (Azure Identity's, Terraform's azurerm's) and Terraform's OIDC
	// token, Consul's token, Pulumi's passphrase, Oracle Cloud's CLI
	// config and API signing key, Databricks' config (its tokens),
	// Bundler's user config (a gem server's credentials), mysql's login
	// paths (mysql_config_editor's passwords), libpq's service file
	// (passwords).
	"CLOUDSDK_AUTH_ACCESS_TOKEN_FILE", "AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE", "AZURE_CLIENT_CERTIFICATE_PATH",
	"ARM_CLIENT_CERTIFICATE_PATH", "ARM_OIDC_TOKEN_FILE_PATH", "CONSUL_HTTP_TOKEN_FILE", "PULUMI_CONFIG_PASSPHRASE_FILE",
	"OCI_CLI_CONFIG_FILE", "OCI_CLI_KEY_FILE", "DATABRICKS_CONFIG_FILE", "BUNDLE_USER_CONFIG", "MYSQL_TEST_LOGIN_FILE",
	"PGSERVICEFILE",
}

// credentialDirVars name, in the caller's environment, directories that
// hold credential files: each variable's files, by their names there. A
// tool's directory moved out of HOME (which is masked whole) by its
// variable keeps its tokens there.
var credentialDirVars = []struct {
	name  string
	files []string
}{
	{"DOCKER_CONFIG", []string{"config.json"}},
	{"GH_CONFIG_DIR", []string{"hosts.yml"}},
	{"XDG_CONFIG_HOME", []string{"gh/hosts.yml", "git/credentials", "containers/auth.json", "gcloud/credentials.db",
		"gcloud/access_tokens.db", "gcloud/application_default_credentials.json", "glab-cli/config.yml"}},
	{"CLOUDSDK_CONFIG", []string{"credentials.db", "access_tokens.db", "application_default_credentials.json"}},
	{"AZURE_CONFIG_DIR", []string{"msal_token_cache.json", "msal_token_cache.bin", "accessTokens.json",
		"service_principal_entries.json", "service_principal_entries.bin"}},
	{"CARGO_HOME", []string{"credentials.toml", "credentials"}},
	{"GRADLE_USER_HOME", []string{"gradle.properties"}},
	{"DOCKER_CERT_PATH", []string{"key.pem"}},
	// Claude Code's own: its OAuth tokens (.credentials.json) and its
	// global config, which keeps an API key a user logged in with, moved
	// out of HOME together by CLAUDE_CONFIG_DIR; the Codex CLI's login.
	{"CLAUDE_CONFIG_DIR", []string{".credentials.json", ".claude.json"}},
	{"CODEX_HOME", []string{"auth.json"}},
	// Hugging Face's login: its token, and the named tokens beside it.
	{"HF_HOME", []string{"token", "stored_tokens"}},
	// Composer's tokens (GitHub's, a private repository's), Poetry's
	// repositories' passwords where no keyring holds them (as in CI),
	// the JFrog CLI's servers' tokens.
	{"COMPOSER_HOME", []string{"auth.json"}},
	{"POETRY_CONFIG_DIR", []string{"auth.toml"}},
	{"JFROG_CLI_HOME_DIR", []string{"jfrog-cli.conf.v6", "jfrog-cli.conf.v5"}},
}

// credentialSocketVars name, in the caller's environment, sockets that
// answer as the caller: an ssh-agent's (started with -a PATH, anywhere:
// it signs with the caller's keys for any process of its uid, and the
// sandbox's uid maps back to it), a container engine's or BuildKit's
// (unix://PATH), which is the host, the session bus's
// (unix:path=PATH,guid=…, any of a list: the caller's desktop, its
// secret service, systemd --user, which starts any unit), a gpg-agent's
// (PATH:PID:1, as GnuPG before 2.1 wrote it: it signs and decrypts with
// the caller's keys) and a sound server's (unix:PATH). Those under the
// masks (/tmp, /run, HOME, XDG_RUNTIME_DIR) are hidden already; an
// abstract one (unix:abstract=…) is the host network namespace's, which
// the run does not share.
var credentialSocketVars = []struct {
	name  string
	paths func(v string) []string
}{
	{"SSH_AUTH_SOCK", func(v string) []string { return []string{v} }},
	{"DOCKER_HOST", unixURL},
	{"CONTAINER_HOST", unixURL},
	{"BUILDKIT_HOST", unixURL},
	{"DBUS_SESSION_BUS_ADDRESS", dbusPaths},
	{"DBUS_SYSTEM_BUS_ADDRESS", dbusPaths},
	{"GPG_AGENT_INFO", func(v string) []string { return []string{strings.Split(v, ":")[0]} }},
	{"PULSE_SERVER", func(v string) []string {
		// A list of servers, each unix:PATH, a bare absolute PATH, or a
		// host (tcp:, an address), which is not a file; each may start
		// with {MACHINE-ID}, the machine it is for (as pax11publish
		// writes it).
		var out []string
		for _, s := range strings.Fields(v) {
			if strings.HasPrefix(s, "{") {
				if _, rest, ok := strings.Cut(s, "}"); ok {
					s = rest
				}
			}
			if p, ok := strings.CutPrefix(s, "unix:"); ok {
				out = append(out, p)
			} else if strings.HasPrefix(s, "/") {
				out = append(out, s)
			}
		}
		return out
	}},
}

// unixURL is the path of a unix://PATH address, none for another.
func unixURL(v string) []string {
	if p, ok := strings.CutPrefix(v, "unix://"); ok {
		return []string{p}
	}
	return nil
}

// dbusPaths lists the socket paths of a D-Bus address list
// (transport:key=value,…;…): each unix transport's path=. Its values are
// escaped (%XX) as D-Bus escapes them.
func dbusPaths(v string) []string {
	var out []string
	for _, a := range strings.Split(v, ";") {
		rest, ok := strings.CutPrefix(a, "unix:")
		if !ok {
			continue
		}
		for _, kv := range strings.Split(rest, ",") {
			if p, ok := strings.CutPrefix(kv, "path="); ok {
				if u, err := url.PathUnescape(p); err == nil {
					out = append(out, u)
				}
			}
		}
	}
	return out
}

// envCredentialSockets lists the sockets the caller's environment names
// (credentialSocketVars), each once, absolute, with its symlinks resolved.
func envCredentialSockets(getenv func(string) string) []string {
	var out []string
	for _, k := range credentialSocketVars {
		for _, p := range k.paths(getenv(k.name)) {
			out = addResolved(out, p, func(m os.FileMode) bool { return m&os.ModeSocket != 0 })
		}
	}
	return out
}

// addResolved appends to out the path p names, absolute (a relative one
// against the working directory, as the libraries that read these
// variables take it) with its symlinks resolved, where it is of a kind
// keep takes and out does not hold it yet.
func addResolved(out []string, p string, keep func(os.FileMode) bool) []string {
	r, err := callerPath(p)
	if err != nil || slices.Contains(out, r) {
		return out
	}
	if fi, err := os.Stat(r); err == nil && keep(fi.Mode()) {
		out = append(out, r)
	}
	return out
}

// callerPath returns the path p, a value of the caller's environment,
// names for the caller's tools: absolute (a relative one against the
// working directory) with its symlinks resolved, each ".." taken after
// the link before it is followed, as the kernel takes $TMPDIR/x. Not
// filepath.Abs, which cleans "link/.." away as text and names another
// directory (TMPDIR=/srv/ci/link/.. is the parent of where link leads).
func callerPath(p string) (string, error) {
	if p == "" {
		return "", os.ErrNotExist
	}
	if !filepath.IsAbs(p) {
		wd, err := os.Getwd()
		if err != nil {
			return "", err
		}
		p = wd + "/" + p
	}
	return filepath.EvalSymlinks(p)
}

// envCredentialFiles lists the regular files the caller's environment
// names as credentials (credentialFileVars, credentialDirVars), each once,
// absolute (a relative one against the working directory), with its
// symlinks resolved.
func envCredentialFiles(getenv func(string) string) []string {
	var out []string
	add := func(p string) { out = addResolved(out, p, os.FileMode.IsRegular) }
	// Kerberos' ticket cache and keytabs: FILE:PATH, WRFILE:PATH (a
	// keytab) or PATH (a KEYRING: cache is the kernel's, whose keys the
	// seccomp filter keeps the command from; a DIR: collection is masked
	// whole, krb5CollectionDir).
	for _, k := range []string{"KRB5CCNAME", "KRB5_KTNAME", "KRB5_CLIENT_KTNAME"} {
		v := getenv(k)
		if p, ok := strings.CutPrefix(v, "FILE:"); ok {
			add(p)
		} else if p, ok := strings.CutPrefix(v, "WRFILE:"); ok {
			add(p)
		} else if !strings.Contains(v, ":") {
			add(v)
		}
	}
	for _, k := range credentialFileVars {
		if k == "KUBECONFIG" {
			for _, p := range filepath.SplitList(getenv(k)) {
				add(p)
			}
			continue
		}
		add(getenv(k))
	}
	for _, d := range credentialDirVars {
		if v := getenv(d.name); v != "" {
			for _, f := range d.files {
				add(filepath.Join(v, f))
			}
		}
	}
	for _, k := range askpassVars {
		if p := askpassProgram(getenv(k), getenv("PATH")); p != "" {
			add(p)
		}
	}
	return out
}

// askpassVars name, in the caller's environment, the programs git, ssh and
// sudo run for a password (or a passphrase, a token), which each prints
// when run: a script of the caller's holds it (echo "$TOKEN" written into
// it) or fetches it. The variables never reach the command; the program
// is hidden as a credential file (askpassProgram).
var askpassVars = []string{"GIT_ASKPASS", "SSH_ASKPASS", "SUDO_ASKPASS"}

// systemProgramDirs are the directories of the system's own programs, the
// package manager's: an askpass program there (ssh-askpass,
// ksshaskpass, or GIT_ASKPASS=/bin/true, =echo, which CI sets so that no
// prompt waits) holds no secret, reaches the caller's keyring only by
// sockets that are masked, and may be a program the command needs.
// /usr/local is not theirs (localProgramDir).
var systemProgramDirs = []string{"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"}

// localProgramDir is the directory in /usr that the package manager leaves
// to the machine's administrator and users: /usr/local/bin is where people
// put their own scripts, an askpass one that echoes a token among them.
const localProgramDir = "/usr/local"

// askpassProgram returns the program an askpass variable's value v names
// for the caller, as git and ssh run it: a path (a relative one against
// the working directory), or a name without a slash looked up on the
// caller's PATH (its absolute directories); with its symlinks resolved.
// It returns "" for none, or for one in a system directory
// (systemProgramDirs, and where their links lead) but /usr/local
// (localProgramDir).
func askpassProgram(v, path string) string {
	if v == "" {
		return ""
	}
	if !strings.Contains(v, "/") {
		name := v
		v = ""
		for _, d := range filepath.SplitList(path) {
			p := filepath.Join(d, name)
			if fi, err := os.Stat(p); filepath.IsAbs(d) && err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
				v = p
				break
			}
		}
	}
	r, err := callerPath(v)
	if err != nil {
		return ""
	}
	if underOrWhereItLeads(r, localProgramDir) {
		return r
	}
	if slices.ContainsFunc(systemProgramDirsResolved(), func(d string) bool { return fsx.Under(r, d) }) {
		return ""
	}
	return r
}

// systemProgramDirsResolved are systemProgramDirs and where their links
// lead, read once a process (systemDirsBut): every run's set-up asks.
var systemProgramDirsResolved = sync.OnceValue(func() []string { return systemDirsBut(systemProgramDirs, "") })

// underOrWhereItLeads says whether r (absolute, symlinks resolved) lies in
// d, or in where d's links lead (/bin is /usr/bin with a merged /usr).
func underOrWhereItLeads(r, d string) bool {
	rd, err := filepath.EvalSymlinks(d)
	if err != nil {
		rd = d
	}
	return fsx.Under(r, d) || fsx.Under(r, rd)
}

// krb5CollectionDir is the directory of the Kerberos cache collection a
// KRB5CCNAME names, DIR:DIR or DIR::DIR/FILE (one cache of it, beside
// the others and the primary file), "" for another type.
func krb5CollectionDir(v string) string {
	if p, ok := strings.CutPrefix(v, "DIR::"); ok {
		// The file's directory as the kernel takes it, a ".." after a
		// link too (not filepath.Dir, which cleans as text).
		switch i := strings.LastIndex(p, "/"); i {
		case -1:
			return "."
		case 0:
			return "/"
		default:
			return p[:i]
		}
	}
	p, _ := strings.CutPrefix(v, "DIR:")
	if p == v {
		return ""
	}
	return p
}

// shownCallerHome is the caller's HOME (home, against the working
// directory where relative), absolute with its links followed, where the
// run hides it: a mask over it or over a directory that holds it (/home),
// or --strict-fs's. The init binds the command's throwaway HOME there too,
// so that a write by that path (the caller's real ~/.bashrc named whole)
// is recorded as HOME's, as under Claude Code it lands in HOME. "" where
// it is none, not a directory, the sandbox's own HOME's path already, or
// where no mask would be made over it (a system directory, /dev, /proc,
// /sys, as callerSecrets passes them over).
func shownCallerHome(home string, v hostView, maskDirs []string) string {
	r, err := callerPath(home)
	if err != nil || systemDir(r) || inOwnKernelDirs(r) || r == sandboxHome || r == mountPointOf(sandboxHome) || !v.hides(r, maskDirs) {
		return ""
	}
	if fi, err := os.Stat(r); err != nil || !fi.IsDir() {
		return ""
	}
	return r
}

// homeShownAt is the path at which the run shows its own HOME in place
// of the caller's (HOME): the caller's HOME path where the init binds it
// there too (shown, shownCallerHome's), or the command's HOME where the
// caller's is that path already (a root caller's /root); "" otherwise.
func homeShownAt(home, shown string) string {
	if shown != "" {
		return shown
	}
	if r, err := callerPath(home); err == nil && r == sandboxHome {
		return r
	}
	return ""
}
