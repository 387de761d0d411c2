package runner

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vigiles/action/pkg/report"
)

// fetchLines is each of fs as "runner spec pinned|unpinned".
func fetchLines(fs []fetched) []string {
	var out []string
	for _, f := range fs {
		state := "unpinned"
		if f.pinned {
			state = "pinned"
		}
		out = append(out, fmt.Sprintf("%s %s %s", f.runner, f.spec, state))
	}
	return out
}

// TestFetchesInShell: each package runner's pinned and unpinned forms, at
// every command position of a shell line (after ;, &&, ||, |, a newline,
// exec, variable assignments, env, timeout, inside $(…) and sh -c), the
// options that take a value read as such, and commands that fetch
// nothing named as fetching nothing.
func TestFetchesInShell(t *testing.T) {
	const commit = "0123456789abcdef0123456789abcdef01234567"
	for _, tc := range []struct {
		line string
		want []string
	}{
		// npx and its options.
		{"npx -y @scope/server", []string{"npx @scope/server unpinned"}},
		{"npx -y @scope/server@1.2.3", []string{"npx @scope/server@1.2.3 pinned"}},
		{"npx pkg@latest --port 3", []string{"npx pkg@latest unpinned"}},
		{"npx pkg@^1.2.0", []string{"npx pkg@^1.2.0 unpinned"}},
		{"npx pkg@1.2.3", []string{"npx pkg@1.2.3 pinned"}},
		{"npx pkg@1.2.3-rc.1", []string{"npx pkg@1.2.3-rc.1 pinned"}},
		{"npx pkg@1.2", []string{"npx pkg@1.2 unpinned"}},
		{"npx -p pkg@1.2.3 cmd --flag", []string{"npx pkg@1.2.3 pinned"}},
		{"npx -p pkg cmd", []string{"npx pkg unpinned"}},
		{"npx --package=a@1.0.0 --package b@2 cmd", []string{"npx a@1.0.0 pinned", "npx b@2 unpinned"}},
		{"npx --registry https://registry.example.org pkg@1.0.0", []string{"npx pkg@1.0.0 pinned"}},
		{"npx --frobnicate pkg@1.0.0", []string{"npx pkg@1.0.0 unpinned"}},
		{"npx -y --ignore-scripts ruvector@0.2.34 mcp start", []string{"npx ruvector@0.2.34 pinned"}},
		{"npx user/repo", []string{"npx user/repo unpinned"}},
		{"npx github:user/repo#0123456789abcdef0123456789abcdef01234567", []string{"npx github:user/repo#0123456789abcdef0123456789abcdef01234567 pinned"}},
		{"npx https://example.org/pkg.tgz", []string{"npx https://example.org/pkg.tgz unpinned"}},
		{"npx gitmoji-cli@1.0.0", []string{"npx gitmoji-cli@1.0.0 pinned"}},
		{"npx ./local-dir", nil},
		{"npx --no-install prettier --write x", nil},
		{"npx --no -- commitlint --edit", nil},
		{"npm exec --yes=false -- tsc", nil},
		{"npx --yes=true pkg", []string{"npx pkg unpinned"}},
		{"npx pkg --no-install", []string{"npx pkg unpinned"}},
		{"npm exec -- pkg@1.0.0 arg", []string{"npm exec pkg@1.0.0 pinned"}},
		{"npm x pkg", []string{"npm exec pkg unpinned"}},
		{"bunx pkg@1.0.0", []string{"bunx pkg@1.0.0 pinned"}},
		{"bun x pkg", []string{"bunx pkg unpinned"}},
		{"pnpm dlx pkg", []string{"pnpm dlx pkg unpinned"}},
		{"pnpx pkg@2.0.0", []string{"pnpm dlx pkg@2.0.0 pinned"}},
		{"yarn dlx -p pkg@3.0.0 cmd", []string{"yarn dlx pkg@3.0.0 pinned"}},
		// npm init (create, innit) and yarn, pnpm and bun create run
		// the initializer's create- package.
		{"npm init foo", []string{"npm init create-foo unpinned"}},
		{"npm create foo@1.2.3", []string{"npm create create-foo@1.2.3 pinned"}},
		{"npm innit vite@latest my-app -- --template react", []string{"npm innit create-vite@latest unpinned"}},
		{"npm init @scope", []string{"npm init @scope/create unpinned"}},
		{"npm init @scope@1.0.0", []string{"npm init @scope/create@1.0.0 pinned"}},
		{"npm init @scope/foo", []string{"npm init @scope/create-foo unpinned"}},
		{"npm create @scope/foo@^2", []string{"npm create @scope/create-foo@^2 unpinned"}},
		{"npm init -y foo", []string{"npm init create-foo unpinned"}},
		{"npm --yes create -w packages/a foo@1.0.0", []string{"npm create create-foo@1.0.0 pinned"}},
		{"npm --scope @me init foo", []string{"npm init create-foo unpinned"}},
		{"npm init --frobnicate foo@1.0.0", []string{"npm init create-foo@1.0.0 unpinned"}},
		{"npm init user/repo", []string{"npm init user/create-repo unpinned"}},
		{"npm init github:user/repo#" + commit, []string{"npm init github:user/create-repo#" + commit + " pinned"}},
		{"npm init git+https://github.com/user/repo.git", []string{"npm init git+https://github.com/user/create-repo.git unpinned"}},
		{"yarn create foo", []string{"yarn create create-foo unpinned"}},
		{"yarn --silent create @scope/foo@1.0.0 app", []string{"yarn create @scope/create-foo@1.0.0 pinned"}},
		{"pnpm create foo", []string{"pnpm create create-foo unpinned"}},
		{"pnpm --dir x create create-vite@1.0.0", []string{"pnpm create create-vite@1.0.0 pinned"}},
		{"pnpm create @scope", []string{"pnpm create @scope/create unpinned"}},
		{"bun create foo", []string{"bun create create-foo unpinned"}},
		{"bun create foo@1.0.0 my-app", []string{"bun create create-foo@1.0.0 pinned"}},
		{"npm init foo@npm:bar@1.0.0", []string{"npm init create-foo@npm:bar@1.0.0 pinned"}},
		{"npm init foo@npm:@s/bar", []string{"npm init create-foo@npm:@s/bar unpinned"}},
		// npm init with no initializer writes a package.json; one npm
		// refuses (a path, a URL off the hosted ones, a tarball) runs
		// nothing; bun create's repository or file is a template.
		{"npm init", nil},
		{"npm init -y", nil},
		{"npm init --yes --scope @me", nil},
		{"npm init -w packages/a", nil},
		{"npm init ./local", nil},
		{"npm init https://example.org/x.tgz", nil},
		{"npm init foo.tgz", nil},
		{"npm init foo@file:../x", nil},
		{"npm run create foo", nil},
		{"npm install create-foo", []string{"npm install create-foo unpinned"}},
		{"yarn run create foo", nil},
		{"pnpm run create", nil},
		{"bun create user/repo", nil},
		{"bun create github.com/user/repo", nil},
		{"bun create ./MyComponent.tsx", nil},
		{"bun create @scope/foo", nil},
		{"bun run create foo", nil},
		// uvx and pipx.
		// uv's global options before its command.
		{"uv -q tool run pkg==1.0.0", []string{"uv tool run pkg==1.0.0 pinned"}},
		{"uv --directory sub run --with rich x.py", []string{"uv run rich unpinned"}},
		{"uv --frobnicate tool run pkg==1.0.0", []string{"uv tool run pkg==1.0.0 unpinned"}},
		{"uv -q pip install x", []string{"uv pip install x unpinned"}},
		{"uvx mcp-server-foo", []string{"uvx mcp-server-foo unpinned"}},
		{"uvx mcp-server-foo==1.2.3", []string{"uvx mcp-server-foo==1.2.3 pinned"}},
		{"uvx mcp-server-foo@1.2.3", []string{"uvx mcp-server-foo@1.2.3 pinned"}},
		{"uvx mcp-server-foo@latest", []string{"uvx mcp-server-foo@latest unpinned"}},
		{"uvx 'foo>=1.2'", []string{"uvx foo>=1.2 unpinned"}},
		{"uvx 'foo==1.*'", []string{"uvx foo==1.* unpinned"}},
		{"uvx --from 'pkg==1.2.3' cmd", []string{"uvx pkg==1.2.3 pinned"}},
		{"uvx --from pkg cmd", []string{"uvx pkg unpinned"}},
		{"uvx --python 3.12 --from=pkg==1.0 cmd", []string{"uvx pkg==1.0 pinned"}},
		{"uvx --with extra pkg==1.0", []string{"uvx pkg==1.0 pinned", "uvx extra unpinned"}},
		{"uvx --from git+https://example.org/r.git cmd", []string{"uvx git+https://example.org/r.git unpinned"}},
		{"uvx --from git+https://example.org/o/r@" + commit + " serena", []string{"uvx git+https://example.org/o/r@" + commit + " pinned"}},
		{"uvx --from git+https://example.org/o/r@v1.0#egg=serena serena", []string{"uvx git+https://example.org/o/r@v1.0#egg=serena unpinned"}},
		{"uvx --from git+https://example.org/o/r@" + commit[:12] + " serena", []string{"uvx git+https://example.org/o/r@" + commit[:12] + " unpinned"}},
		{"uvx --from 'serena @ git+https://example.org/o/r@" + commit + "' serena", []string{"uvx serena @ git+https://example.org/o/r@" + commit + " pinned"}},
		{"uvx --from 'serena @ git+https://example.org/o/r' serena", []string{"uvx serena @ git+https://example.org/o/r unpinned"}},
		{"pipx run --spec git+ssh://git@example.org/o/r.git@" + commit + " app", []string{"pipx run git+ssh://git@example.org/o/r.git@" + commit + " pinned"}},
		{"pipx run --spec git+ssh://git@example.org/o/r.git app", []string{"pipx run git+ssh://git@example.org/o/r.git unpinned"}},
		{"uvx --from https://example.org/pkg-1.0.tar.gz cmd", []string{"uvx https://example.org/pkg-1.0.tar.gz unpinned"}},
		{"uv tool run pkg==2.0", []string{"uv tool run pkg==2.0 pinned"}},
		{"pipx run pkg", []string{"pipx run pkg unpinned"}},
		// pip install, each time the hook runs.
		{"pip install -r ${CLAUDE_PLUGIN_ROOT}/requirements.txt", []string{"pip install -r ${CLAUDE_PLUGIN_ROOT}/requirements.txt unpinned"}},
		{"pip3 install --require-hashes -r req.txt -q", []string{"pip install -r req.txt pinned"}},
		{"python3 -m pip install --user requests==2.32.3 rich", []string{"pip install requests==2.32.3 pinned", "pip install rich unpinned"}},
		{"pip install -q --upgrade pip", []string{"pip install pip unpinned"}},
		{"pip install -e . --no-deps", nil},
		{"pip install ./dist/tool-1.0-py3-none-any.whl", nil},
		{"pip install --no-index --find-links ./wheels tool", nil},
		{"pip install --frobnicate pkg==1.0", []string{"pip install pkg==1.0 unpinned"}},
		{"uv pip install --system 'httpx>=0.27'", []string{"uv pip install httpx>=0.27 unpinned"}},
		{"pip list", nil},
		// npm install and its peers of named packages.
		{"npm install -g @scope/cli", []string{"npm install @scope/cli unpinned"}},
		{"npm i --no-save left-pad@1.3.0 chalk@^5", []string{"npm install left-pad@1.3.0 pinned", "npm install chalk@^5 unpinned"}},
		{"npm --silent install ./vendor/pkg", nil},
		{"npm install", nil},
		{"npm ci", nil},
		{"pnpm add -D zod@3.23.8", []string{"pnpm add zod@3.23.8 pinned"}},
		{"yarn global add typescript", []string{"yarn add typescript unpinned"}},
		{"bun add --frobnicate x@1.0.0", []string{"bun add x@1.0.0 unpinned"}},
		{"bun install", nil},
		{"uvx -w extra pkg==1.0", []string{"uvx pkg==1.0 pinned", "uvx extra unpinned"}},
		// uv run: its --with (-w) packages, as uvx's, and a script it
		// is given as a URL; the command is the tree's.
		{"uv run --with mcp-server-foo python -m foo", []string{"uv run mcp-server-foo unpinned"}},
		{"uv run --with 'a==1.0,b' script.py", []string{"uv run a==1.0 pinned", "uv run b unpinned"}},
		{"uv run -w pkg==1.2.3 tool", []string{"uv run pkg==1.2.3 pinned"}},
		{"uv run -wpkg==1.2.3 tool", []string{"uv run pkg==1.2.3 pinned"}},
		{"uv run --no-project --with fastmcp fastmcp run server.py", []string{"uv run fastmcp unpinned"}},
		{"uv run --extra dev --group g --package p -m --with=pkg==2.0 --with-editable ./lib python x.py", []string{"uv run pkg==2.0 pinned"}},
		{"uv run https://example.org/x.py", []string{"uv run https://example.org/x.py unpinned"}},
		{"uv run --with rich -- https://example.org/x.py --flag", []string{"uv run https://example.org/x.py unpinned", "uv run rich unpinned"}},
		{"uv run --frobnicate --with pkg==1.0 x", []string{"uv run pkg==1.0 unpinned"}},
		{"uv run --with-requirements requirements.txt x.py", nil},
		{"uv run --with-editable ./lib x.py", nil},
		{"uv run --python 3.12 script.py", nil},
		{"uv run pytest --with x", nil},
		{"uv run python https://example.org/x.py", nil},
		{"uv run --directory /srv server.py", nil},
		{"uv run", nil},
		{"pipx run --spec pkg==1.2.3 cmd", []string{"pipx run pkg==1.2.3 pinned"}},
		// deno and go.
		{"deno run -A npm:pkg", []string{"deno run npm:pkg unpinned"}},
		{"deno run --allow-net npm:pkg@1.2.3", []string{"deno run npm:pkg@1.2.3 pinned"}},
		{"deno run jsr:@std/http@1.0.0/file-server", []string{"deno run jsr:@std/http@1.0.0/file-server pinned"}},
		{"deno run jsr:@std/http", []string{"deno run jsr:@std/http unpinned"}},
		{"deno run -c deno.json https://example.org/x.ts", []string{"deno run https://example.org/x.ts unpinned"}},
		{"deno run ./x.ts", nil},
		{"deno run x", nil},
		// deno x (and its alias dx) runs a package: npm:, jsr:, a URL,
		// or a bare name, which is npm's; -p names the package apart
		// from the program.
		{"deno x npm:create-vite my-app", []string{"deno x npm:create-vite unpinned"}},
		{"deno x -A npm:cowsay@1.5.0 hi", []string{"deno x npm:cowsay@1.5.0 pinned"}},
		{"deno x --allow-read --allow-net npm:serve@14.2.0 .", []string{"deno x npm:serve@14.2.0 pinned"}},
		{"deno x -c deno.json npm:serve", []string{"deno x npm:serve unpinned"}},
		{"deno x jsr:@std/http@1.0.0/file-server", []string{"deno x jsr:@std/http@1.0.0/file-server pinned"}},
		{"deno x jsr:@std/http/file-server -p 8080", []string{"deno x jsr:@std/http/file-server unpinned"}},
		{"deno x cowsay", []string{"deno x cowsay unpinned"}},
		{"deno x cowsay@1.5.0/cowthink", []string{"deno x cowsay@1.5.0/cowthink pinned"}},
		{"deno x @scope/tool@2.0.0", []string{"deno x @scope/tool@2.0.0 pinned"}},
		{"deno x https://example.org/x.ts", []string{"deno x https://example.org/x.ts unpinned"}},
		{"deno x -p typescript@5.4.2 tsc", []string{"deno x typescript@5.4.2 pinned"}},
		{"deno x --package=typescript tsc -v", []string{"deno x typescript unpinned"}},
		{"deno x -y -- cowsay@latest", []string{"deno x cowsay@latest unpinned"}},
		{"dx npm:serve .", []string{"dx npm:serve unpinned"}},
		{"dx cowsay@1.5.0", []string{"dx cowsay@1.5.0 pinned"}},
		{"deno x ./tool.ts", nil},
		{"deno x main.ts", nil},
		{"deno x file:///x/tool.ts", nil},
		{"deno x --install-alias", nil},
		{"deno x --install-alias=denox", nil},
		{"deno x", nil},
		{"deno task x", nil},
		{"echo dx pkg", nil},
		{"./dx pkg", nil},
		{"go run example.org/x/cmd@latest", []string{"go run example.org/x/cmd@latest unpinned"}},
		{"go run -tags net example.org/x/cmd@v1.2.3 -v", []string{"go run example.org/x/cmd@v1.2.3 pinned"}},
		{"go run example.org/x/cmd@main", []string{"go run example.org/x/cmd@main unpinned"}},
		{"go run ./cmd/x", nil},
		// dnx (dotnet tool exec, dotnet dnx) runs a .NET tool package:
		// pinned by an exact version after its @ or of --version, which
		// may follow the package; what follows -- is the tool's.
		{"dnx Some.Tool", []string{"dnx Some.Tool unpinned"}},
		{"dnx Some.Tool@1.2.3", []string{"dnx Some.Tool@1.2.3 pinned"}},
		{"dnx Some.Tool --version 1.2.3", []string{"dnx Some.Tool pinned"}},
		{"dnx --yes Some.Tool@1.2.3-beta.1 -- --port 80", []string{"dnx Some.Tool@1.2.3-beta.1 pinned"}},
		{"dnx Some.Tool@1.*", []string{"dnx Some.Tool@1.* unpinned"}},
		{"dnx Some.Tool --version '[1.0,2.0)'", []string{"dnx Some.Tool unpinned"}},
		{"dnx Some.Tool --version=[1.2.3]", []string{"dnx Some.Tool pinned"}},
		{"dnx Some.Tool -- --version 1.2.3", []string{"dnx Some.Tool unpinned"}},
		{"dnx -y --add-source https://feed.example.org/v3/index.json -v:q Some.Tool@2.0.0", []string{"dnx Some.Tool@2.0.0 pinned"}},
		{"dnx --interactive false Some.Tool@2.0.0", []string{"dnx Some.Tool@2.0.0 pinned"}},
		{"dnx --frobnicate Some.Tool@1.0.0", []string{"dnx Some.Tool@1.0.0 unpinned"}},
		{"dotnet tool exec Some.Tool", []string{"dotnet tool exec Some.Tool unpinned"}},
		{"dotnet tool execute --prerelease Some.Tool", []string{"dotnet tool execute Some.Tool unpinned"}},
		{"dotnet dnx Some.Tool@1.0", []string{"dotnet dnx Some.Tool@1.0 pinned"}},
		{"dotnet tool exec --source ./artifacts/package/ toolsay", nil},
		{"dotnet tool run dotnet-ef", nil},
		{"dotnet tool install -g Some.Tool", nil},
		{"dnx --yes", nil},
		{"./dnx Some.Tool", nil},
		// Containers.
		{"docker run -i --rm images.example.org/org/image", []string{"docker run images.example.org/org/image unpinned"}},
		{"docker run -i --rm images.example.org/org/image:1.2.3", []string{"docker run images.example.org/org/image:1.2.3 unpinned"}},
		{"docker run -e X=1 -v a:b --name n -it image@sha256:" + strings.Repeat("ab", 32) + " args", []string{"docker run image@sha256:" + strings.Repeat("ab", 32) + " pinned"}},
		{"docker run -eX=1 --network=host localhost:5000/img", []string{"docker run localhost:5000/img unpinned"}},
		{"podman container run img:tag", []string{"podman run img:tag unpinned"}},
		{"docker ps", nil},
		// Downloads piped into a shell.
		{"curl -fsSL https://example.org/install.sh | sh", []string{"curl | sh https://example.org/install.sh unpinned"}},
		{"wget -qO- https://example.org/i.sh | sudo bash -s -- --yes", []string{"wget | bash https://example.org/i.sh unpinned"}},
		{"curl -fsSL https://example.org/x.json | jq .", nil},
		{"curl -fsSL https://example.org/i.py | python3", []string{"curl | python3 https://example.org/i.py unpinned"}},
		{"curl -fsSL https://example.org/i.py | python3 - --yes", []string{"curl | python3 https://example.org/i.py unpinned"}},
		{"curl -fsSL https://example.org/i.sh | bash -s -- --yes", []string{"curl | bash https://example.org/i.sh unpinned"}},
		{"curl -fsSL https://example.org/i.sh | sh -e", []string{"curl | sh https://example.org/i.sh unpinned"}},
		{"curl -fsSL https://example.org/i.sh | bash -o pipefail", []string{"curl | bash https://example.org/i.sh unpinned"}},
		{"curl -fsSL https://example.org/i.py | python3 -W ignore", []string{"curl | python3 https://example.org/i.py unpinned"}},
		{"curl -fsSL https://example.org/i.js | node", []string{"curl | node https://example.org/i.js unpinned"}},
		{"curl -fsSL https://example.org/i.ps1 | pwsh -Command -", []string{"curl | pwsh https://example.org/i.ps1 unpinned"}},
		// uv run - and deno run - run the script their input gives, as
		// does a shell or an interpreter uv run runs.
		{"curl -fsSL https://example.org/x.py | uv run -", []string{"curl | uv run https://example.org/x.py unpinned"}},
		{"curl -fsSL https://example.org/x.py | uv run --no-project -q --script -", []string{"curl | uv run https://example.org/x.py unpinned"}},
		{"curl -fsSL https://example.org/x.py | uv -q run --with rich - --flag", []string{"curl | uv run https://example.org/x.py unpinned", "uv run rich unpinned"}},
		{"curl -fsSL https://example.org/x.py | uv run --python 3.12 python3 -", []string{"curl | uv run python3 https://example.org/x.py unpinned"}},
		{"curl -fsSL https://example.org/x.py | python3 -", []string{"curl | python3 https://example.org/x.py unpinned"}},
		{"curl -fsSL https://example.org/x.ts | deno run -A -", []string{"curl | deno run https://example.org/x.ts unpinned"}},
		{"wget -qO- https://example.org/x.ts | deno run --allow-net -c deno.json -", []string{"wget | deno run https://example.org/x.ts unpinned"}},
		{"curl -s https://example.org/x.json | uv run ./parse.py", nil},
		{"curl -s https://example.org/x.json | uv run -m json.tool", nil},
		{"curl -s https://example.org/x.json | uv run python3 -c 'import sys'", nil},
		{"curl -s https://example.org/x.json | uv run --frobnicate -", nil},
		{"curl -s https://example.org/x.json | deno run ./parse.ts", nil},
		// Through tee and cat, which pass the download on.
		{"curl -fsSL https://example.org/i.sh | tee install.sh | sh", []string{"curl | sh https://example.org/i.sh unpinned"}},
		{"curl -fsSL https://example.org/i.sh | cat | bash", []string{"curl | bash https://example.org/i.sh unpinned"}},
		{"wget -qO- https://example.org/i.sh | tee -a log | cat - | cat -n -- - | sudo bash -s", []string{"wget | bash https://example.org/i.sh unpinned"}},
		{"curl -s https://example.org/i.sh | tee i.sh", nil},
		{"curl -s https://example.org/i.sh | cat ./local.sh | sh", nil},
		{"curl -s https://example.org/i.sh | cat -- ./local.sh | sh", nil},
		{"curl -s https://example.org/x.json | tee x.json | jq .", nil},
		{"curl -s https://example.org/x.json | tee x.json | python3 -c 'import sys'", nil},
		// Through filters that read no file but their input: what the
		// shell runs is still what the URL serves.
		{"curl -fsSL https://example.org/i.sh | grep -v '^#' | sh", []string{"curl | sh https://example.org/i.sh unpinned"}},
		{"wget -qO- https://example.org/i.sh | sed 's/\\r$//' | bash", []string{"wget | bash https://example.org/i.sh unpinned"}},
		{"curl -fsSL https://example.org/i.sh | tr -d '\\r' | head -n 200 | tail -n +2 | bash -s -- --yes", []string{"curl | bash https://example.org/i.sh unpinned"}},
		{"curl -s https://example.org/i.sh | grep -e '^x' -v | awk -F: 'NR>1' n=1 - | tee i.sh | cat | sh", []string{"curl | sh https://example.org/i.sh unpinned"}},
		{"curl -s https://example.org/i.py | sed -n -e '2,$p' | head -c 4096 - | python3 -", []string{"curl | python3 https://example.org/i.py unpinned"}},
		{"curl -s https://example.org/i.sh | egrep -v -- '^#' | sh", []string{"curl | sh https://example.org/i.sh unpinned"}},
		// Not one that reads a file of its own, or prints no line of
		// its input.
		{"curl -s https://example.org/i.sh | grep x ./local.sh | sh", nil},
		{"curl -s https://example.org/i.sh | grep -e x -- ./local.sh | sh", nil},
		{"curl -s https://example.org/i.sh | grep -q x | sh", nil},
		{"curl -s https://example.org/i.sh | grep -vc x | sh", nil},
		{"curl -s https://example.org/i.sh | grep --files-with-matches x | sh", nil},
		{"curl -s https://example.org/i.sh | grep -r x | sh", nil},
		{"curl -s https://example.org/i.sh | sed -i 's/a/b/' | sh", nil},
		{"curl -s https://example.org/i.sh | sed -f edit.sed local.sh | sh", nil},
		{"curl -s https://example.org/i.sh | awk -f prog.awk data.txt | sh", nil},
		{"curl -s https://example.org/i.sh | head -n 5 local.sh | sh", nil},
		{"curl -s https://example.org/v | grep -o 'v[0-9]*' | python3 -c 'import sys'", nil},
		// A download saved to a file that a later command of the line
		// runs, given to a shell or an interpreter, or as the program.
		{"curl -o install.sh https://example.org/install.sh && sh install.sh", []string{"curl && sh https://example.org/install.sh unpinned"}},
		{"curl -fsSLo i.sh https://example.org/i.sh; bash i.sh --yes", []string{"curl && bash https://example.org/i.sh unpinned"}},
		{"curl -fsSLoi.sh https://example.org/i.sh && bash -e ./i.sh", []string{"curl && bash https://example.org/i.sh unpinned"}},
		{"curl --connect-timeout 5 -H 'Accept: x' https://example.org/i.sh --output i.sh\nsh i.sh", []string{"curl && sh https://example.org/i.sh unpinned"}},
		{"wget -O /tmp/i.sh https://example.org/i.sh && sh /tmp/i.sh", []string{"wget && sh https://example.org/i.sh unpinned"}},
		{"wget -qO i.sh https://example.org/i.sh && sh i.sh", []string{"wget && sh https://example.org/i.sh unpinned"}},
		{"wget --tries 3 --output-document=i.sh https://example.org/i.sh && sh i.sh", []string{"wget && sh https://example.org/i.sh unpinned"}},
		{"curl https://example.org/tool -o tool && chmod +x tool && ./tool run", []string{"curl && ./tool https://example.org/tool unpinned"}},
		{"curl -o /tmp/tool https://example.org/tool && sudo /tmp/tool", []string{"curl && /tmp/tool https://example.org/tool unpinned"}},
		{"curl -O https://example.org/get/install.sh && sh install.sh", []string{"curl && sh https://example.org/get/install.sh unpinned"}},
		{"curl -fsSLO https://example.org/get/install.sh?v=1 && sh install.sh", []string{"curl && sh https://example.org/get/install.sh?v=1 unpinned"}},
		{"curl --output-dir /tmp -O https://example.org/x.sh && sh /tmp/x.sh", []string{"curl && sh https://example.org/x.sh unpinned"}},
		{"wget https://example.org/install.sh && bash install.sh", []string{"wget && bash https://example.org/install.sh unpinned"}},
		{"wget -nv -P /tmp https://example.org/install.sh && bash /tmp/install.sh", []string{"wget && bash https://example.org/install.sh unpinned"}},
		{"curl -sS -o get-pip.py https://example.org/get-pip.py && python3 get-pip.py --user", []string{"curl && python3 https://example.org/get-pip.py unpinned"}},
		{"curl -o a.sh https://example.org/a.sh -o b.sh https://example.org/b.sh && sh b.sh", []string{"curl && sh https://example.org/b.sh unpinned"}},
		{"curl --remote-name-all https://example.org/a.sh https://example.org/b.sh; . ./a.sh", []string{"curl && . https://example.org/a.sh unpinned"}},
		{"curl -o env.sh https://example.org/env.sh && source env.sh", []string{"curl && source https://example.org/env.sh unpinned"}},
		{"curl -o x.sh example.org/x.sh && sh x.sh", []string{"curl && sh example.org/x.sh unpinned"}},
		{"sh -c 'curl -o f https://example.org/f && sh f'", []string{"curl && sh https://example.org/f unpinned"}},
		{"curl -o f.ps1 https://example.org/f.ps1; pwsh -NoProfile -File f.ps1", []string{"curl && pwsh https://example.org/f.ps1 unpinned"}},
		// A download written to standard output, redirected to a file.
		{"curl -fsSL https://example.org/i.sh > i.sh && sh i.sh", []string{"curl && sh https://example.org/i.sh unpinned"}},
		{"curl -s https://example.org/i.sh 1>/tmp/i.sh; bash /tmp/i.sh", []string{"curl && bash https://example.org/i.sh unpinned"}},
		{"curl -o - https://example.org/i.sh >>i.sh && . ./i.sh", []string{"curl && . https://example.org/i.sh unpinned"}},
		{"wget -qO- https://example.org/i.sh > i.sh && sh i.sh", []string{"wget && sh https://example.org/i.sh unpinned"}},
		{"curl https://example.org/i.sh 2>err.log >i.sh && sh i.sh", []string{"curl && sh https://example.org/i.sh unpinned"}},
		// Run inside a shell's -c script, given to a shell or an
		// interpreter as its input, or saved as it is piped through tee
		// or a filter whose output goes to the file.
		{"curl -o f https://example.org/f && bash -c ./f", []string{"curl && ./f https://example.org/f unpinned"}},
		{"curl -o i.sh https://example.org/i.sh && sh -c 'sh i.sh --yes'", []string{"curl && sh https://example.org/i.sh unpinned"}},
		{"curl -fsSLo tool https://example.org/tool && bash -lc 'chmod +x tool && ./tool'", []string{"curl && ./tool https://example.org/tool unpinned"}},
		{"curl -o i.sh https://example.org/i.sh && sh < i.sh", []string{"curl && sh https://example.org/i.sh unpinned"}},
		{"wget -qO i.py https://example.org/i.py; python3 - 0<i.py", []string{"wget && python3 https://example.org/i.py unpinned"}},
		{"curl -fsSL https://example.org/i.sh | tee i.sh > /dev/null && sh i.sh", []string{"curl && sh https://example.org/i.sh unpinned"}},
		{"curl -fsSL https://example.org/i.sh | sed 1d > i.sh; bash i.sh", []string{"curl && bash https://example.org/i.sh unpinned"}},
		// sh -c f looks f up on the PATH: it does not run the f saved
		// in the working directory.
		{"curl -o f https://example.org/f && sh -c 'f'", nil},
		{"curl -o i.sh https://example.org/i.sh && sh < other.sh", nil},
		{"curl -o i.sh https://example.org/i.sh && sh x.sh < i.sh", nil},
		{"curl -o i.sh https://example.org/i.sh && sh 3< i.sh", nil},
		{"curl -o i.sh https://example.org/i.sh && sh << i.sh", nil},
		{"curl -fsSL https://example.org/x.json | tee x.json > /dev/null && jq . x.json", nil},
		{"curl -fsSL https://example.org/i.sh | grep -c x > n.sh && sh n.sh", nil},
		{"curl -o i.sh https://example.org/i.sh | tee copy.sh && sh copy.sh", nil},
		{"wget https://example.org/i.sh | tee copy.sh && sh copy.sh", nil},
		// A download only saved, or a file run that it did not save.
		{"curl https://example.org/i.sh 2>i.sh && sh i.sh", nil},
		{"curl https://example.org/i.sh >&2 && sh 2", nil},
		{"curl -o out.sh https://example.org/i.sh > i.sh && sh i.sh", nil},
		{"curl https://example.org/data.json > data.json && jq . data.json", nil},
		{"wget https://example.org/get > i.sh && sh i.sh", nil},
		{"curl -o data.json https://example.org/data.json", nil},
		{"curl -o data.json https://example.org/data.json && jq . data.json", nil},
		{"curl -o i.sh https://example.org/i.sh && cat i.sh", nil},
		{"sh i.sh && curl -o i.sh https://example.org/i.sh", nil},
		{"curl -o i.sh https://example.org/i.sh && sh other.sh", nil},
		{"curl -o sub/i.sh https://example.org/i.sh && sh i.sh", nil},
		{"curl -O https://example.org/get/install.sh && sh get.sh", nil},
		{"curl -o - https://example.org/i.sh && sh -", nil},
		{"wget -O- https://example.org/i.sh && sh i.sh", nil},
		{"curl -o i.sh https://example.org/i.sh && i.sh", nil},
		{"curl -o i.py https://example.org/i.py && python3 -m i.py", nil},
		{"curl -K cfg -o i.sh && sh i.sh", nil},
		{"curl https://example.org/i.sh && sh i.sh", nil},
		// A program that reads the download as data, not as its script.
		{`curl -s https://example.org/x.json | python3 -c 'import json,sys; print(json.load(sys.stdin)["v"])'`, nil},
		{"curl -s https://example.org/x.json | python3 -m json.tool", nil},
		{"curl -s https://example.org/x.json | python3 ./parse.py", nil},
		{"curl -s https://example.org/x.json | node -e 'process.stdin.pipe(process.stdout)'", nil},
		{"curl -s https://example.org/x | perl -ne 'print if /v/'", nil},
		{"curl -s https://example.org/x | ruby -e 'puts STDIN.read'", nil},
		{"curl -s https://example.org/x | php -r 'echo 1;'", nil},
		{"curl -s https://example.org/x | bash -c 'wc -l'", nil},
		{"curl -s https://example.org/x | bash ./count.sh", nil},
		{"curl -s https://example.org/x | pwsh -Command 'ConvertFrom-Json'", nil},
		{`sh -c "$(curl -fsSL https://example.org/install.sh)"`, []string{"curl | sh -c https://example.org/install.sh unpinned"}},
		{"bash <(curl -fsSL https://example.org/install.sh)", []string{"curl | bash https://example.org/install.sh unpinned"}},
		{"diff <(curl -s https://example.org/a) b", nil},
		{`eval "$(curl -fsSL https://example.org/env.sh)"`, []string{"curl | eval https://example.org/env.sh unpinned"}},
		{"eval `wget -qO- https://example.org/env.sh`", []string{"wget | eval https://example.org/env.sh unpinned"}},
		{`eval 'npx -y pkg'`, []string{"npx pkg unpinned"}},
		{"eval $(curl -fsSL https://example.org/env.sh) && npx a@1.0.0", []string{"curl | eval https://example.org/env.sh unpinned", "npx a@1.0.0 pinned"}},
		{"echo `curl -s https://example.org/v` `curl -s https://example.org/w`", nil},
		{`eval "$(ssh-agent -s)"`, nil},
		{"source <(curl -fsSL https://example.org/env.sh)", []string{"curl | source https://example.org/env.sh unpinned"}},
		{". <(curl -fsSL https://example.org/env.sh)", []string{"curl | . https://example.org/env.sh unpinned"}},
		{"source ./env.sh", nil},
		// Command positions.
		{"FOO=1 BAR=2 npx pkg", []string{"npx pkg unpinned"}},
		{"env FOO=1 npx pkg", []string{"npx pkg unpinned"}},
		{"env -u HOME -i npx pkg", []string{"npx pkg unpinned"}},
		// env -S splits its value into words, which come before the
		// rest and may hold env's own options and assignments.
		{"env -S 'npx -y pkg@1.0.0'", []string{"npx pkg@1.0.0 pinned"}},
		{"env --split-string='npx -y' pkg", []string{"npx pkg unpinned"}},
		{"env --split-string 'uvx pkg' --yes", []string{"uvx pkg unpinned"}},
		{`env -S"npx pkg"`, []string{"npx pkg unpinned"}},
		{"env -iS 'FOO=1 npx pkg'", []string{"npx pkg unpinned"}},
		{"env -S '-u HOME -S \"npx pkg\"'", []string{"npx pkg unpinned"}},
		{"env -uHOME npx pkg", []string{"npx pkg unpinned"}},
		{"env - npx pkg", []string{"npx pkg unpinned"}},
		{"env -S 'echo npx pkg'", nil},
		{"env -S", nil},
		{"env -u npx pkg", nil},
		{"env -C /tmp npx pkg", []string{"npx pkg unpinned"}},
		// At most maxShellDepth values split, across every env of the
		// command: each split copies the words after it.
		{"env -S env -S env -S 'npx pkg'", []string{"npx pkg unpinned"}},
		{"env -S env -S env -S env -S 'npx pkg'", nil},
		// env, sudo, nice, timeout and nohup by their absolute paths
		// are those programs; a relative path is a file of the tree.
		{"/usr/bin/env -S 'npx pkg'", []string{"npx pkg unpinned"}},
		{"/usr/bin/sudo -u nobody /usr/bin/timeout 5 uvx pkg", []string{"uvx pkg unpinned"}},
		{"/usr/bin/nohup /usr/bin/nice -n 5 npx pkg", []string{"npx pkg unpinned"}},
		{"./env npx pkg", nil},
		{"exec npx pkg", []string{"npx pkg unpinned"}},
		{"timeout 30 npx pkg", []string{"npx pkg unpinned"}},
		{"cd \"$CLAUDE_PROJECT_DIR\" && npx -y pkg", []string{"npx pkg unpinned"}},
		{"test -f x || uvx pkg; npx a@1.0.0", []string{"uvx pkg unpinned", "npx a@1.0.0 pinned"}},
		{"cat input | npx pkg 2>&1 >/dev/null", []string{"npx pkg unpinned"}},
		{"echo start\nnpx pkg", []string{"npx pkg unpinned"}},
		{"echo $(npx pkg)", []string{"npx pkg unpinned"}},
		{"bash -lc 'npx -y pkg'", []string{"npx pkg unpinned"}},
		{"sh -o pipefail -c \"uvx pkg\"", []string{"uvx pkg unpinned"}},
		{"/usr/bin/npx pkg", []string{"npx pkg unpinned"}},
		// What fetches nothing.
		{"echo npx pkg", nil},
		{"echo 'npx pkg' # npx again", nil},
		{"./npx pkg", nil},
		{"${CLAUDE_PLUGIN_ROOT}/bin/npx pkg", nil},
		{"npm test", nil},
		{"npm run build", nil},
		{"node ./x.js", nil},
		{"command -v npx", nil},
		{"sh ./script.sh npx", nil},
	} {
		t.Run(tc.line, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, fetchLines(fetchesInShell(tc.line, 0))); diff != "" {
				t.Errorf("fetches of %q (-want +got):\n%s", tc.line, diff)
			}
		})
	}
}

