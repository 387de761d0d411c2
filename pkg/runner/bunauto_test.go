package runner

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// TestBunAutoInstallFetched: a plugin's hook or server that runs a script
// of its own with bun, where no node_modules lies in the plugin, names the
// packages the script (and the scripts it imports by a relative path)
// imports, which bun installs on the fly each time it starts: pinned where
// the plugin's package.json gives an exact version, else a warning; not
// Node.js's or Bun's own modules. A node_modules in the plugin, bun
// --no-install, a project's hook and a script outside the plugin name
// nothing.
func TestBunAutoInstallFetched(t *testing.T) {
	many := func(n int) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "import p%d from 'p%d';\n", i, i)
		}
		return b.String()
	}
	server := `import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { z } from 'zod';
import fs from "node:fs";
import path from "path";
import { serve } from "bun";
import { helper } from "./lib/helper.js";
export { x } from "zod/v4";
const lazy = await import("yaml");
const cmd = ` + "`git gtr new \"${branch}\" --from \"${fromRef}\"`" + `;
const msg = "copied from 'Somewhere'";
import type { HookInput } from '@anthropic-ai/claude-agent-sdk';
export type { Out } from "out-types";
// const pad = require('left-pad');
/* import x from "commented-out"; */
const site = "https://example.test/x"; import("yaml");
`
	for _, tc := range []struct {
		name  string
		files map[string]string
		want  []string // substrings of the one fetched-code finding; none for no finding
		not   []string // what that finding must not say
	}{
		{
			name: "a server with no node_modules",
			files: map[string]string{
				"plugins/p/.claude-plugin/plugin.json": `{"name": "p", "mcpServers": {"s": {"command": "bun", "args": ["run", "${CLAUDE_PLUGIN_ROOT}/src/server.ts"]}}}`,
				"plugins/p/src/server.ts":              server,
				"plugins/p/src/lib/helper.ts":          "import chalk from 'chalk';\nexport const helper = 1;\n",
				"plugins/p/package.json":               `{"dependencies": {"zod": "3.23.8", "@modelcontextprotocol/sdk": "^1.0.0"}}`,
			},
			want: []string{"warning discovery/fetched-code", "bun plugins/p/src/server.ts (auto-install: no node_modules in the plugin) fetches chalk (no package.json of the plugin names it: bun installs the latest)",
				"fetches @modelcontextprotocol/sdk (the version ^1.0.0 its package.json gives, which a new release moves)", "fetches yaml (", "and 1 more"},
		},
		{
			name: "a hook, every package pinned",
			files: map[string]string{
				"plugins/p/hooks/hooks.json": `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "bun ${CLAUDE_PLUGIN_ROOT}/hooks/stop.ts"}]}]}}`,
				"plugins/p/hooks/stop.ts":    "import { z } from 'zod';\n",
				"plugins/p/package.json":     `{"dependencies": {"zod": "3.23.8"}}`,
			},
			want: []string{"notice discovery/fetched-code", "fetches zod, pinned by the exact version 3.23.8 its package.json gives"},
		},
		{
			name: "node_modules in the plugin",
			files: map[string]string{
				"plugins/p/hooks/hooks.json":          `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "bun ${CLAUDE_PLUGIN_ROOT}/hooks/stop.ts"}]}]}}`,
				"plugins/p/hooks/stop.ts":             "import { z } from 'zod';\n",
				"plugins/p/node_modules/zod/index.js": "",
			},
		},
		{
			name: "bun --no-install",
			files: map[string]string{
				"plugins/p/hooks/hooks.json": `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "bun --no-install ${CLAUDE_PLUGIN_ROOT}/hooks/stop.ts"}]}]}}`,
				"plugins/p/hooks/stop.ts":    "import { z } from 'zod';\n",
			},
		},
		{
			name: "a project's hook",
			files: map[string]string{
				".claude/settings.json": `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "bun .claude/hooks/stop.ts"}]}]}}`,
				".claude/hooks/stop.ts": "import { z } from 'zod';\n",
			},
		},
		{
			// Counted past the three named, those past the bound of
			// one script's imports said as such: no "and 254 more" of
			// three hundred, or "and 253 more" alone.
			name: "at the bound of one script's packages",
			files: map[string]string{
				"plugins/p/hooks/hooks.json": `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "bun ${CLAUDE_PLUGIN_ROOT}/hooks/stop.ts"}]}]}}`,
				"plugins/p/hooks/stop.ts":    many(maxBunImports),
			},
			want: []string{"warning discovery/fetched-code", fmt.Sprintf("; and %d more; what runs", maxBunImports-3)},
		},
		{
			name: "past the bound of one script's packages",
			files: map[string]string{
				"plugins/p/hooks/hooks.json": `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "bun ${CLAUDE_PLUGIN_ROOT}/hooks/stop.ts"}]}]}}`,
				"plugins/p/hooks/stop.ts":    many(300),
			},
			want: []string{"warning discovery/fetched-code", fmt.Sprintf("; and %d more, and more packages than vigiles reads one by one; what runs", maxBunImports-3)},
		},
		{
			// Bun tries .ts before .js, as its module resolution page
			// says: the audit reads lib.ts, not lib.js, which the
			// alphabet would put first.
			name: "an extensionless import with a .js and a .ts beside it",
			files: map[string]string{
				"plugins/p/hooks/hooks.json": `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "bun ${CLAUDE_PLUGIN_ROOT}/hooks/stop.ts"}]}]}}`,
				"plugins/p/hooks/stop.ts":    "import { lib } from './lib';\n",
				"plugins/p/hooks/lib.js":     "import pad from 'left-pad';\n",
				"plugins/p/hooks/lib.ts":     "import chalk from 'chalk';\n",
			},
			want: []string{"warning discovery/fetched-code", "fetches chalk ("},
			not:  []string{"left-pad"},
		},
		{
			// data.json comes before the directory's index: Bun loads
			// the JSON, which imports nothing.
			name: "an extensionless import of a JSON file beside a directory",
			files: map[string]string{
				"plugins/p/hooks/hooks.json":    `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "bun ${CLAUDE_PLUGIN_ROOT}/hooks/stop.ts"}]}]}}`,
				"plugins/p/hooks/stop.ts":       "import data from './data';\nimport { z } from 'zod';\n",
				"plugins/p/hooks/data.json":     "{}",
				"plugins/p/hooks/data/index.ts": "import chalk from 'chalk';\n",
			},
			want: []string{"warning discovery/fetched-code", "fetches zod ("},
			not:  []string{"chalk"},
		},
		{
			name: "only Node.js's and Bun's own modules",
			files: map[string]string{
				"plugins/p/hooks/hooks.json": `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "bun run ${CLAUDE_PLUGIN_ROOT}/hooks/stop.ts"}]}]}}`,
				"plugins/p/hooks/stop.ts":    "import fs from 'node:fs';\nimport { $ } from 'bun';\nconst os = require('os');\n",
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep, err := Audit(context.Background(), Options{Dir: makeTree(t, tc.files), Executor: fakeHooks()})
			if err != nil {
				t.Fatal(err)
			}
			wantOneFetched(t, rep, tc.want)
			for _, n := range tc.not {
				for _, l := range fetchedLines(rep) {
					if strings.Contains(l, n) {
						t.Errorf("finding %q\nsays %q", l, n)
					}
				}
			}
		})
	}
}
