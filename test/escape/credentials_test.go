package escape

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A checkout that persisted its credentials: actions/checkout's header in
// .git/config and in a submodule's, and a token in a remote URL.
const gitCanaryConf = `[http "https://github.com/"]
	extraheader = AUTHORIZATION: basic vigiles-canary-header
[remote "origin"]
	url = https://x-access-token:vigiles-canary-url@github.com/o/r
	fetch = +refs/heads/*:refs/remotes/origin/*
`

func gitInit(t *testing.T, dir string) {
	t.Helper()
	requireTools(t, "git")
	if out, err := exec.Command("git", "init", "-q", dir).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	appendFile(t, filepath.Join(dir, ".git", "config"), gitCanaryConf)
}

func appendFile(t *testing.T, p, s string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
}

func noCanary(t *testing.T, res result) {
	t.Helper()
	if strings.Contains(res.raw, "vigiles-canary") {
		t.Errorf("a credential reached the command:\nstdout: %s\nstderr: %s", res.Stdout, res.Stderr)
	}
}

// The work tree's own git configs are seen without their credentials; git
// still works, the command may change them, and reading or leaving one as
// it was records no write.
func TestGitCredentialsInTheWorkTree(t *testing.T) {
	requireBwrap(t)
	script := `cat .git/config .git/modules/sub/config; git config --get remote.origin.url
git status --short >/dev/null && echo git-ok
: >> .git/config; : >> .git/modules/sub/config
git config --local vigiles.probe yes && echo config-written`
	for _, r := range runners(t) {
		for _, writes := range []string{"overlay", "copy"} {
			t.Run(r.name+"/"+writes, func(t *testing.T) {
				dir := workTree(t)
				gitInit(t, dir)
				appendFile(t, filepath.Join(dir, ".git/modules/sub/config"), gitCanaryConf)
				before := fileHash(t, filepath.Join(dir, ".git", "config"))
				res := vigiles(t, r, dir, nil, "--writes", writes, "--", "sh", "-c", script)
				noCanary(t, res)
				for _, want := range []string{"https://github.com/o/r", "git-ok", "config-written", "[core]"} {
					if !strings.Contains(res.Stdout, want) {
						t.Errorf("stdout lacks %q:\nstdout: %s\nstderr: %s", want, res.Stdout, res.Stderr)
					}
				}
				var configWrites []string
				for _, w := range res.Writes {
					if strings.HasSuffix(w.Path, "config") {
						configWrites = append(configWrites, w.Op+" "+w.Path)
					}
				}
				if len(configWrites) != 1 || configWrites[0] != "modify .git/config" {
					t.Errorf("config writes %v; want only git config's modify of .git/config", configWrites)
				}
				if fileHash(t, filepath.Join(dir, ".git", "config")) != before {
					t.Error("the host's .git/config changed")
				}
			})
		}
	}
}

