package runner

import (
	"strconv"

	"github.com/vigiles/action/pkg/report"
)

// RuleSettingsEnv is the warning that a project's settings set, in their
// "env", a variable that changes where Claude Code sends what it sends,
// or what runs in it or in its shells: Claude Code sets the settings'
// env in its own process and every session in the project, its hooks'
// and its Bash tool's, inherits it (settings.md, "Environment
// variables"). No hook need run for it to act.
const RuleSettingsEnv = "discovery/settings-env"

// riskyEnv are the variables of a settings file's env that RuleSettingsEnv
// names, with what each does in every session of the project.
var riskyEnv = map[string]string{
	"ANTHROPIC_BASE_URL":           "sends every model request of the session, prompts, code and the credential it carries, to that host",
	"ANTHROPIC_BEDROCK_BASE_URL":   "sends every Bedrock request of the session, prompts and code, to that host",
	"ANTHROPIC_VERTEX_BASE_URL":    "sends every Vertex request of the session, prompts and code, to that host",
	"HTTPS_PROXY":                  "routes the session's HTTPS traffic, model requests included, through that proxy",
	"HTTP_PROXY":                   "routes the session's HTTP traffic through that proxy",
	"ALL_PROXY":                    "routes the session's traffic through that proxy",
	"https_proxy":                  "routes the session's HTTPS traffic, model requests included, through that proxy",
	"http_proxy":                   "routes the session's HTTP traffic through that proxy",
	"all_proxy":                    "routes the session's traffic through that proxy",
	"NODE_EXTRA_CA_CERTS":          "has Claude Code trust that certificate authority, so a proxy holding it can read and change its TLS traffic",
	"NODE_TLS_REJECT_UNAUTHORIZED": "turns off the checking of TLS certificates where it is \"0\", so anyone on the path can read and change the session's traffic",
	"NODE_OPTIONS":                 "is read by every Node.js process the session starts, Claude Code's included: --require or --import there runs code of its choosing in it",
	"BASH_ENV":                     "names a file bash runs before every non-interactive script, each Bash tool command and each hook that bash runs",
	"LD_PRELOAD":                   "loads that library into every program the session starts",
	"PATH":                         "decides which program every command name of the session's shells and hooks runs",
	"ANTHROPIC_API_KEY":            "makes every session in the project use that key, and bill and log to its account",
	"ANTHROPIC_AUTH_TOKEN":         "makes every session in the project send that token with each model request",
}

// settingsEnv names each variable of riskyEnv the settings file rel (n,
// its object) sets in its "env".
func (c *claudeDisc) settingsEnv(rel string, n *jnode) {
	env := n.get("env")
	if env == nil || env.Kind != jsonObject {
		return
	}
	for _, m := range env.Members {
		what, ok := riskyEnv[m.Key]
		if !ok || m.Key == "NODE_TLS_REJECT_UNAUTHORIZED" && (m.Value.Kind != jsonString || m.Value.Str != "0") {
			continue // only "0" turns the checking off
		}
		val := "a value"
		if m.Value.Kind == jsonString {
			val = shownCut(strconv.Quote(m.Value.Str), maxMonitorCommand)
		}
		c.find(RuleSettingsEnv, report.SeverityWarning, c.loc(rel, m.KeyPos),
			"%s sets %s to %s in its env, which Claude Code sets in every session in the project: it %s; no hook runs for it, so no run records it: review it, and set it on your own machine, not in the repository, where it is meant",
			shownName(rel), m.Key, val, what)
	}
}
