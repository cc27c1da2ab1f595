package suggest

import (
	"strings"
	"testing"
)

func TestDistances(t *testing.T) {
	tests := []struct {
		name       string
		a, b       string
		lev, runes int
		osa        int // OSADistance with limit 10
	}{
		{"classic", "kitten", "sitting", 3, 3, 3},
		{"empty", "", "", 0, 0, 0},
		{"deletions", "ab", "", 2, 2, 2},
		{"a swap of neighbours", "ab", "ba", 2, 2, 1},
		{"multi-byte rune", "é", "e", 2, 1, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Distance(tc.a, tc.b); got != tc.lev {
				t.Errorf("Distance = %d, want %d", got, tc.lev)
			}
			if got := RuneDistance(tc.a, tc.b); got != tc.runes {
				t.Errorf("RuneDistance = %d, want %d", got, tc.runes)
			}
			if got := OSADistance(tc.a, tc.b, 10); got != tc.osa {
				t.Errorf("OSADistance = %d, want %d", got, tc.osa)
			}
		})
	}
	if got := OSADistance("abcdef", "uvwxyz", 2); got != 2 {
		t.Errorf("capped OSADistance = %d, want 2", got)
	}
}

func TestClosest(t *testing.T) {
	cands := []string{"timeline", "duration", "description", "cluster", "node-crash", "node-recover", "scale"}
	tests := []struct {
		in   string
		o    Options
		want string
	}{
		{"timline", Options{}, "timeline"},
		{"Duration", Options{}, "duration"},
		{"scael", Options{Swaps: true}, "scale"},
		{"scael", Options{}, ""}, // two edits without swaps, over the limit of 1
		{"clsuter", Options{Swaps: true}, "cluster"},
		{"clsuter", Options{}, "cluster"},
		{"descr", Options{Substring: true}, "description"},
		{"descr", Options{}, ""},
		{"node", Options{Substring: true}, ""}, // two candidates contain it
		{"timeline", Options{}, ""},
		{"", Options{}, ""},
		{"timelinee", Options{MaxInput: 8}, ""},
		{"timelinee", Options{MaxInput: 9}, "timeline"},
	}
	for _, tc := range tests {
		if got := Closest(tc.in, cands, tc.o); got != tc.want {
			t.Errorf("Closest(%q, %+v) = %q, want %q", tc.in, tc.o, got, tc.want)
		}
	}
	if got := DidYouMean("timline", cands, Options{}); got != `did you mean "timeline"?` {
		t.Errorf("DidYouMean = %q", got)
	}
	if got := DidYouMean("xyz", cands, Options{}); got != "" {
		t.Errorf("DidYouMean = %q, want none", got)
	}
}

func TestNearest(t *testing.T) {
	known := []string{"Deployment", "DaemonSet", "ReplicaSet", "Pod", "Node"}
	tests := []struct{ in, want string }{
		{"deployment", "Deployment"}, // case is ignored
		{"Depolyment", "Deployment"}, // two edits are always within reach
		{"Nod", "Node"},
		{"Pdo", "Pod"}, // ties go to the lexically smallest: Pod (2) beats Node (3)
		{"Replicaset", "ReplicaSet"},
		{"StatefulSet", ""},
		{strings.Repeat("a", 129), ""},
	}
	for _, tc := range tests {
		if got := Nearest(tc.in, known, 128); got != tc.want {
			t.Errorf("Nearest(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestCommand(t *testing.T) {
	names := []string{"run", "list", "explain", "sweep"}
	tests := []struct{ in, want string }{
		{"ex", "explain"}, // a prefix
		{"e", ""},         // too short to be a prefix, and 2+ edits from every name
		{"rnu", "run"},
		{"lsit", "list"},
		{"swep", "sweep"},
		{"zzzzzz", ""},
	}
	for _, tc := range tests {
		if got := Command(tc.in, names); got != tc.want {
			t.Errorf("Command(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