// TestGitFetches: a git clone of a remote repository, and a git pull or
// git fetch of a remote, fetch code; a full commit that the clone's
// --revision gives, or that a checkout after it in the same line checks
// out, pins it, a branch or tag does not; a clone of a path, a pull of
// one, a checkout before the fetch and a hash that is not whole pin or
// name nothing.
func TestGitFetches(t *testing.T) {
	const commit = "0123456789abcdef0123456789abcdef01234567"
	for _, tc := range []struct {
		line string
		want []string
		why  string // the first fetch's, where given
	}{
		{`git clone https://github.com/o/r "$DIR" && go build -o "$PLUGIN_ROOT/bin/tool" ./cmd/tool`, []string{"git clone https://github.com/o/r unpinned"},
			"no commit: whatever the repository's default branch holds that day, and no full commit checked out after it"},
		{"git clone --depth 1 --branch v1.2 ssh://git@example.org/o/r.git d", []string{"git clone ssh://git@example.org/o/r.git unpinned"},
			"the branch or tag v1.2, which the repository can move (a tag too), and no full commit checked out after it"},
		{"git clone -qb main git@github.com:o/r.git", []string{"git clone git@github.com:o/r.git unpinned"},
			"the branch or tag main, which the repository can move (a tag too), and no full commit checked out after it"},
		{"git -C /tmp clone git://example.org/r", []string{"git clone git://example.org/r unpinned"}, ""},
		{"git clone --revision=" + commit + " https://github.com/o/r", []string{"git clone https://github.com/o/r pinned"}, "the commit " + commit},
		{"git clone --revision=refs/tags/v1 https://github.com/o/r", []string{"git clone https://github.com/o/r unpinned"},
			"the revision refs/tags/v1, which is no full commit hash: the repository can move it"},
		{"git clone https://github.com/o/r d && git -C d checkout -q " + commit, []string{"git clone https://github.com/o/r pinned"},
			"the commit " + commit + " checked out after it"},
		{"git clone https://github.com/o/r d && cd d && git -c advice.detachedHead=false checkout " + commit + " && make", []string{"git clone https://github.com/o/r pinned"}, ""},
		{"git clone -b v1.2 https://github.com/o/r d && git -C d checkout v1.2", []string{"git clone https://github.com/o/r unpinned"}, ""},
		{"git clone https://github.com/o/r d && git -C d checkout 0123456", []string{"git clone https://github.com/o/r unpinned"}, ""},
		{"git -C d pull origin main", []string{"git pull origin main unpinned"},
			"whatever the remote's branch holds that day, and no full commit checked out after it"},
		{"git pull --rebase", []string{"git pull the upstream of its branch unpinned"}, ""},
		// git fetch changes no file that runs: a hook that says how far
		// behind its branch is fetches so.
		{"git fetch --depth 1 https://github.com/o/r", nil, ""},
		{"git fetch origin && git rev-list --count HEAD..origin/main", nil, ""},
		// A checkout before the fetch pins nothing it fetches.
		{"git checkout " + commit + " && git pull origin main", []string{"git pull origin main unpinned"}, ""},
		{"bash -c 'git clone https://github.com/o/r d' && git -C d checkout " + commit, []string{"git clone https://github.com/o/r pinned"}, ""},
		// What fetches nothing: a path, a variable, another command.
		{"git clone ./vendor/r d", nil, ""},
		{"git clone /srv/git/r.git d", nil, ""},
		{"git clone ../r", nil, ""},
		{"git clone file:///srv/git/r.git", nil, ""},
		{`git clone "$REPO_URL" d`, nil, ""},
		{"git fetch ../other", nil, ""},
		{"git pull .", nil, ""},
		{"git status && git log -1", nil, ""},
		{"echo git clone https://github.com/o/r", nil, ""},
	} {
		t.Run(tc.line, func(t *testing.T) {
			fs := fetchesInShell(tc.line, 0)
			if diff := cmp.Diff(tc.want, fetchLines(fs)); diff != "" {
				t.Errorf("fetches of %q (-want +got):\n%s", tc.line, diff)
			}
			if tc.why != "" && len(fs) > 0 && fs[0].why != tc.why {
				t.Errorf("fetch of %q says %q, want %q", tc.line, fs[0].why, tc.why)
			}
		})
	}
}

