package sandbox

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestRedteam19MoreCredentialFilesTheEnvironmentNames: the nineteenth
// round's attempt at the credential files the caller's environment names
// beside those credentialFileVars and credentialDirVars knew: gcloud's
// access token file, the AWS SDKs' container authorization token (EKS
// Pod Identity's), an Azure service principal's certificate (Azure
// Identity's and Terraform's), Terraform's OIDC token file, Consul's
// token file, Pulumi's passphrase file, Oracle Cloud's CLI config and
// API key, Databricks' config, Bundler's user config, mysql's login
// paths, libpq's service file, and Composer's, Poetry's and the JFrog
// CLI's credentials in the directories their variables name. Each was
// read whole (the variables never reach the command; the files did);
// each now reads as empty, and a directory's other files as they are.
func TestRedteam19MoreCredentialFilesTheEnvironmentNames(t *testing.T) {
	requireConfinement(t)
	vars := map[string]string{
		"CLOUDSDK_AUTH_ACCESS_TOKEN_FILE": "gcloud-token", "AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE": "eks-pod-identity-token",
		"AZURE_CLIENT_CERTIFICATE_PATH": "sp.pem", "ARM_CLIENT_CERTIFICATE_PATH": "arm.pfx", "ARM_OIDC_TOKEN_FILE_PATH": "arm-oidc",
		"CONSUL_HTTP_TOKEN_FILE": "consul-token", "PULUMI_CONFIG_PASSPHRASE_FILE": "pulumi-pass",
		"OCI_CLI_CONFIG_FILE": "oci-config", "OCI_CLI_KEY_FILE": "oci-key.pem", "DATABRICKS_CONFIG_FILE": "databrickscfg",
		"BUNDLE_USER_CONFIG": "bundle-config", "MYSQL_TEST_LOGIN_FILE": "mylogin.cnf", "PGSERVICEFILE": "pg_service.conf",
		"COMPOSER_HOME": "composer", "POETRY_CONFIG_DIR": "poetry", "JFROG_CLI_HOME_DIR": "jfrog",
	}
	files := map[string]string{
		"composer/auth.json": "S", "composer/config.json": "KEPT\n", "poetry/auth.toml": "S", "poetry/config.toml": "KEPT\n",
		"jfrog/jfrog-cli.conf.v6": "S", "jfrog/jfrog-cli.conf.v5": "S",
	}
	var names []string
	for k, v := range vars {
		if !strings.Contains(k, "HOME") && !strings.HasSuffix(k, "_DIR") {
			files[v] = "S"
		}
	}
	for f := range files {
		names = append(names, f)
	}
	for f, text := range files {
		if text == "S" {
			files[f] = "SECRET-" + f + "\n"
		}
	}
	tree := makeTree(t, files)
	t.Chdir(tree)
	for k, v := range vars {
		t.Setenv(k, v)
	}
	res := run(t, Spec{Dir: tree, Command: sh(`cat ` + strings.Join(names, " ") + `; exit 0`)})
	if res.Tier != TierConfined || res.Error != "" || strings.Contains(res.Stdout, "SECRET") || strings.Count(res.Stdout, "KEPT") != 2 {
		t.Errorf("tier %s error %q stdout %q, want every credential file empty and the two other files as they are", res.Tier, res.Error, res.Stdout)
	}
}

