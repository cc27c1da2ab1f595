package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"
)

// exampleJob is the part of a Job manifest the example test reads.
type exampleJob struct {
	Metadata struct{ Name string }
	Spec     struct {
		Completions int
		Template    struct {
			Spec struct {
				InitContainers []exampleContainer `yaml:"initContainers"`
				Containers     []exampleContainer
			}
		}
	}
}

type exampleContainer struct {
	Command []string
	Args    []string
}

// TestKubernetesExploreJobExample plays examples/kubernetes/explore-job.yaml as the cluster
// would: each index of the Indexed Job runs its `sim explore` command line (with its shard
// number, a small --runs and a temporary directory for the volume), the shard files appear
// where the merge Job's init container waits for them, and the merge Job's command combines
// them. A flag the CLI no longer takes, or a path the two Jobs disagree on, fails it.
func TestKubernetesExploreJobExample(t *testing.T) {
	data, err := os.ReadFile("../../examples/kubernetes/explore-job.yaml")
	require.NoError(t, err)
	jobs := map[string]exampleJob{}
	dec := yaml.NewDecoder(strings.NewReader(string(data)))
	for {
		var doc struct {
			Kind string
		}
		var node yaml.Node
		if err := dec.Decode(&node); err != nil {
			break
		}
		require.NoError(t, node.Decode(&doc))
		if doc.Kind != "Job" {
			continue
		}
		var j exampleJob
		require.NoError(t, node.Decode(&j))
		jobs[j.Metadata.Name] = j
	}
	search, merge := jobs["reconsim-explore"], jobs["reconsim-explore-merge"]
	require.NotZero(t, search.Spec.Completions, "the Indexed search Job")
	require.Len(t, merge.Spec.Template.Spec.Containers, 1, "the merge Job")

	results := t.TempDir()
	line := strings.Join(search.Spec.Template.Spec.Containers[0].Args, " ")
	line = strings.TrimPrefix(strings.TrimSpace(line), "exec sim ")
	for i := 1; i <= search.Spec.Completions; i++ {
		args := strings.Fields(strings.NewReplacer(
			`"$((JOB_COMPLETION_INDEX + 1))/`, fmt.Sprintf("%d/", i), `"`, "").Replace(line))
		for k := range args {
			switch {
			case args[k] == "/results":
				args[k] = results
			case k > 0 && args[k-1] == "--runs":
				args[k] = "8" // the example's 4000, scaled down for a test
			}
		}
		code, _, stderr := runSim(append(args, "-q")...)
		require.Equal(t, exitOK, code, "index %d: sim %s\n%s", i-1, strings.Join(args, " "), stderr)
	}
	// The merge Job's init container waits for /results/shard-*-of-N/shard.json.
	wait := strings.Join(merge.Spec.Template.Spec.InitContainers[0].Args, " ")
	pattern := fmt.Sprintf("/results/shard-*-of-%d/shard.json", search.Spec.Completions)
	require.Contains(t, wait, pattern)
	found, err := filepath.Glob(filepath.Join(results, strings.TrimPrefix(pattern, "/results/")))
	require.NoError(t, err)
	require.Len(t, found, search.Spec.Completions)

	cmd := merge.Spec.Template.Spec.Containers[0].Command
	require.Equal(t, "sim", cmd[0])
	margs := append([]string(nil), cmd[1:]...)
	for k := range margs {
		if margs[k] == "/results" {
			margs[k] = results
		}
	}
	code, stdout, stderr := runSim(margs...)
	require.Equal(t, exitOK, code, "sim %s\n%s%s", strings.Join(margs, " "), stdout, stderr)
	require.FileExists(t, filepath.Join(results, "explore.json"))
}
