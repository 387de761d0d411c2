package sandbox

import (
	"strings"
	"testing"
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