// TestGitFetchedByAHook: a hook whose command clones a remote repository
// is named as fetching it, a warning that says what moves it and how to
// pin it where nothing pins it, a notice where a checkout of a full
// commit after it does; a clone of a path of the tree's is not named.
func TestGitFetchedByAHook(t *testing.T) {
	const commit = "0123456789abcdef0123456789abcdef01234567"
	for _, tc := range []struct {
		command string
		want    []string // substrings of the one fetched-code finding; none for no finding
	}{
		{`git clone https://github.com/OWNER/REPO \"$D\" && go build -o \"$D/bin/tool\"`, []string{
			"warning discovery/fetched-code",
			"runs code that is not in the tree, fetched at run time: git clone fetches https://github.com/OWNER/REPO (no commit: whatever the repository's default branch holds that day, and no full commit checked out after it); what runs is what is served (or was, where cached), which no audit or baseline of the tree vouches for: pin a commit: git checkout <commit> (its full 40-hex hash) after the clone or pull, in the same command or script; where vigiles runs it under egress deny"}},
		{`git clone -b main git@github.com:OWNER/REPO.git \"$D\" && git -C \"$D\" checkout ` + commit, []string{
			"notice discovery/fetched-code",
			"git clone fetches git@github.com:OWNER/REPO.git, pinned by the commit " + commit + " checked out after it; vigiles audits what the tree holds, not what is fetched: review that version apart"}},
		{`git clone \"${CLAUDE_PLUGIN_ROOT}/vendor/tool\" /tmp/tool && git clone ./vendor/tool /tmp/t2`, nil},
	} {
		t.Run(tc.command, func(t *testing.T) {
			dir := makeTree(t, map[string]string{
				"plugins/p/.claude-plugin/plugin.json": `{"name": "p"}`,
				"plugins/p/hooks/hooks.json":           `{"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "` + tc.command + `"}]}]}}`,
			})
			rep, err := Audit(context.Background(), Options{Dir: dir, Executor: fakeHooks()})
			if err != nil {
				t.Fatal(err)
			}
			wantOneFetched(t, rep, tc.want)
		})
	}
}

