package runner

import (
	"fmt"
	"maps"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestCommandAndAgentWalkMissesNothing: the markdown files Claude Code
// reads below agents and commands directories are all read. Its walks skip
// no dot-directory and no node_modules (a plugin's: a plain readdir that
// takes .md in any case; the project's: ripgrep --hidden --no-ignore
// --follow), so neither does discovery; below the project's .claude/
// directories a link to a directory inside the repository is followed,
// each real directory once (a link back up is no loop), one that leads out
// is a finding; and a directory deeper than vigiles looks is a finding,
// not a silent skip.
func TestCommandAndAgentWalkMissesNothing(t *testing.T) {
	outside := makeTree(t, map[string]string{"c/x.md": stopHook("echo leaked")})
	deep := ".claude/commands/" + strings.Repeat("d/", maxComponentDepth+1) + "deep.md"
	dir := makeTree(t, map[string]string{
		".claude/commands/.team/hidden.md":      stopHook("echo hidden"),
		".claude/commands/node_modules/nm.md":   stopHook("echo nm"),
		".claude/agents/.team/a.md":             stopHook("echo hidden agent"),
		"shared/linked.md":                      stopHook("echo linked dir"),
		deep:                                    stopHook("echo deep"),
		"plugins/p/.claude-plugin/plugin.json":  `{"name": "p"}`,
		"plugins/p/commands/Upper.MD":           stopHook("echo upper"),
		"plugins/p/commands/.x/dot.md":          stopHook("echo plugin dot"),
		"plugins/p/agents/.x/node_modules/a.md": stopHook("echo plugin agent"),
	})
	symlinks(t, dir, map[string]string{
		".claude/commands/shared": "../../shared",
		".claude/commands/loop":   ".",
		".claude/commands/out":    filepath.Join(outside, "c"),
	})
	s := discoverAll(t, dir)
	var got []string
	for _, h := range s.hooks {
		got = append(got, h.ID+" "+h.Event+" "+h.AgentType+" "+h.Command)
	}
	sort.Strings(got)
	want := []string{
		".claude/agents/.team/a.md#hooks.Stop[0].hooks[0] SubagentStop a echo hidden agent",
		".claude/commands/.team/hidden.md#hooks.Stop[0].hooks[0] Stop  echo hidden",
		".claude/commands/node_modules/nm.md#hooks.Stop[0].hooks[0] Stop  echo nm",
		".claude/commands/shared/linked.md#hooks.Stop[0].hooks[0] Stop  echo linked dir",
		"plugins/p/agents/.x/node_modules/a.md#hooks.Stop[0].hooks[0] SubagentStop p:.x:node_modules:a echo plugin agent", // listed, not run
		"plugins/p/commands/.x/dot.md#hooks.Stop[0].hooks[0] Stop  echo plugin dot",
		"plugins/p/commands/Upper.MD#hooks.Stop[0].hooks[0] Stop  echo upper",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("hooks (-want +got):\n%s", diff)
	}
	var finds []string
	for _, f := range s.findings {
		if f.Rule != RuleAgentStop {
			finds = append(finds, findingLine(f))
		}
	}
	sort.Strings(finds)
	wantF := []string{
		"error discovery/malformed .claude/commands/" + strings.Repeat("d/", maxComponentDepth) + "d:0:0",
		"error discovery/outside-work-tree .claude/commands/out:0:0",
		"warning discovery/not-executable plugins/p/agents/.x/node_modules/a.md:3:1", // Claude Code ignores a plugin's agent's hooks
	}
	if diff := cmp.Diff(wantF, finds); diff != "" {
		t.Errorf("findings (-want +got):\n%s", diff)
	}
}

// TestComponentWalkIsBounded: past maxComponentFiles markdown files below
// skills, agents and commands directories, all counted together (skills
// are read first, then agents, then commands), discovery reads no more and
// says so once, at the first file it did not read; the hooks before it are
// read, none after it.
func TestComponentWalkIsBounded(t *testing.T) {
	for _, tc := range []struct {
		name      string
		files     map[string]string
		many      string // a format for maxComponentFiles more files, without hooks
		wantHooks []string
		wantFind  string
	}{{
		name: "commands, after an agent",
		files: map[string]string{
			".claude/commands/a/first.md": stopHook("echo first"),
			".claude/commands/c/late.md":  stopHook("echo late"),
			".claude/agents/z.md":         stopHook("echo agent"),
		},
		many:      ".claude/commands/b/%05d.md",
		wantHooks: []string{".claude/agents/z.md#hooks.Stop[0].hooks[0]", ".claude/commands/a/first.md#hooks.Stop[0].hooks[0]"},
		wantFind:  "error discovery/malformed .claude/commands/b/09998.md:0:0",
	}, {
		name: "skills, before agents and commands",
		files: map[string]string{
			".claude/skills/a/SKILL.md": stopHook("echo first"),
			".claude/agents/z.md":       stopHook("echo agent"),
			".claude/commands/c.md":     stopHook("echo command"),
		},
		many:      ".claude/skills/b%05d/SKILL.md",
		wantHooks: []string{".claude/skills/a/SKILL.md#hooks.Stop[0].hooks[0]"},
		wantFind:  "error discovery/malformed .claude/skills/b09999/SKILL.md:0:0",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			files := maps.Clone(tc.files)
			for i := 0; i < maxComponentFiles; i++ {
				files[fmt.Sprintf(tc.many, i)] = "no frontmatter\n"
			}
			s := discoverAll(t, makeTree(t, files))
			var got []string
			for _, h := range s.hooks {
				got = append(got, h.ID)
			}
			sort.Strings(got)
			if diff := cmp.Diff(tc.wantHooks, got); diff != "" {
				t.Errorf("hooks (-want +got):\n%s", diff)
			}
			var finds []string
			for _, f := range s.findings {
				if f.Rule != RuleAgentStop {
					finds = append(finds, findingLine(f))
				}
			}
			if diff := cmp.Diff([]string{tc.wantFind}, finds); diff != "" {
				t.Errorf("findings (-want +got):\n%s", diff)
			}
		})
	}
}
