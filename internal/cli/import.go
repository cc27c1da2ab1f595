package cli

import (
	"errors"
	"fmt"

	"github.com/reconsim/reconsim/internal/boundedfile"
	"github.com/reconsim/reconsim/internal/words"
	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/scenarios"
)

const importUsage = `Usage:
  sim import SNAPSHOT.yaml > scenario.yaml

Writes a scenario from a cluster dump, as printed by

  kubectl get deploy,rs,sts,ds,svc,pdb,hpa,nodes -A -o yaml > SNAPSHOT.yaml

The Nodes become node groups (capacity, allocatable, zone and region, labels and taints;
identical nodes are one group with a count). The workloads are kept as settled objects,
their pods running from the start. What the API server set (status, uid, managedFields,
...) is dropped; kinds the simulator does not model (ConfigMap, Secret, Role, ...) and
objects the simulated cluster makes itself (a Deployment's ReplicaSets, their Pods, ...)
are skipped. Each is a warning on stderr and a comment at the top of the scenario, which
ends with a commented example timeline.

Examples:
  sim import snapshot.yaml > scenario.yaml
  sim validate scenario.yaml
  sim run scenario.yaml

Exit status: 0 written, 2 the dump cannot be read or decoded.
`

func (c *cli) cmdImport(args []string) int {
	pos, done, code := c.positional("import", args, importUsage, 1, "one cluster dump (kubectl get ... -o yaml)")
	if done {
		return code
	}
	file := pos[0]
	data, err := readDump(file)
	if err != nil {
		fmt.Fprintf(c.stderr, "sim import: %v\n", err)
		return exitUsage
	}
	out, warns, err := scenarios.Import(file, data)
	for _, w := range warns {
		fmt.Fprintf(c.stderr, "%s (warning)\n", w.String())
	}
	if err != nil {
		fmt.Fprintln(c.stderr, err)
		var list model.DecodeErrors
		if errors.As(err, &list) {
			fmt.Fprintf(c.stderr, "sim import: %s: %d %s\n", file, len(list), words.Plural(len(list), "problem", "problems"))
			return exitUsage
		}
		return c.internalError("import", err, 0, "-", nil)
	}
	// A failed write is remembered by c.stdout and reported by main, as for every command.
	_, _ = c.stdout.Write(out)
	return exitOK
}

// readDump reads a dump of at most model.MaxManifestBytes, checking the size before reading
// more than that.
func readDump(file string) ([]byte, error) {
	data, err := boundedfile.Read(file, model.MaxManifestBytes)
	var tooLarge *boundedfile.TooLargeError
	if errors.As(err, &tooLarge) {
		return nil, fmt.Errorf("%w; dump fewer objects (kubectl get -n NAMESPACE ...)", err)
	}
	return data, err
}
