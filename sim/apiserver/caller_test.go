package apiserver

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim"
	"github.com/reconsim/reconsim/vtime"
)

// TestCallerClassificationsFollowTheConfiguration checks the classifications API Priority and
// Fairness keeps in a client's Caller: one record per client name, a record sent under
// another client's name is not used for it, and a reconfiguration makes every kept
// classification stale.
func TestCallerClassificationsFollowTheConfiguration(t *testing.T) {
	_, srv := newTestServer(t, func(c *Config) {
		c.APF.Enabled = true
		c.APF.Users = testUsers
	})
	rogue := srv.Caller("rogue")
	require.Same(t, rogue, srv.Caller("rogue"), "one record per client name")
	require.NotSame(t, rogue, srv.Caller("other"))

	get := func(client string, caller *Caller) string {
		req := &Request{Client: client, Caller: caller, Verb: model.VerbGet, Kind: model.KindPod, Namespace: "default", Name: "p"}
		return srv.apf.classify(req).pl.name
	}
	assert.Equal(t, "global-default", get("rogue", rogue))
	assert.Equal(t, "exempt", get("admin", rogue), "a record under another name is not the client's")
	assert.Equal(t, "global-default", get("rogue", rogue), "the admin's classification was not kept as the rogue's")
	_, otherSrv := newTestServer(t, func(c *Config) {
		c.APF.Enabled = true
		c.APF.Users = testUsers
	})
	foreign := otherSrv.Caller("rogue")
	assert.Same(t, rogue, srv.callerOf(&Request{Client: "rogue", Caller: foreign}), "another server's record is not this server's")

	// A FlowSchema for the rogue user: the classification kept in its record is stale.
	_, err := srv.Store().Create(rogueFlowSchema())
	require.NoError(t, err)
	srv.SyncAPFConfig()
	assert.Equal(t, "workload-low", get("rogue", rogue))
	assert.Equal(t, "workload-low", get("rogue", nil), "found by name without a record")
}

// rogueFlowSchema sends every request of the user rogue to the workload-low level.
func rogueFlowSchema() *model.FlowSchema {
	return &model.FlowSchema{
		ObjectMeta: model.ObjectMeta{Name: "rogue-low"},
		Spec: model.FlowSchemaSpec{
			PriorityLevelConfiguration: model.PriorityLevelConfigurationReference{Name: "workload-low"},
			MatchingPrecedence:         500,
			Rules: []model.PolicyRulesWithSubjects{{
				Subjects: []model.Subject{{Kind: model.SubjectKindUser, User: &model.UserSubject{Name: "rogue"}}},
				ResourceRules: []model.ResourcePolicyRule{{
					Verbs: []string{model.VerbAll}, APIGroups: []string{model.APIGroupAll},
					Resources: []string{model.ResourceAll}, Namespaces: []string{model.NamespaceEvery},
				}},
			}},
		},
	}
}

// slowClient is a fault that delays every request of one client.
type slowClient struct {
	client string
	delay  time.Duration
}

func (f *slowClient) Intercept(_ vtime.Time, req *Request) (time.Duration, error) {
	if req.Client == f.client {
		return f.delay, nil
	}
	return 0, nil
}

// TestRouteClassificationAfterAReconfigurationDuringAFault: a request that finds its route
// kept, then sleeps in a fault's extra latency while the configuration changes, is classified
// under the new configuration, not with the classification its route kept.
func TestRouteClassificationAfterAReconfigurationDuringAFault(t *testing.T) {
	k, srv := newTestServer(t, func(c *Config) {
		c.APF.Enabled = true
		c.APF.Users = testUsers
	})
	caller := srv.Caller("rogue")
	get := Request{Client: "rogue", Caller: caller, Verb: model.VerbGet, Kind: model.KindPod, Namespace: "default", Name: "p"}
	k.Spawn("client", func(p *sim.Proc) {
		first := get
		srv.Do(p, &first) // classified under the bootstrap configuration, and kept
		srv.AddFault(&slowClient{client: "rogue", delay: 10 * time.Second})
		second := get
		srv.Do(p, &second) // the configuration changes while it sleeps in the fault
	})
	k.After(5*time.Second, func() {
		_, err := srv.Store().Create(rogueFlowSchema())
		require.NoError(t, err)
		srv.SyncAPFConfig()
	})
	k.Run(sim.Limits{MaxTime: vtime.FromDuration(time.Minute)})
	dispatched := map[string]uint64{}
	for _, l := range srv.APFLevels() {
		dispatched[l.Name] = l.Dispatched
	}
	assert.Equal(t, uint64(1), dispatched["global-default"], "the first request")
	assert.Equal(t, uint64(1), dispatched["workload-low"], "the second, under the new configuration")
}