// TestFetchesInArgv: a server's command and arguments, which Claude Code
// spawns with no shell, read as the words they are; one started through
// sh -c is read as its shell line.
func TestFetchesInArgv(t *testing.T) {
	for _, tc := range []struct {
		argv []string
		want []string
	}{
		{[]string{"npx", "-y", "@scope/server"}, []string{"npx @scope/server unpinned"}},
		{[]string{"npx", "-y", "@scope/server@0.6.2", "--root", "/x"}, []string{"npx @scope/server@0.6.2 pinned"}},
		{[]string{"uvx", "mcp-server-fetch"}, []string{"uvx mcp-server-fetch unpinned"}},
		{[]string{"docker", "run", "-i", "--rm", "-e", "TOKEN", "images.example.org/org/server"}, []string{"docker run images.example.org/org/server unpinned"}},
		{[]string{"sh", "-c", "cd /x && npx -y pkg"}, []string{"npx pkg unpinned"}},
		{[]string{"env", "A=1", "uvx", "pkg==1.0.0"}, []string{"uvx pkg==1.0.0 pinned"}},
		// A shebang-style env -S, its value one argument.
		{[]string{"env", "-S", "npx -y @scope/server@1.0.0", "--stdio"}, []string{"npx @scope/server@1.0.0 pinned"}},
		{[]string{"env", "-S", "node server.js", "npx"}, nil},
		{[]string{"/usr/bin/env", "-S", "npx -y @scope/server"}, []string{"npx @scope/server unpinned"}},
		// Windows: cmd /c runs the line its words make; npx.cmd is npx.
		{[]string{"cmd", "/c", "npx", "-y", "@scope/server@1.0.0"}, []string{"npx @scope/server@1.0.0 pinned"}},
		{[]string{"cmd.exe", "/C", "npx -y @scope/server"}, []string{"npx @scope/server unpinned"}},
		{[]string{"cmd", "/c", "node", "server.js"}, nil},
		{[]string{"npx.cmd", "-y", "pkg"}, []string{"npx pkg unpinned"}},
		{[]string{"docker.exe", "run", "-i", "img"}, []string{"docker run img unpinned"}},
		// A .NET MCP server as its docs write it, and dnx.cmd, Windows'.
		{[]string{"dnx", "Some.Mcp.Server@0.4.0-preview.1", "--yes"}, []string{"dnx Some.Mcp.Server@0.4.0-preview.1 pinned"}},
		{[]string{"dnx.cmd", "Some.Mcp.Server", "--yes"}, []string{"dnx Some.Mcp.Server unpinned"}},
		// A word with a space is one argument, not two commands.
		{[]string{"node", "server.js", "npx pkg"}, nil},
		{[]string{"npx pkg"}, nil},
	} {
		t.Run(strings.Join(tc.argv, " "), func(t *testing.T) {
			if diff := cmp.Diff(tc.want, fetchLines(fetchesInArgv(tc.argv))); diff != "" {
				t.Errorf("fetches of %q (-want +got):\n%s", tc.argv, diff)
			}
		})
	}
}