// TestRedteam19CITempDirsAreMasked: the round's attempt at the other CI
// systems' temporary directories, where a job's secret files are, beside
// its workspace and under no mask: GitLab writes each file-type CI/CD
// variable, whatever its name, to <CI_PROJECT_DIR>.tmp/NAME (root's,
// world-readable, in a job that runs as root), Azure Pipelines a job's
// secure files to AGENT_TEMPDIRECTORY, Jenkins' withCredentials its file
// credentials under WORKSPACE_TMP. The hook read each whole; each
// directory is now masked, as RUNNER_TEMP is. A tree that holds one
// (the builds directory given as the tree) is refused, naming it.
func TestRedteam19CITempDirsAreMasked(t *testing.T) {
	requireConfinement(t)
	requireRoot(t, "the CI directories are made in /var/lib, outside the fixed masks")
	base := tempDirIn(t, "/var/lib", "vigiles-ci-", 0o755)
	files := map[string]string{
		"builds/group/project/README":                "KEPT\n",
		"builds/group/project.tmp/DEPLOY_KEY":        "SECRET-gitlab\n",
		"agent/_work/_temp/signing.p12":              "SECRET-azure\n",
		"jenkins/ws@tmp/secretFiles/0f1e/kubeconfig": "SECRET-jenkins\n",
	}
	for rel, text := range files {
		p := filepath.Join(base, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tree := filepath.Join(base, "builds/group/project")
	t.Setenv("CI_PROJECT_DIR", tree)
	t.Setenv("AGENT_TEMPDIRECTORY", filepath.Join(base, "agent/_work/_temp"))
	t.Setenv("WORKSPACE_TMP", filepath.Join(base, "jenkins/ws@tmp"))
	res := run(t, Spec{Dir: tree, Command: sh(`cat README ` + filepath.Join(base, "builds/group/project.tmp/DEPLOY_KEY") + ` ` +
		filepath.Join(base, "agent/_work/_temp/signing.p12") + ` ` + filepath.Join(base, "jenkins/ws@tmp/secretFiles/0f1e/kubeconfig") + `; exit 0`)})
	if res.Tier != TierConfined || res.Error != "" || strings.Contains(res.Stdout, "SECRET") || !strings.Contains(res.Stdout, "KEPT") {
		t.Errorf("tier %s error %q refusal %q stdout %q, want the three CI directories hidden and the tree's README read", res.Tier, res.Error, res.Refusal, res.Stdout)
	}
	// The builds directory as the tree: it holds GitLab's .tmp.
	res, err := Run(context.Background(), Spec{Mode: ModeStrict, Timeout: 30 * time.Second, Dir: filepath.Join(base, "builds/group"),
		Command: sh(`cat project.tmp/DEPLOY_KEY; exit 0`)})
	if !errors.Is(err, ErrRefused) || res.Tier != TierRefused || !strings.Contains(err.Error(), "CI_PROJECT_DIR=") || strings.Contains(res.Stdout, "SECRET") {
		t.Errorf("error %v tier %s stdout %q, want a refusal naming CI_PROJECT_DIR", err, res.Tier, res.Stdout)
	}
	// A tree in one of them (a plugin cloned into Azure's temporary
	// directory to be audited): the tree reads as it is, the secure file
	// beside it, in the same directory, not.
	plugin := filepath.Join(base, "agent/_work/_temp/plugin")
	if err := os.Mkdir(plugin, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(plugin, "README"), []byte("KEPT\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	res = run(t, Spec{Dir: plugin, Command: sh(`cat README ../signing.p12 ` + filepath.Join(base, "agent/_work/_temp/signing.p12") + `; exit 0`)})
	if res.Tier != TierConfined || res.Error != "" || strings.Contains(res.Stdout, "SECRET") || !strings.Contains(res.Stdout, "KEPT") {
		t.Errorf("tier %s error %q refusal %q stdout %q, want the secure file beside the tree hidden and the tree's README read", res.Tier, res.Error, res.Refusal, res.Stdout)
	}
	// A relative value, against the working directory, as the caller's
	// tools take it (HOME's and TMPDIR's are too).
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	rel, err := filepath.Rel(wd, filepath.Join(base, "jenkins/ws@tmp"))
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("WORKSPACE_TMP", rel)
	res = run(t, Spec{Dir: tree, Command: sh(`cat README ` + filepath.Join(base, "jenkins/ws@tmp/secretFiles/0f1e/kubeconfig") + `; exit 0`)})
	if res.Tier != TierConfined || res.Error != "" || strings.Contains(res.Stdout, "SECRET") || !strings.Contains(res.Stdout, "KEPT") {
		t.Errorf("WORKSPACE_TMP=%s: tier %s error %q refusal %q stdout %q, want its files hidden", rel, res.Tier, res.Error, res.Refusal, res.Stdout)
	}
}