// TestRoutesServeAsTheStoreDoes sends one client's requests through Do, more kinds of
// request (kind, verb, subresource, namespace) than its Caller keeps routes for, a custom
// resource before and after its CRD among them, and the same operations straight to a second
// store: every answer is the store's, and the statistics count each request under its own
// resource and verb.
func TestRoutesServeAsTheStoreDoes(t *testing.T) {
	for _, apf := range []bool{false, true} {
		k, srv := newTestServer(t, func(c *Config) {
			c.APF.Enabled = apf
			c.APF.Users = testUsers
		})
		_, ref := newTestStore(t, nil)
		var namespaces []string
		for i := range 2 * maxCallerRoutes {
			ns := &model.Namespace{ObjectMeta: model.ObjectMeta{Name: fmt.Sprintf("ns-%d", i)}}
			mustCreate(t, srv.Store(), ns.DeepCopy())
			mustCreate(t, ref, ns)
			namespaces = append(namespaces, ns.Name)
		}
		type op struct {
			req    Request
			direct func() (model.Object, error)
		}
		lease := func(ns string) *model.Lease {
			l := newLease("l")
			l.Namespace = ns
			return l
		}
		var ops []op
		for round := range 3 {
			for _, ns := range namespaces {
				switch round {
				case 0:
					ops = append(ops, op{Request{Verb: model.VerbCreate, Kind: model.KindLease, Object: lease(ns)},
						func() (model.Object, error) { return ref.Create(lease(ns)) }})
				case 1:
					ops = append(ops, op{Request{Verb: model.VerbGet, Kind: model.KindLease, Namespace: ns, Name: "l"},
						func() (model.Object, error) { return ref.Get(model.KindLease, ns, "l") }})
				case 2:
					ops = append(ops, op{Request{Verb: model.VerbUpdate, Kind: model.KindLease, Object: lease(ns)},
						func() (model.Object, error) { return ref.Update(lease(ns)) }})
				}
			}
		}
		backup := func() model.Object { return newBackup(t, "{schedule: '@daily'}") }
		getBackup := op{Request{Verb: model.VerbGet, Kind: "Backup", Namespace: "default", Name: "nightly"},
			func() (model.Object, error) { return ref.Get("Backup", "default", "nightly") }}
		createBackup := op{Request{Verb: model.VerbCreate, Kind: "Backup", Object: backup()},
			func() (model.Object, error) { return ref.Create(backup()) }}
		ops = append(ops, getBackup, createBackup)
		crd := op{Request{Verb: model.VerbCreate, Kind: model.KindCustomResourceDefinition, Object: decodeOne(t, backupCRD)},
			func() (model.Object, error) { return ref.Create(decodeOne(t, backupCRD)) }}
		createBackup2 := op{Request{Verb: model.VerbCreate, Kind: "Backup", Object: backup()},
			func() (model.Object, error) { return ref.Create(backup()) }}
		ops = append(ops, crd, getBackup, createBackup2, getBackup)

		caller := srv.Caller("routed")
		var got []Response
		k.Spawn("client", func(p *sim.Proc) {
			for _, o := range ops {
				req := o.req
				req.Client, req.Caller = "routed", caller
				got = append(got, srv.Do(p, &req))
			}
		})
		k.Run(sim.Limits{MaxTime: vtime.FromDuration(time.Hour)})
		require.Len(t, got, len(ops))
		require.Equal(t, maxCallerRoutes, int(caller.nroutes), "routes kept")
		for i := range int(caller.nroutes) {
			r := caller.route(i)
			require.Same(t, srv.Stats().byKind[r.kind], r.counts, "route %d keeps its kind's counters", i)
		}
		want := map[string]uint64{}
		for i, o := range ops {
			obj, err := o.direct()
			if err != nil {
				require.Error(t, got[i].Err, "op %d", i)
				assert.Equal(t, err.Error(), got[i].Err.Error(), "op %d", i)
			} else {
				require.NoError(t, got[i].Err, "op %d", i)
				assert.Equal(t, obj.Meta().ResourceVersion, got[i].Object.Meta().ResourceVersion, "op %d", i)
				assert.Equal(t, model.Key(obj), model.Key(got[i].Object), "op %d", i)
			}
			// A kind is counted under the resource it had at its first request: Backup was
			// not served then.
			resource := map[model.Kind]string{model.KindLease: "leases", "Backup": "Backup",
				model.KindCustomResourceDefinition: "customresourcedefinitions"}[o.req.Kind]
			want[resource+" "+string(o.req.Verb)]++
		}
		counted := map[string]uint64{}
		for _, c := range srv.Stats().Requests() {
			counted[c.Resource+" "+string(c.Verb)] += c.Total
		}
		assert.Equal(t, want, counted, "apf %v", apf)
	}
}