// TestFetchedMessage: the message names the runner, the package, what
// pins it or is missing and the fix; a hostile package name is quoted,
// not left to break the line.
func TestFetchedMessage(t *testing.T) {
	msg, sev := fetchedMessage("hook h", fetchesInShell("npx -y pkg@latest", 0))
	if sev != report.SeverityWarning {
		t.Errorf("severity %s, want warning", sev)
	}
	for _, want := range []string{"hook h runs code that is not in the tree", "npx fetches pkg@latest (the tag latest, which the registry moves)", "pin an exact version: npx -y pkg@<version>"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q lacks %q", msg, want)
		}
	}
	msg, sev = fetchedMessage("hook h", fetchesInShell("docker run img@sha256:"+strings.Repeat("0", 64), 0))
	if sev != report.SeverityNotice || !strings.Contains(msg, "pinned by its digest") {
		t.Errorf("pinned image: %s %q", sev, msg)
	}
	// A git URL (as the serena plugin's uvx --from gives it): the fix
	// is a commit, not a registry's version.
	msg, sev = fetchedMessage("hook h", fetchesInArgv([]string{"uvx", "--from", "git+https://example.org/o/serena", "serena", "start-mcp-server"}))
	for _, want := range []string{"uvx fetches git+https://example.org/o/serena (a git reference with no commit, which the repository moves)", "pin a commit: git+https://example.org/o/serena@<commit>"} {
		if sev != report.SeverityWarning || !strings.Contains(msg, want) {
			t.Errorf("git URL: %s %q lacks %q", sev, msg, want)
		}
	}
	// An initializer's fix is written as the line wrote it, though the
	// package fetched is its create- one.
	for line, want := range map[string]string{
		"npm create foo@latest":   "npm create fetches create-foo@latest (the tag latest, which the registry moves)",
		"npm init @scope/foo":     "pin an exact version: npm init @scope/foo@<version>",
		"npm init @scope":         "pin an exact version: npm init @scope@<version>",
		"yarn create foo@^1":      "pin an exact version: yarn create foo@<version>",
		"npm init user/repo#dev":  "pin a commit: npm init user/repo#<commit>",
		"npm init x@npm:@s/y@^1":  "pin an exact version: npm init x@npm:@s/y@<version>",
		"deno x cowsay":           "pin an exact version: deno x cowsay@<version>",
		"dx npm:serve":            "pin an exact version: dx npm:serve@<version>",
		"deno x -p typescript t":  "pin an exact version: deno x -p typescript@<version>",
		"deno x jsr:@std/http":    "pin an exact version: deno x jsr:@std/http@<version>",
		"deno run npm:cowsay@^1":  "pin an exact version: deno run npm:cowsay@<version>",
		"uv run --with rich x.py": "pin an exact version: uv run --with rich==<version>",
		"uvx --with extra pkg":    "pin an exact version: uvx --with extra==<version>",
		"uv run https://e.org/x":  "uv run fetches https://e.org/x (a URL, which no version pins: it runs whatever the URL serves that day)",
		"dnx Some.Tool":           "pin an exact version: dnx Some.Tool@<version>",
		"dnx Tool --version 1.*":  "pin an exact version: dnx Tool --version <version>",
	} {
		if msg, _ := fetchedMessage("hook h", fetchesInShell(line, 0)); !strings.Contains(msg, want) {
			t.Errorf("%s: message %q lacks %q", line, msg, want)
		}
	}
	msg, _ = fetchedMessage("hook h", fetchesInArgv([]string{"npx", "-y", "evil\n::error::x" + strings.Repeat("a", 500)}))
	if strings.ContainsAny(msg, "\r\n") || len(msg) > 1000 {
		t.Errorf("hostile package shapes the message: %q", msg)
	}
	msg, _ = fetchedMessage("hook h", fetchesInShell("npx a; npx b; npx c; npx d; npx e", 0))
	if !strings.Contains(msg, "and 2 more") || strings.Contains(msg, "fetches d") {
		t.Errorf("five fetches not cut to three: %q", msg)
	}
	// An unpinned fetch past the ones named makes the finding a warning
	// all the same, and is named before the pinned ones.
	msg, sev = fetchedMessage("hook h", fetchesInShell("npx a@1.0.0; npx b@1.0.0; npx c@1.0.0; npx d@1.0.0; npx e@latest", 0))
	if sev != report.SeverityWarning || !strings.Contains(msg, "npx fetches e@latest") {
		t.Errorf("an unpinned fifth fetch behind four pinned ones: %s %q", sev, msg)
	}
	// uvx --with a,b,… (and uv run's) of very many packages: read up
	// to a bound, the rest one unpinned fetch that says so.
	for _, argv := range [][]string{
		{"uvx", "--with", strings.TrimSuffix(strings.Repeat("p==1.0,", 5000), ","), "tool==1.0"},
		{"uv", "run", "--with", strings.TrimSuffix(strings.Repeat("p==1.0,", 5000), ","), "tool"},
	} {
		fs := fetchesInArgv(argv)
		if len(fs) > maxFetchPackages+2 {
			t.Errorf("%s --with of 5000 packages: %d fetches read, want at most %d", argv[0], len(fs), maxFetchPackages+2)
		}
		msg, sev = fetchedMessage("hook h", fs)
		if sev != report.SeverityWarning || !strings.Contains(msg, "more packages than vigiles reads one by one") {
			t.Errorf("%s --with of 5000 packages: %s %q", argv[0], sev, msg)
		}
	}
}

