package sandbox

import (
	"os"
	"path/filepath"

	"github.com/vigiles/action/pkg/sandbox/internal/fsx"
)

// ciTempVars are the temporary directories other CI systems keep a job's
// secret files in, beside its workspace and outside every fixed mask, as
// the caller's environment names them: each is masked as RUNNER_TEMP is
// (callerSecrets). GitLab writes each of a job's file-type CI/CD
// variables (a kubeconfig, a cloud key, an SSH key, whatever its name) to
// <CI_PROJECT_DIR>.tmp/NAME, world-readable where the job runs as root;
// Azure Pipelines downloads a job's secure files (certificates,
// keystores) to AGENT_TEMPDIRECTORY; Jenkins' withCredentials writes its
// file credentials under WORKSPACE_TMP (<workspace>@tmp/secretFiles).
var ciTempVars = []struct {
	name, suffix string
}{
	{"CI_PROJECT_DIR", ".tmp"},
	{"AGENT_TEMPDIRECTORY", ""},
	{"WORKSPACE_TMP", ""},
}

// ciTempDirs lists the directories of ciTempVars that are there, as
// getenv names them (a relative one against the working directory), with
// their links resolved: those the run sees and
// may enter, to mask (dirs), the tree shown over it where it lies in
// one, and those the work tree tree holds, which a mask could not hide
// from the tree's overlay (held: the run is refused).
func ciTempDirs(getenv func(string) string, tree string, v hostView) (dirs, held []string) {
	for _, c := range ciTempVars {
		// A relative value is taken against the working directory, as
		// the caller's tools take it (callerPath), before the suffix
		// (CI_PROJECT_DIR=. is the working directory's .tmp).
		val := getenv(c.name)
		if val == "" {
			continue
		}
		p := val
		if !filepath.IsAbs(p) {
			wd, err := os.Getwd()
			if err != nil {
				continue
			}
			p = filepath.Join(wd, p)
		}
		d, err := filepath.EvalSymlinks(filepath.Clean(p) + c.suffix)
		if err != nil || systemDir(d) {
			continue
		}
		if fi, err := os.Stat(d); err != nil || !fi.IsDir() {
			continue
		}
		switch {
		case fsx.Under(d, tree):
			held = append(held, c.name+"="+val+" ("+d+")")
		case v.reads(d, 0o1):
			// The tree may lie in it (a plugin cloned there to be
			// audited): the tree is shown over the mask, as one in a
			// masked HOME is, and its secret files beside the tree not.
			dirs = append(dirs, d)
		}
	}
	return dirs, held
}
