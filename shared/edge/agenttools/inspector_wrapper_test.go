package agenttools_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/moveleads/partnerapi/shared/local/childproc"
	"github.com/moveleads/partnerapi/shared/local/repo"
	"github.com/moveleads/partnerapi/shared/spec/manifest"
)

// TestInspectorWrapper: scripts/mcp-inspector, the README's command, lists
// the tools from the repository root over HTTP, and from another folder
// over stdio with a server command relative to that folder. The CLI run
// directly from the root failed ("Cannot find module
// …/@modelcontextprotocol/package.json").
func TestInspectorWrapper(t *testing.T) {
	findInspector(t) // installed, node on PATH
	root, err := repo.Root()
	if err != nil {
		t.Fatal(err)
	}
	w := newWorld(t)
	stdio := w.stdioCommand(t, w.key)
	if err := os.Symlink(stdio.Path, filepath.Join(stdio.Dir, "mcp")); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, dir string
		args      []string
		env       []string
	}{
		{"http from the repository root", root, []string{w.env.Server.URL + "/v1/mcp", "--transport", "http",
			"--header", manifest.AgentKeyHeader + ": " + w.key, "--method", "tools/list"}, os.Environ()},
		{"stdio, a relative command", stdio.Dir, []string{"./mcp", "--method", "tools/list"}, stdio.Env},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), inspectorTimeout)
			defer cancel()
			cmd := exec.CommandContext(ctx, filepath.Join(root, "scripts", "mcp-inspector"), tc.args...)
			cmd.Dir, cmd.Env = tc.dir, tc.env
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			childproc.SetGroup(cmd)
			cmd.Cancel = func() error { return childproc.KillGroup(cmd.Process) }
			err := cmd.Run()
			if cmd.Process != nil {
				_ = childproc.KillGroup(cmd.Process)
			}
			if err != nil {
				t.Fatalf("$ cd %s && scripts/mcp-inspector %s: %v\n%s", tc.dir, shellLine(tc.args), err, stderr.Bytes())
			}
			var list struct{ Tools []struct{ Name string } }
			if err := json.Unmarshal(stdout.Bytes(), &list); err != nil {
				t.Fatalf("tools/list: %v\n%s", err, stdout.Bytes())
			}
			var names []string
			for _, tl := range list.Tools {
				names = append(names, tl.Name)
			}
			slices.Sort(names)
			if !slices.Equal(names, allToolNames()) {
				t.Errorf("tools/list through scripts/mcp-inspector = %v; want %v", names, allToolNames())
			}
		})
	}
}
