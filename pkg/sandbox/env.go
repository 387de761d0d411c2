package sandbox

import "strings"

// secretNames are caller variables that never reach a command unless the
// caller opts in by name (vigiles run --env-secret NAME).
var secretNames = map[string]bool{
	"GITHUB_TOKEN": true, "GH_TOKEN": true, "ACTIONS_RUNTIME_TOKEN": true,
	"ACTIONS_ID_TOKEN_REQUEST_TOKEN": true, "ACTIONS_ID_TOKEN_REQUEST_URL": true,
	"ACTIONS_RUNTIME_URL": true, "ACTIONS_RESULTS_URL": true, "ACTIONS_CACHE_URL": true,
	"AWS_SECRET_ACCESS_KEY": true, "AWS_SESSION_TOKEN": true, "AWS_ACCESS_KEY_ID": true,
	"NPM_TOKEN": true, "NODE_AUTH_TOKEN": true, "ANTHROPIC_API_KEY": true, "OPENAI_API_KEY": true,
	"SSH_AUTH_SOCK": true, "GOOGLE_APPLICATION_CREDENTIALS": true, "AZURE_CLIENT_SECRET": true,
	"DOCKER_AUTH_CONFIG": true, "VAULT_TOKEN": true, "KUBECONFIG": true,
	// A client's password, or an address that carries one (a database's,
	// a DSN, a webhook whose URL is its key).
	"PGPASSWORD": true, "MYSQL_PWD": true, "DATABASE_URL": true, "SENTRY_DSN": true,
	"SLACK_WEBHOOK_URL": true, "DISCORD_WEBHOOK_URL": true, "REDIS_URL": true, "MONGODB_URI": true,
}

// IsSecretName reports whether an environment variable's name marks it as
// a secret: a well-known one, or any *_TOKEN, *_KEY, *_SECRET, *_PASSWORD
// or *_CREDENTIALS, a name that ends in PASSWORD or PASSWD (PGPASSWORD),
// or one with such a word inside it (VAULT_TOKEN_1, API_KEY_ID), or the
// words PASS, PWD (not alone: the working directory), JWT, AUTH, DSN or
// WEBHOOK (SMTP_PASS, MYSQL_PWD, CI_JOB_JWT, NPM_CONFIG__AUTH) (case-
// insensitive). A heuristic over names: a value that carries a secret
// under another name passes only by --env NAME, which the caller writes.
func IsSecretName(name string) bool {
	u := strings.ToUpper(name)
	if secretNames[u] {
		return true
	}
	for _, s := range []string{"_TOKEN", "_KEY", "_SECRET", "_PASSWORD", "_PASSWD", "_CREDENTIALS", "_CREDENTIAL", "_PAT"} {
		if strings.HasSuffix(u, s) {
			return true
		}
	}
	if strings.HasSuffix(u, "PASSWORD") || strings.HasSuffix(u, "PASSWD") {
		return true
	}
	for _, s := range []string{"TOKEN", "SECRET", "PASSWORD", "APIKEY", "API_KEY"} {
		if u == s || strings.HasPrefix(u, s+"_") {
			return true
		}
	}
	// The same words anywhere as a word of the name: VAULT_TOKEN_1,
	// X_APIKEY, DB_PASSWD, SECRETS_JSON.
	words := strings.Split(u, "_")
	for i, w := range words {
		switch w {
		case "TOKEN", "SECRET", "SECRETS", "PASSWORD", "PASSWORDS", "PASSWD", "APIKEY", "CREDENTIAL", "CREDENTIALS",
			"PASS", "JWT", "AUTH", "AUTHTOKEN", "DSN", "WEBHOOK":
			// Not TOKENS: a count (MAX_THINKING_TOKENS).
			return true
		case "PWD":
			// PWD alone is the working directory.
			if len(words) > 1 {
				return true
			}
		case "KEY":
			if i > 0 && (words[i-1] == "API" || words[i-1] == "PRIVATE" || words[i-1] == "ACCESS" || words[i-1] == "SECRET") {
				return true
			}
		}
	}
	return false
}