// Around the work tree: the configs of the checkout a tree is a
// subdirectory of (seen scrubbed), and a CI runner's temporary directory,
// file commands and own credentials (a container job's layout, outside any
// masked directory).
func TestRunnerAndOutsideCredentials(t *testing.T) {
	requireBwrap(t)
	requireRoot(t, "a runner's layout is made under /var/lib, outside the masked directories")
	base := openTempDir(t, "/var/lib", "vigiles-escape-runner-")
	temp := filepath.Join(base, "_work", "_temp")
	envFile := filepath.Join(temp, "_runner_file_commands", "set_env_1")
	appendFile(t, envFile, "SECRET=vigiles-canary-env\n")
	appendFile(t, filepath.Join(temp, "git-credentials-1.config"), gitCanaryConf)
	appendFile(t, filepath.Join(base, ".credentials"), `{"token":"vigiles-canary-runner"}`)
	// The runner's other secrets beside its _work: the proxy credentials
	// its .env sets (which the environment allowlist keeps from the
	// command), its credential store (encrypted with /etc/machine-id,
	// which any process reads), the credentials of an auth migration, and
	// its logs, where each worker writes the whole job message of every
	// job it ran.
	runnerFiles := []string{".env", ".credential_store", ".credentials_migrated", filepath.Join("_diag", "Worker_1.log")}
	for _, n := range runnerFiles {
		appendFile(t, filepath.Join(base, n), "https_proxy=http://user:vigiles-canary-runner-"+strings.ReplaceAll(n, "/", "-")+"@proxy.test:3128\n")
	}
	repo := filepath.Join(base, "_work", "repo", "repo")
	gitInit(t, repo)
	tree := filepath.Join(repo, "plugins", "p")
	if err := os.MkdirAll(tree, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{base, filepath.Join(base, "_work"), filepath.Join(base, "_diag"), temp, filepath.Dir(envFile), filepath.Dir(repo), repo, filepath.Join(repo, "plugins")} {
		os.Chmod(d, 0o755)
	}
	files := []string{envFile, filepath.Join(temp, "git-credentials-1.config"), filepath.Join(base, ".credentials"), filepath.Join(repo, ".git", "config")}
	for _, n := range runnerFiles {
		files = append(files, filepath.Join(base, n))
	}
	script := "cat " + strings.Join(files, " ") + "; cat " + filepath.Join(repo, ".git", "HEAD") +
		"; git config --file " + filepath.Join(repo, ".git", "config") + " --get remote.origin.url"
	env := []string{"RUNNER_TEMP=" + temp, "GITHUB_ENV=" + envFile}
	for _, r := range runners(t) {
		t.Run(r.name, func(t *testing.T) {
			res := vigiles(t, r, tree, env, "--", "sh", "-c", script)
			noCanary(t, res)
			if !strings.Contains(res.Stdout, "ref: refs/heads/") {
				t.Errorf("the checkout's .git/HEAD was not readable, so this test shows nothing:\nstdout: %s\nstderr: %s", res.Stdout, res.Stderr)
			}
			// The checkout's config is there, scrubbed: git can read it.
			if !strings.Contains(res.Stdout, "[core]") || !strings.Contains(res.Stdout, "https://github.com/o/r\n") {
				t.Errorf("the checkout's .git/config is not readable without its credentials:\nstdout: %s\nstderr: %s", res.Stdout, res.Stderr)
			}
			// The control: without the runner's variables its files are
			// the host's like any other.
			ctl := vigiles(t, r, tree, nil, "--", "sh", "-c", script)
			if !strings.Contains(ctl.Stdout, "vigiles-canary-env") || !strings.Contains(ctl.Stdout, "vigiles-canary-runner-.env") {
				t.Errorf("without RUNNER_TEMP the file command and the runner's .env were not readable, so this test shows nothing:\nstdout: %s\nstderr: %s", ctl.Stdout, ctl.Stderr)
			}
		})
	}
}

// Checkouts nested in the work tree (a job that checks out several
// repositories, a tree that is no checkout itself) are seen without their
// credentials, like the tree's own; git works in them and reading them
// records no write.
func TestGitCredentialsOfNestedCheckouts(t *testing.T) {
	requireBwrap(t)
	script := `cat a/.git/config main/.git/config main/sub/.git/config
git -C main/sub config --get remote.origin.url
git -C a status --short >/dev/null && echo git-ok`
	for _, r := range runners(t) {
		for _, writes := range []string{"overlay", "copy"} {
			t.Run(r.name+"/"+writes, func(t *testing.T) {
				dir := workTree(t)
				for _, d := range []string{"a", "main", "main/sub"} {
					gitInit(t, filepath.Join(dir, d))
				}
				res := vigiles(t, r, dir, nil, "--writes", writes, "--", "sh", "-c", script)
				noCanary(t, res)
				for _, want := range []string{"https://github.com/o/r\n", "git-ok", "[core]"} {
					if !strings.Contains(res.Stdout, want) {
						t.Errorf("stdout lacks %q:\nstdout: %s\nstderr: %s", want, res.Stdout, res.Stderr)
					}
				}
				for _, w := range res.Writes {
					if strings.HasSuffix(w.Path, "config") {
						t.Errorf("reading the configs recorded %s %s", w.Op, w.Path)
					}
				}
			})
		}
	}
}

// On a self-hosted runner, whose work directory lies outside the masked
// ones: another checkout in the job's workspace, beside the tree, is seen
// scrubbed, and the runner's other workspaces are not seen at all.
func TestCredentialsBesideTheTreeOnARunner(t *testing.T) {
	requireBwrap(t)
	requireRoot(t, "a runner's layout is made under /var/lib, outside the masked directories")
	base := openTempDir(t, "/var/lib", "vigiles-escape-runner-")
	work := filepath.Join(base, "_work")
	ws := filepath.Join(work, "repo", "repo")
	tree := filepath.Join(ws, "main")
	gitInit(t, tree)
	gitInit(t, filepath.Join(ws, "other"))
	gitInit(t, filepath.Join(work, "elsewhere", "elsewhere"))
	if err := os.MkdirAll(filepath.Join(work, "_temp"), 0o755); err != nil {
		t.Fatal(err)
	}
	filepath.Walk(base, func(p string, fi os.FileInfo, _ error) error {
		if fi != nil && fi.IsDir() {
			os.Chmod(p, 0o755)
		}
		return nil
	})
	other, elsewhere := filepath.Join(ws, "other", ".git", "config"), filepath.Join(work, "elsewhere", "elsewhere", ".git", "config")
	script := "cat " + other + "; echo; cat " + elsewhere + " || echo elsewhere-hidden"
	env := []string{"GITHUB_WORKSPACE=" + ws, "RUNNER_WORKSPACE=" + filepath.Join(work, "repo"), "RUNNER_TEMP=" + filepath.Join(work, "_temp")}
	for _, r := range runners(t) {
		t.Run(r.name, func(t *testing.T) {
			res := vigiles(t, r, tree, env, "--", "sh", "-c", script)
			noCanary(t, res)
			if !strings.Contains(res.Stdout, "https://github.com/o/r\n") || !strings.Contains(res.Stdout, "elsewhere-hidden") {
				t.Errorf("want the workspace's other checkout scrubbed and the other workspace hidden:\nstdout: %s\nstderr: %s", res.Stdout, res.Stderr)
			}
			// The control: without the runner's variables both are the
			// host's like any other file.
			ctl := vigiles(t, r, tree, nil, "--", "sh", "-c", script)
			if strings.Count(ctl.Stdout, "vigiles-canary-header") != 2 {
				t.Errorf("without the runner's variables the configs were not readable, so this test shows nothing:\nstdout: %s\nstderr: %s", ctl.Stdout, ctl.Stderr)
			}
		})
	}
}

// A work tree that holds the caller's HOME (vigiles run from ~) would show
// what the HOME mask hides: the run is refused, naming the fix.
func TestATreeHoldingHomeIsRefused(t *testing.T) {
	requireBwrap(t)
	home := workTree(t)
	appendFile(t, filepath.Join(home, ".ssh", "id_ed25519"), "vigiles-canary-key\n")
	for _, tree := range []string{home, filepath.Dir(home)} {
		cmd := exec.Command(vigilesBin, "run", "--json", "--workdir", tree, "--", "cat", filepath.Join(home, ".ssh", "id_ed25519"))
		cmd.Env = []string{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "HOME=" + home}
		out, err := cmd.Output()
		var res result
		if jerr := json.Unmarshal(out, &res); jerr != nil {
			t.Fatalf("tree %s: %v; no JSON result (%v): %s", tree, err, jerr, out)
		}
		if cmd.ProcessState.ExitCode() != 125 || res.Tier != "refused" || !strings.Contains(res.Refusal, "--workdir") || strings.Contains(string(out), "vigiles-canary") {
			t.Errorf("tree %s: exit %d, tier %s, refusal %q; want 125, refused, naming --workdir, and no canary\n%s", tree, cmd.ProcessState.ExitCode(), res.Tier, res.Refusal, out)
		}
	}
}

// A self-hosted runner whose work folder is not its _work (config.sh
// --work elsewhere): its secret files and logs are found from the runner
// the run is under (its Runner.Worker, <root>/bin/Runner.Worker, among the
// caller's ancestors), not from RUNNER_TEMP, and are hidden all the same.
func TestRunnerCredentialsWithAWorkFolderElsewhere(t *testing.T) {
	requireBwrap(t)
	requireRoot(t, "a runner's layout is made under /var/lib, outside the masked directories")
	base := openTempDir(t, "/var/lib", "vigiles-escape-runner-")
	root := filepath.Join(base, "actions-runner")
	worker := filepath.Join(root, "bin", "Runner.Worker")
	if err := os.MkdirAll(filepath.Dir(worker), 0o755); err != nil {
		t.Fatal(err)
	}
	// The worker: a shell under the runner's binary's name, which starts
	// vigiles as a step's shell would and waits for it.
	copyFile(t, "/bin/sh", worker, 0o755)
	secrets := []string{".credentials", ".credentials_rsaparams", ".env", filepath.Join("_diag", "Worker_1.log")}
	for _, n := range secrets {
		appendFile(t, filepath.Join(root, n), "vigiles-canary-runner-"+strings.ReplaceAll(n, "/", "-")+"\n")
	}
	work := filepath.Join(base, "work")
	temp := filepath.Join(work, "_temp")
	tree := filepath.Join(work, "repo", "repo")
	for _, d := range []string{temp, tree} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	filepath.Walk(base, func(p string, fi os.FileInfo, _ error) error {
		if fi != nil && fi.IsDir() {
			os.Chmod(p, 0o755)
		}
		return nil
	})
	var files []string
	for _, n := range secrets {
		files = append(files, filepath.Join(root, n))
	}
	script := "cat " + strings.Join(files, " ")
	env := []string{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "RUNNER_TEMP=" + temp, "RUNNER_WORKSPACE=" + filepath.Dir(tree)}
	run := func(t *testing.T, r runner, under string) result {
		t.Helper()
		if r.owner != nil {
			os.Lchown(tree, int(r.owner.Uid), int(r.owner.Gid))
		}
		args := []string{"run", "--json", "--workdir", tree, "--", "sh", "-c", script}
		cmd := exec.Command(vigilesBin, args...)
		if under != "" {
			// Not exec'd: the worker stays vigiles' parent.
			cmd = exec.Command(under, append([]string{"-c", `"$0" "$@"; exit $?`, vigilesBin}, args...)...)
		}
		cmd.Env, cmd.Dir = env, tree
		if r.cred != nil {
			cmd.SysProcAttr = &syscall.SysProcAttr{Credential: r.cred}
		}
		out, err := cmd.Output()
		var res result
		if jerr := json.Unmarshal(out, &res); jerr != nil {
			t.Fatalf("as %s: %v; no JSON result (%v): %s", r.name, err, jerr, out)
		}
		res.raw = string(out)
		if res.Tier != "confined" {
			t.Fatalf("as %s: tier %s (refusal %q, error %q)", r.name, res.Tier, res.Refusal, res.Error)
		}
		return res
	}
	for _, r := range runners(t) {
		t.Run(r.name, func(t *testing.T) {
			noCanary(t, run(t, r, worker))
			// The control: run from no runner, the files are the host's
			// like any other.
			if ctl := run(t, r, ""); strings.Count(ctl.Stdout, "vigiles-canary-runner") != len(secrets) {
				t.Errorf("outside the runner its files were not all readable, so this test shows nothing:\nstdout: %s\nstderr: %s", ctl.Stdout, ctl.Stderr)
			}
		})
	}
}