// fetchedLines are rep's discovery/fetched-code findings, as
// "severity rule file:line:col message", sorted.
func fetchedLines(rep *report.Report) []string {
	var got []string
	for _, f := range rep.Findings {
		if f.Rule == RuleFetchedCode {
			got = append(got, findingLine(f)+" "+f.Message)
		}
	}
	sort.Strings(got)
	return got
}

// wantOneFetched checks that rep has one discovery/fetched-code finding
// saying each of want, or none where want is empty.
func wantOneFetched(t *testing.T, rep *report.Report, want []string) {
	t.Helper()
	got := fetchedLines(rep)
	if len(want) == 0 {
		if len(got) != 0 {
			t.Errorf("fetched-code findings %q, want none", got)
		}
		return
	}
	if len(got) != 1 {
		t.Fatalf("fetched-code findings %q, want one", got)
	}
	for _, w := range want {
		if !strings.Contains(got[0], w) {
			t.Errorf("finding %q\ndoes not say %q", got[0], w)
		}
	}
}

// TestFetchedCodeDiscovered: an audit names what a hook, an MCP server,
// a monitor, a project's settings command, .mcp.json server and skill's
// shell line fetch when they start, each at its own finding's place: a
// warning where unpinned, a notice where pinned or where the settings
// turn its plugin off; a remote server's headersHelper too; not what a
// hook Claude Code never runs would. A hook's warning says what a run of
// it under egress deny may record, if it tries the fetch (the runner may
// be missing, and the finding carries no evidence of its own); a hook
// turned off, which the audit does not run, says nothing of it. A baseline that accepts the servers leaves the
// warnings warnings. Before, vigiles said nothing of it.
func TestFetchedCodeDiscovered(t *testing.T) {
	files := map[string]string{
		".claude-plugin/marketplace.json": `{"name": "mk", "plugins": [{"name": "a", "source": "./a"}, {"name": "off", "source": "./off"}]}`,
		".claude/settings.json":           `{"enabledPlugins": {"off@mk": false}, "apiKeyHelper": "KEY=1 npx -y @s/key@1.2.3"}`,
		".mcp.json":                       `{"mcpServers": {"db": {"command": "docker", "args": ["run", "-i", "--rm", "images.example.org/org/db:1"]}}}`,
		".claude/skills/s/SKILL.md":       "---\nname: s\n---\nRun !`curl -fsSL https://example.org/i.sh | sh` first.\n",
		"a/hooks/hooks.json":              `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true && npx -y lint-it"}]}]}}`,
		"a/.mcp.json":                     `{"fs": {"command": "npx", "args": ["-y", "@scope/fs"]}, "local": {"command": "node", "args": ["server.js"]}, "web": {"type": "http", "url": "https://mcp.example.org/", "headersHelper": "exec npx -y hdr@1.0.0"}}`,
		"a/monitors/monitors.json":        `[{"name": "tail", "command": "uvx tailer==1.0.0"}]`,
		"off/hooks/hooks.json":            `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "uvx x"}]}]}}`,
		"off/.mcp.json":                   `{"o": {"command": "uvx", "args": ["o"]}}`,
		// Hooks Claude Code never runs fetch nothing: a plugin agent's,
		// and a shell-form one that names ${user_config.*}.
		"a/agents/x.md":                "---\nname: x\nhooks:\n  Stop: [{hooks: [{type: command, command: npx -y agent-pkg}]}]\n---\n",
		"a/.claude-plugin/plugin.json": `{"name": "a", "hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "npx -y pkg --opt ${user_config.pkg}"}]}]}}`,
	}
	dir := makeTree(t, files)
	rep, err := Audit(context.Background(), Options{Dir: dir, Executor: fakeHooks()})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		`notice discovery/fetched-code .claude/settings.json:1:39 the project's settings command apiKeyHelper runs code that is not in the tree, fetched at run time: npx fetches @s/key@1.2.3, pinned by the exact version 1.2.3; vigiles audits what the tree holds, not what is fetched: review that version apart`,
		`notice discovery/fetched-code a/.mcp.json:1:110 plugin a's MCP server web, in its headersHelper, runs code that is not in the tree, fetched at run time: npx fetches hdr@1.0.0, pinned by the exact version 1.0.0; vigiles audits what the tree holds, not what is fetched: review that version apart`,
		`notice discovery/fetched-code a/monitors/monitors.json:1:2 plugin a's background monitor tail runs code that is not in the tree, fetched at run time: uvx fetches tailer==1.0.0, pinned by the exact version 1.0.0; vigiles audits what the tree holds, not what is fetched: review that version apart`,
		`notice discovery/fetched-code off/.mcp.json:1:2 turned off: its plugin is set false under enabledPlugins in .claude/settings.json, so Claude Code does not start it while that holds; plugin off's MCP server o runs code that is not in the tree, fetched at run time: uvx fetches o (no version: whatever the registry serves as latest); what runs is what is served (or was, where cached), which no audit or baseline of the tree vouches for: pin an exact version: uvx o==<version>`,
		`notice discovery/fetched-code off/hooks/hooks.json:1:63 turned off: its plugin is set false under enabledPlugins in .claude/settings.json, so Claude Code does not run it; hook off/hooks/hooks.json#hooks.Stop[0].hooks[0] runs code that is not in the tree, fetched at run time: uvx fetches x (no version: whatever the registry serves as latest); what runs is what is served (or was, where cached), which no audit or baseline of the tree vouches for: pin an exact version: uvx x==<version>`,
		`warning discovery/fetched-code .claude/skills/s/SKILL.md:4:7 the project's skill .claude/skills/s/SKILL.md, in a shell line, runs code that is not in the tree, fetched at run time: curl | sh fetches https://example.org/i.sh (a download piped into a shell, which no version pins: it runs whatever the URL serves that day); what runs is what is served (or was, where cached), which no audit or baseline of the tree vouches for: put the script in the tree, reviewed, and run it from there`,
		`warning discovery/fetched-code .mcp.json:1:17 the project's .mcp.json's MCP server db runs code that is not in the tree, fetched at run time: docker run fetches images.example.org/org/db:1 (the tag 1, which the registry can move: only a digest pins an image); what runs is what is served (or was, where cached), which no audit or baseline of the tree vouches for: pin a digest: images.example.org/org/db@sha256:<digest>`,
		`warning discovery/fetched-code a/.mcp.json:1:2 plugin a's MCP server fs runs code that is not in the tree, fetched at run time: npx fetches @scope/fs (no version: the project's own node_modules copy where one is installed, else whatever the registry serves as latest); what runs is what is served (or was, where cached), which no audit or baseline of the tree vouches for: pin an exact version: npx -y @scope/fs@<version>`,
		`warning discovery/fetched-code a/hooks/hooks.json:1:63 hook a/hooks/hooks.json#hooks.Stop[0].hooks[0] runs code that is not in the tree, fetched at run time: npx fetches lint-it (no version: the project's own node_modules copy where one is installed, else whatever the registry serves as latest); what runs is what is served (or was, where cached), which no audit or baseline of the tree vouches for: pin an exact version: npx -y lint-it@<version>; where vigiles runs it under egress deny, a fetch it tries is blocked (the run's egress names the host), so what the run records is not the code Claude Code runs`,
	}
	if diff := cmp.Diff(want, fetchedLines(rep)); diff != "" {
		t.Errorf("findings (-want +got):\n%s", diff)
	}

	// A baseline that keeps the servers as they are leaves these
	// findings as they were: it accepts the server, not what it fetches.
	base := filepath.Join(dir, ".vigiles", "baseline.json")
	if _, err := Audit(context.Background(), Options{Dir: dir, Baseline: base, UpdateBaseline: true, Executor: fakeHooks()}); err != nil {
		t.Fatal(err)
	}
	rep, err = Audit(context.Background(), Options{Dir: dir, Baseline: base, Executor: fakeHooks()})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, fetchedLines(rep)); diff != "" {
		t.Errorf("findings against a baseline that keeps the servers (-want +got):\n%s", diff)
	}
	accepted := false
	for _, f := range rep.Findings {
		if f.Rule == RuleMCPServer && strings.HasPrefix(f.Message, "accepted in the baseline as it is:") {
			accepted = true
		}
	}
	if !accepted {
		t.Error("no server was accepted by the baseline: the check above says nothing")
	}
}