// TestRouteOfIsTheScansRoute sends one client's requests of seeded kinds (more kinds of
// request than its Caller keeps routes for, in runs and alternations) through routeOf, and
// holds each answer to a plain scan of the kept routes: the kept route of the request's kind
// when there is one, else a route of its own outside them; the kept routes stay unique.
func TestRouteOfIsTheScansRoute(t *testing.T) {
	_, srv := newTestServer(t, nil)
	type kindOfRequest struct {
		kind model.Kind
		verb model.Verb
		ns   string
	}
	var kinds []kindOfRequest
	for i := range maxCallerRoutes + 4 {
		kinds = append(kinds, kindOfRequest{
			kind: []model.Kind{model.KindLease, model.KindNode, model.KindPod}[i%3],
			verb: []model.Verb{model.VerbGet, model.VerbUpdate}[i/3%2],
			ns:   fmt.Sprintf("ns-%d", i/6),
		})
	}
	for seed := range uint64(10) {
		rng := rand.New(rand.NewPCG(seed, 1))
		caller := srv.Caller(fmt.Sprintf("client-%d", seed))
		for n := range 2000 {
			kr := kinds[rng.IntN(len(kinds))]
			if n%5 != 0 {
				// Mostly the few kinds a client sends over and over.
				kr = kinds[rng.IntN(3)*5]
			}
			req := &Request{Client: caller.name, Caller: caller, Verb: kr.verb, Kind: kr.kind, Namespace: kr.ns, Name: "x"}
			var want *route
			for i := range int(caller.nroutes) {
				if r := caller.route(i); r.kind == kr.kind && r.verb == kr.verb && r.sub == "" && r.namespace == kr.ns {
					require.Nil(t, want, "seed %d request %d: two kept routes for %v", seed, n, kr)
					want = r
				}
			}
			var scratch route
			got := srv.routeOf(req, kr.kind, &scratch)
			if want != nil {
				require.Same(t, want, got, "seed %d request %d: %v", seed, n, kr)
				continue
			}
			require.True(t, got.kind == kr.kind && got.verb == kr.verb && got.namespace == kr.ns, "seed %d request %d: %v routed as %v %v %v", seed, n, kr, got.kind, got.verb, got.namespace)
			if int(caller.nroutes) == maxCallerRoutes && got != caller.route(maxCallerRoutes-1) {
				require.Same(t, &scratch, got, "seed %d request %d: a route beyond the kept ones", seed, n)
			}
		}
		require.Equal(t, maxCallerRoutes, int(caller.nroutes), "seed %d", seed)
	}
}

// TestRouteChunkLayout: a chunk of routes is a size class whose allocations start on a cache
// line, and each of its routes is on two lines.
func TestRouteChunkLayout(t *testing.T) {
	var chunk routeChunk
	require.Equal(t, uintptr(384), unsafe.Sizeof(chunk))
	for i := range chunk {
		first := unsafe.Offsetof(chunk[0].kind) + uintptr(i)*unsafe.Sizeof(chunk[0])
		last := first + unsafe.Sizeof(chunk[0]) - 1
		require.LessOrEqual(t, last/64-first/64, uintptr(1), "route %d", i)
	}
	_, srv := newTestServer(t, nil)
	caller := srv.Caller("chunked")
	for i := range maxCallerRoutes {
		var scratch route
		srv.routeOf(&Request{Client: "chunked", Caller: caller, Verb: model.VerbGet, Kind: model.KindPod, Namespace: fmt.Sprint(i)}, model.KindPod, &scratch)
	}
	for i, c := range caller.chunks {
		require.NotNil(t, c)
		require.Zero(t, uintptr(unsafe.Pointer(c))%64, "chunk %d starts a cache line", i)
	}
}

// TestCallerIsOneCacheLine: a Caller is 64 bytes and starts a cache line, so that a request
// reads one line of it.
func TestCallerIsOneCacheLine(t *testing.T) {
	require.Equal(t, uintptr(64), unsafe.Sizeof(Caller{}))
	_, srv := newTestServer(t, nil)
	for i := range 20 {
		c := srv.Caller(fmt.Sprint("client-", i))
		require.Zero(t, uintptr(unsafe.Pointer(c))%64, "caller %d starts a cache line", i)
	}
}
