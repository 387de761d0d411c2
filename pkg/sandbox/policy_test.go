package sandbox

import (
	"errors"
	"strings"
	"testing"
)

func TestDecide(t *testing.T) {
	avail := Capability{Confine: Available}
	missing := Capability{Confine: Unsupported, Why: "bubblewrap is not installed", Fix: "install bubblewrap"}
	unknown := Capability{Confine: Inconclusive}
	tests := []struct {
		name     string
		trusted  bool
		mode     Mode
		c        Capability
		want     Tier
		mentions []string
	}{
		{"untrusted auto confines", false, ModeAuto, avail, TierConfined, nil},
		{"untrusted auto refuses without bwrap", false, ModeAuto, missing, TierRefused, []string{"install bubblewrap", "--sandbox off"}},
		{"untrusted auto refuses when inconclusive", false, ModeAuto, unknown, TierRefused, []string{"apparmor_restrict_unprivileged_userns", "--sandbox off"}},
		{"trusted auto runs directly", true, ModeAuto, missing, TierDirect, nil},
		{"trusted auto runs directly even when confinable", true, ModeAuto, avail, TierDirect, nil},
		{"strict confines trusted code", true, ModeStrict, avail, TierConfined, nil},
		{"strict refuses trusted code without bwrap", true, ModeStrict, missing, TierRefused, []string{"install bubblewrap"}},
		{"strict refuses untrusted code without bwrap", false, ModeStrict, missing, TierRefused, nil},
		{"off runs untrusted code directly", false, ModeOff, missing, TierDirect, nil},
		{"off runs untrusted code directly even when confinable", false, ModeOff, avail, TierDirect, nil},
		{"unknown mode refuses", false, Mode("maybe"), avail, TierRefused, []string{"auto, strict or off"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := Decide(tt.trusted, tt.mode, tt.c)
			if d.Tier != tt.want {
				t.Fatalf("Decide(%v, %q, %v) = %s (%s), want %s", tt.trusted, tt.mode, tt.c.Confine, d.Tier, d.Reason, tt.want)
			}
			for _, m := range tt.mentions {
				if !strings.Contains(d.Reason, m) {
					t.Errorf("reason %q does not mention %q", d.Reason, m)
				}
			}
		})
	}
}

func TestParseMode(t *testing.T) {
	for in, want := range map[string]Mode{"": ModeAuto, "auto": ModeAuto, "strict": ModeStrict, "off": ModeOff} {
		if got, err := ParseMode(in); err != nil || got != want {
			t.Errorf("ParseMode(%q) = %q, %v", in, got, err)
		}
	}
	if _, err := ParseMode("on"); err == nil {
		t.Error("ParseMode(on) succeeded")
	}
	// The refusal carries the value and the reason, for a caller that
	// names the value its own way (--sandbox "on": ...), and its text
	// names it as a sandbox mode for the runner's errors.
	_, err := ParseMode("on")
	var me *ModeError
	if !errors.As(err, &me) || me.Value != "on" || me.Reason != "want auto, strict or off" ||
		err.Error() != `sandbox mode "on": want auto, strict or off` {
		t.Errorf("ParseMode(on) = %v (%#v), want a *ModeError saying sandbox mode \"on\": want auto, strict or off", err, me)
	}
}

func TestIsSecretName(t *testing.T) {
	for _, n := range []string{"GITHUB_TOKEN", "ACTIONS_RUNTIME_TOKEN", "ACTIONS_ID_TOKEN_REQUEST_TOKEN", "AWS_SECRET_ACCESS_KEY",
		"NPM_TOKEN", "MY_API_KEY", "db_password", "SOME_SECRET", "github_token",
		"VAULT_TOKEN_1", "X_APIKEY", "PASSWD", "DB_PASSWD_FILE", "SECRETS_JSON", "API_KEY_ID", "AWS_ACCESS_KEY_ID",
		"PGPASSWORD", "MYSQL_PWD", "DATABASE_URL", "SENTRY_DSN", "SLACK_WEBHOOK_URL", "CI_JOB_JWT", "SMTP_PASS", "DOCKER_PASS",
		"NPM_CONFIG__AUTH", "REGISTRY_AUTH", "TF_VAR_db_pass", "MY_DSN", "ROOTPASSWORD"} {
		if !IsSecretName(n) {
			t.Errorf("IsSecretName(%q) = false", n)
		}
	}
	for _, n := range []string{"PATH", "HOME", "LANG", "CI", "KEYBOARD", "TOKENIZER_MODE", "KEY_COUNT", "MONKEY_TOKENIZER", "SORT_KEY_NAME", "MAX_THINKING_TOKENS", "CLAUDE_CODE_MAX_OUTPUT_TOKENS",
		"PWD", "OLDPWD", "PASSTHROUGH_MODE", "GIT_AUTHOR_NAME", "BYPASS_CACHE"} {
		if IsSecretName(n) {
			t.Errorf("IsSecretName(%q) = true", n)
		}
	}
}