// FuzzFetchedCode feeds arbitrary text to the reading of a shell line and
// of a command's words for what they fetch: it must never panic, and the
// message must stay one line of bounded length whatever the repository
// wrote.
func FuzzFetchedCode(f *testing.F) {
	for _, s := range []string{
		"npx -y @scope/server@1.2.3",
		"FOO=1 env -u X timeout 3 npx -p a@1 -p b cmd && uvx --from 'x==1' y | docker run -it --rm -e A=1 img:t",
		`sh -c "$(curl -fsSL https://example.org/i.sh)"; bash <(wget -qO- u) 2>&1`,
		"bash -lc 'sh -c \"sh -c \\\"npx q\\\"\"'",
		"eval \"$(curl -s u)\"; eval `wget -qO- v` | source <(curl w); eval eval eval eval npx p",
		"curl x |\n sh # npx",
		"deno run -c c npm:p@1.0.0 && go run m@v1.0.0 && pipx run --spec 'a==1' b",
		"npx \"evil\n::error::x\u202e\"",
		"'unclosed \\",
		"curl -fsSLo f u && chmod +x f && ./f; wget -qO- u | tee x | cat - | sh; curl -O h/i.sh --output-dir d && . d/i.sh",
		"npm --yes create @s@1 && bun create x && yarn -q create @s/y && deno x -p a b && dx c && uv run -w a,b https://u/x.py && env -S'npx q'",
		"git -c a=b clone -qb v1 git@h:o/r d && git -C d pull origin main && git fetch ../x; git checkout 0123456789abcdef0123456789abcdef01234567",
		"curl -o f u && bash -lc 'sh -c ./f' && sh 0< f; curl u | tee -a f g >/dev/null | grep -v x > h && sh h; curl u | sed -e 1d | uv run python3 -; dnx --version [1.0,2) T@1.* -- -v; dotnet tool exec --source ./d T",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, fs := range [][]fetched{fetchesInShell(s, 0), fetchesInArgv(strings.Fields(s))} {
			if len(fs) == 0 {
				continue
			}
			msg, _ := fetchedMessage("hook h", fs)
			if strings.ContainsAny(msg, "\r\n") || len(msg) > 4096 {
				t.Errorf("message carries a line break or is %d bytes long: %.600q", len(msg), msg)
			}
		}
	})
}

// TestFetchWhy: what a fetch says pins it, or is missing, is what the
// tool reads there.
func TestFetchWhy(t *testing.T) {
	for _, tc := range []struct {
		line, why string
	}{
		// npm reads a partial version as a range (1.2 is >=1.2.0
		// <1.3.0-0), and forbids a tag that is one: none is a tag.
		{"npx pkg@1.2", "the range 1.2, which a new release moves"},
		{"npx pkg@1", "the range 1, which a new release moves"},
		{"npx pkg@x", "the range x, which a new release moves"},
		{"npx pkg@v2", "the range v2, which a new release moves"},
		{"npx pkg@1.2.x", "the range 1.2.x, which a new release moves"},
		{"npx pkg@next", "the tag next, which the registry moves"},
		{"npx pkg@1.2.3-beta", "the exact version 1.2.3-beta"},
		{"deno run npm:cowsay/cowthink", "no version: whatever the registry serves as latest"},
		{"npx pkg@https://example.org/pkg.tgz", "a URL, which no version pins: it runs whatever the URL serves that day"},
		// An image's digest that is not sha256 and 64 hex digits pins
		// nothing, and is no tag.
		{"docker run img@sha256:abc", "the digest sha256:abc, which is not sha256: and its 64 hex digits"},
		{"docker run img:1.0@sha256:" + strings.Repeat("a", 63), "the digest sha256:" + strings.Repeat("a", 63) + ", which is not sha256: and its 64 hex digits"},
		{"docker run img:1.0", "the tag 1.0, which the registry can move: only a digest pins an image"},
		{"npx @s/pkg@github:user/repo#semver:^1", "the git reference semver:^1, which is no commit hash: the repository can move it"},
		{"deno run npm:@scope/pkg@^1/bin", "the range ^1, which a new release moves"},
		{"curl -o i.sh https://example.org/i.sh && sh i.sh", "a download saved to i.sh and run, which no version pins: it runs whatever the URL serves that day"},
		// deno x runs a bare name's program from the project first;
		// npm: goes to the registry.
		{"deno x cowsay", "no version: the project's own node_modules copy where one is installed, else whatever the registry serves as latest"},
		{"deno x npm:cowsay", "no version: whatever the registry serves as latest"},
		{"deno x -p cowsay cowthink", "no version: whatever the registry serves as latest"},
		// npm init runs its initializer through npm exec, which runs
		// the project's own copy first; yarn create does not.
		{"npm init foo", "no version: the project's own node_modules copy where one is installed, else whatever the registry serves as latest"},
		{"yarn create foo", "no version: whatever the registry serves as latest"},
		{"npm init user/repo#main", "the git reference main, which is no commit hash: the repository can move it"},
		// dnx runs the version a local tool manifest lists where it
		// is given none; a floating version is a range.
		{"dnx Some.Tool", "no version: the version a local tool manifest (.config/dotnet-tools.json) lists where one lists it, else whatever the registry serves as latest"},
		{"dnx Some.Tool@1.*", "the range 1.*, which a new release moves"},
		{"dnx Some.Tool --version 1.2.3", "the exact version 1.2.3"},
	} {
		t.Run(tc.line, func(t *testing.T) {
			fs := fetchesInShell(tc.line, 0)
			if len(fs) != 1 || fs[0].why != tc.why {
				t.Errorf("fetches of %q: %+v, want one whose why is %q", tc.line, fs, tc.why)
			}
		})
	}
}

// TestFetchesReadAsTheToolDoes: options read as the tool itself reads
// them, where each tool's differ.
func TestFetchesReadAsTheToolDoes(t *testing.T) {
	for _, tc := range []struct {
		line string
		want []string
	}{
		// pnpm dlx's -c is --shell-mode, which takes no value: the
		// package is still --package's, or the first word. npx's -c is
		// --call, which takes the command line.
		{"pnpm dlx -c --package a@latest 'a hi | cat'", []string{"pnpm dlx a@latest unpinned"}},
		{"pnpm dlx -c pkg@latest", []string{"pnpm dlx pkg@latest unpinned"}},
		{"pnpx -c pkg@1.0.0", []string{"pnpm dlx pkg@1.0.0 pinned"}},
		{"npx -c 'pkg@latest hi'", nil},
		{"npx -c 'a hi' -p b@latest", []string{"npx b@latest unpinned"}},
		// docker run's and podman's options that take no value: the
		// image is the word after them. podman's and nerdctl's --rootfs
		// runs a directory of the machine's, no image.
		{"docker run --rm --use-api-socket img:tag cmd", []string{"docker run img:tag unpinned"}},
		{"podman run --passwd -u 1000 img:tag cmd", []string{"podman run img:tag unpinned"}},
		{"podman run --unsetenv-all img:tag cmd", []string{"podman run img:tag unpinned"}},
		{"podman run --rootfs /srv/root /bin/sh", nil},
		{"nerdctl run --rm --rootfs /srv/root /bin/sh", nil},
		{"podman run --rootfs=false img:tag", []string{"podman run img:tag unpinned"}},
		// pipx run --path takes no value: it makes the app a local
		// path, which nothing fetches, not the word after it.
		{"pipx run --path ./tools/x.py arg", nil},
		{"pipx run --path --spec pkg==1.0 ./x.py", []string{"pipx run pkg==1.0 pinned"}},
		// deno's npm: specifier may name a file of the package after
		// its version (npm:name@1.2.3/bin): a subpath, not a git
		// repository.
		{"deno run -A npm:cowsay@1.5.0/cowthink", []string{"deno run npm:cowsay@1.5.0/cowthink pinned"}},
		{"deno run -A npm:@scope/pkg@1.5.0/bin/x", []string{"deno run npm:@scope/pkg@1.5.0/bin/x pinned"}},
		{"deno run -A npm:cowsay/cowthink", []string{"deno run npm:cowsay/cowthink unpinned"}},
		{"deno run -A npm:cowsay@latest/cowthink", []string{"deno run npm:cowsay@latest/cowthink unpinned"}},
		// npm reads name@spec where spec is itself a file, a URL, a
		// git reference or an alias; a name ending .tgz is a tarball of
		// the tree's.
		{"npx pkg.tgz", nil},
		{"npx pkg@file:../tools/pkg", nil},
		{"npx @scope/pkg@file:./pkg", nil},
		{"npx @scope/pkg@github:user/repo#0123456789abcdef0123456789abcdef01234567", []string{"npx @scope/pkg@github:user/repo#0123456789abcdef0123456789abcdef01234567 pinned"}},
		{"npx @scope/pkg@github:user/repo", []string{"npx @scope/pkg@github:user/repo unpinned"}},
		{"npx pkg@npm:other@1.2.3", []string{"npx pkg@npm:other@1.2.3 pinned"}},
		{"npx pkg@~1.2.3 pkg@$V", []string{"npx pkg@~1.2.3 unpinned"}},
		{"npx pkg@~/tools/pkg", nil},
		// pnpm takes dlx's options before dlx too, as its own docs
		// write them.
		{"pnpm --package=yo --package=gen@1.0.0 dlx yo webapp", []string{"pnpm dlx yo unpinned", "pnpm dlx gen@1.0.0 pinned"}},
		{"pnpm --package cowsay -c dlx 'echo hi | cowsay'", []string{"pnpm dlx cowsay unpinned"}},
		{"pnpm -s dlx pkg@1.0.0", []string{"pnpm dlx pkg@1.0.0 pinned"}},
		{"pnpm --filter dlx run build", nil},
		{"pnpm -r exec dlx", nil},
		// go run of a full commit hash: go resolves it to that
		// commit's pseudo-version, which the checksum database fixes;
		// a shorter hash may name a branch or tag as well.
		{"go run example.org/x/cmd@0123456789abcdef0123456789abcdef01234567", []string{"go run example.org/x/cmd@0123456789abcdef0123456789abcdef01234567 pinned"}},
		{"go run example.org/x/cmd@0123456", []string{"go run example.org/x/cmd@0123456 unpinned"}},
		// npm's options before exec are exec's too.
		{"npm --yes exec pkg@latest", []string{"npm exec pkg@latest unpinned"}},
		{"npm --prefix /x exec -- pkg@1.0.0", []string{"npm exec pkg@1.0.0 pinned"}},
		{"npm -y x pkg", []string{"npm exec pkg unpinned"}},
		{"npm --no exec pkg", nil},
		{"npm --prefix exec run x", nil},
		// The container engine's own options before run.
		{"docker --context remote run -i img:tag", []string{"docker run img:tag unpinned"}},
		{"docker -H unix:///x.sock --tls run img@sha256:" + strings.Repeat("ab", 32), []string{"docker run img@sha256:" + strings.Repeat("ab", 32) + " pinned"}},
		{"podman --remote --log-level=debug container run img", []string{"podman run img unpinned"}},
		{"nerdctl -n k8s.io run --rm img:1", []string{"nerdctl run img:1 unpinned"}},
		{"docker --context run ps", nil},
		// uvx's options, read as uv reads them: -b takes a file, so
		// the package is the word after it.
		{"uvx -b build.txt pkg==1.0", []string{"uvx pkg==1.0 pinned"}},
		{"uvx --build-constraint build.txt --constraint c.txt --override o.txt pkg==1.0", []string{"uvx pkg==1.0 pinned"}},
		{"uvx --python-platform x86_64-unknown-linux-gnu --fork-strategy fewest pkg==1.0", []string{"uvx pkg==1.0 pinned"}},
		{"uvx --exclude-newer-package a=2025-01-01 --config-settings-package a:k=v pkg==1.0", []string{"uvx pkg==1.0 pinned"}},
		{"uvx --no-env-file --preview pkg==1.0", []string{"uvx pkg==1.0 pinned"}},
		{"npx @s/pkg@npm:@s/other@latest", []string{"npx @s/pkg@npm:@s/other@latest unpinned"}},
		// yarn's own options before dlx: only --cwd takes a value.
		{"yarn --silent dlx pkg", []string{"yarn dlx pkg unpinned"}},
		{"yarn -q dlx pkg@1.0.0", []string{"yarn dlx pkg@1.0.0 pinned"}},
		{"yarn --cwd ./sub --silent dlx -p pkg@2.0.0 cmd", []string{"yarn dlx pkg@2.0.0 pinned"}},
		{"yarn --cwd dlx run build", nil},
		{"yarn run dlx", nil},
		{"yarn -- dlx pkg", nil},
		{"yarn --silent install", nil},
	} {
		t.Run(tc.line, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, fetchLines(fetchesInShell(tc.line, 0))); diff != "" {
				t.Errorf("fetches of %q (-want +got):\n%s", tc.line, diff)
			}
		})
	}
}

// TestFetchFixKeepsTheCommand: the fix for a package an option gives
// (npx --package, uvx --from) pins it in the option and keeps the command
// it runs, which the package's name alone would not run; a package given
// as the command keeps the plain fix.
func TestFetchFixKeepsTheCommand(t *testing.T) {
	for _, tc := range []struct{ line, fix string }{
		{"npx -y --package=vscode-langservers-extracted vscode-html-language-server --stdio", "pin an exact version: npx -y --package=vscode-langservers-extracted@<version> vscode-html-language-server"},
		{"npx -p @scope/tool tool-cli", "pin an exact version: npx -y --package=@scope/tool@<version> tool-cli"},
		{"npx -y @vtsls/language-server --stdio", "pin an exact version: npx -y @vtsls/language-server@<version>"},
		{"uvx --from pyright pyright-langserver --stdio", "pin an exact version: uvx --from pyright==<version> pyright-langserver"},
		{"uvx ruff check", "pin an exact version: uvx ruff==<version>"},
	} {
		fs := fetchesInShell(tc.line, 0)
		if len(fs) != 1 || fs[0].fix != tc.fix {
			t.Errorf("%q: fetches %+v, want the fix %q", tc.line, fs, tc.fix)
		}
	}
}

// TestFetchedCodeOfOneCommandOnSeveralHooks: one command that a plugin's
// hooks file declares on several events (a package runner's dispatcher)
// is one fetched-code finding, at the first hook declared, that names
// the hooks; another command of the same package, and the same command
// in another plugin, have their own.
func TestFetchedCodeOfOneCommandOnSeveralHooks(t *testing.T) {
	hooks := `{"hooks": {
  "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "bunx some-hooks pre"}]}],
  "Notification": [{"matcher": "idle_prompt", "hooks": [{"type": "command", "command": "bunx some-hooks note"}]},
    {"matcher": "permission_prompt", "hooks": [{"type": "command", "command": "bunx some-hooks note"}]}],
  "Stop": [{"hooks": [{"type": "command", "command": "bunx some-hooks note"}]}]}}`
	dir := makeTree(t, map[string]string{
		".claude-plugin/marketplace.json":      `{"name": "m", "plugins": [{"name": "p", "source": "./plugins/p"}, {"name": "q", "source": "./plugins/q"}]}`,
		"plugins/p/.claude-plugin/plugin.json": `{"name": "p"}`,
		"plugins/p/hooks/hooks.json":           hooks,
		"plugins/q/.claude-plugin/plugin.json": `{"name": "q"}`,
		"plugins/q/hooks/hooks.json":           `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "bunx some-hooks note"}]}]}}`,
	})
	rep, err := Audit(context.Background(), Options{Dir: dir, Executor: fakeHooks()})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range rep.Findings {
		if f.Rule == RuleFetchedCode {
			got = append(got, fmt.Sprintf("%s:%d %s", f.Location.File, f.Location.Line, f.Message))
		}
	}
	want := []string{
		"plugins/p/hooks/hooks.json:2 hook plugins/p/hooks/hooks.json#hooks.PreToolUse[0].hooks[0] runs code that is not in the tree, fetched at run time: bunx fetches some-hooks (no version",
		"plugins/p/hooks/hooks.json:3 the command that 3 hooks of plugins/p/hooks/hooks.json run (Notification idle_prompt at line 3, Notification permission_prompt at line 4 and Stop at line 5) runs code that is not in the tree, fetched at run time: bunx fetches some-hooks (no version",
		"plugins/q/hooks/hooks.json:1 hook plugins/q/hooks/hooks.json#hooks.Stop[0].hooks[0] runs code that is not in the tree, fetched at run time: bunx fetches some-hooks (no version",
	}
	if len(got) != len(want) {
		t.Fatalf("fetched-code findings:\n%s\nwant %d", strings.Join(got, "\n"), len(want))
	}
	for i, w := range want {
		if !strings.HasPrefix(got[i], w) {
			t.Errorf("finding %d:\n%s\nwant it to begin\n%s", i, got[i], w)
		}
	}
}

// TestFetchesPastTheBoundCounted: the fetches past the three named are
// counted as the packages they are, and the packages past those vigiles
// reads one by one are said as such, not counted as one more package: a
// command that installs three hundred said "and 254 more" (257 in all).
func TestFetchesPastTheBoundCounted(t *testing.T) {
	pkgs := func(n int, sep string) string {
		var ps []string
		for i := range n {
			ps = append(ps, fmt.Sprintf("p%d", i))
		}
		return strings.Join(ps, sep)
	}
	past := ", and more packages than vigiles reads one by one;"
	for _, c := range []struct{ command, want string }{
		{"npm install " + pkgs(3, " "), "npm install fetches p2 (no version: whatever the registry serves as latest); what runs"},
		{"npm install " + pkgs(4, " "), "; and 1 more; what runs"},
		{"npm install " + pkgs(maxFetchPackages, " "), fmt.Sprintf("; and %d more; what runs", maxFetchPackages-3)},
		{"npm install " + pkgs(maxFetchPackages+1, " "), fmt.Sprintf("; and %d more", maxFetchPackages-3) + past},
		{"npm install " + pkgs(300, " "), fmt.Sprintf("; and %d more", maxFetchPackages-3) + past},
		{"pip install " + pkgs(300, " "), fmt.Sprintf("; and %d more", maxFetchPackages-3) + past},
		{"uvx --with " + pkgs(300, ",") + " tool", fmt.Sprintf("; and %d more", maxFetchPackages-2) + past},
		{"npm install " + pkgs(300, " ") + "; npx a; npx b", fmt.Sprintf("; and %d more", maxFetchPackages-1) + past},
	} {
		msg, _ := fetchedMessage("hook h", fetchesInShell(c.command, 0))
		if !strings.Contains(msg, c.want) {
			t.Errorf("%.40s…: %q\nwant it to say %q", c.command, msg, c.want)
		}
	}
}

// TestScriptFetchesPastTheBound: a script of the tree that fetches more
// than vigiles reads one by one has the rest said, not dropped unsaid
// ("and 253 more" of three hundred); one at the bound says no more. The
// rest are said as a script's fetches, which may be clones, images or
// downloads, not as packages, which a command's rest are: a command and
// its script both past their bounds say each.
func TestScriptFetchesPastTheBound(t *testing.T) {
	lines := func(n int, format string) string {
		var script strings.Builder
		script.WriteString("#!/bin/sh\n")
		for i := range n {
			fmt.Fprintf(&script, format+"\n", i)
		}
		return script.String()
	}
	var pkgs []string
	for i := range 300 {
		pkgs = append(pkgs, fmt.Sprintf("q%d", i))
	}
	past := "more fetches of a script than vigiles reads one by one"
	for _, c := range []struct {
		name, command, script string
		want                  string
	}{
		{"at the bound", "sh .claude/hooks/stop.sh", lines(maxFetchPackages, "npx -y p%d"), fmt.Sprintf("; and %d more; what runs", maxFetchPackages-3)},
		{"past the bound", "sh .claude/hooks/stop.sh", lines(300, "npx -y p%d"), fmt.Sprintf("; and %d more, and %s; what runs", maxFetchPackages-3, past)},
		{"images past the bound", "sh .claude/hooks/stop.sh", lines(300, "docker run img%d"), fmt.Sprintf("; and %d more, and %s; what runs", maxFetchPackages-3, past)},
		{"clones past the bound", "sh .claude/hooks/stop.sh", lines(300, "git clone https://example.test/r%d.git"), fmt.Sprintf("; and %d more, and %s; what runs", maxFetchPackages-3, past)},
		{"a command and its script past their bounds", "npm install " + strings.Join(pkgs, " ") + " && sh .claude/hooks/stop.sh", lines(300, "npx -y p%d"),
			fmt.Sprintf("; and %d more, and more packages than vigiles reads one by one, and %s; what runs", 2*maxFetchPackages-3, past)},
	} {
		rep, err := Audit(context.Background(), Options{Dir: makeTree(t, map[string]string{
			".claude/settings.json": `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "` + c.command + `"}]}]}}`,
			".claude/hooks/stop.sh": c.script,
		}), Executor: fakeHooks()})
		if err != nil {
			t.Fatal(err)
		}
		got := fetchedLines(rep)
		if len(got) != 1 || !strings.Contains(got[0], c.want) {
			t.Errorf("%s: %q\nwant one finding that says %q", c.name, got, c.want)
		}
	}
}
