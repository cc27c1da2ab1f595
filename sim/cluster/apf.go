package cluster

import (
	"fmt"
	"strings"
	"time"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/scenarios"
	"github.com/reconsim/reconsim/sim"
	"github.com/reconsim/reconsim/sim/apiserver"
	"github.com/reconsim/reconsim/sim/client"
	"github.com/reconsim/reconsim/sim/metrics"
)

// apfConfig is kube-apiserver's API Priority and Fairness as the scenario sets it: on unless
// kube-apiserver.enable-priority-and-fairness=false, with the bootstrap configuration, the
// request timeout's queue wait, the SizeBasedListCostEstimate gate of the declared release,
// and each component's identity (identity).
func (w *world) apfConfig() apiserver.APFConfig {
	if !w.apiOpts.EnablePriorityAndFairness {
		return apiserver.APFConfig{}
	}
	c := apiserver.APFConfig{
		Enabled:        true,
		RequestTimeout: w.apiOpts.RequestTimeout,
		Users:          w.identity,
	}
	gateAPIServer(w.gates, &c)
	return c
}

// identity is the user a component's client authenticates as, as a kubeadm cluster sets
// them up (what the flow schemas match):
//   - kubelet/<node>: system:node:<node> in system:nodes (kubelet client certificates);
//   - kube-controller-manager's controllers: the service account kube-system/<controller>
//     (--use-service-account-credentials=true, kubeadm's default); its shared informers and
//     its leader election: system:kube-controller-manager;
//   - kube-scheduler, including its leader election: system:kube-scheduler;
//   - metrics-server: the service account kube-system/metrics-server;
//   - the GitOps agent and controllers added with WithController: a service account in their
//     own namespace (argocd, flux-system, default);
//   - kubectl (the scenario's hand): kubeadm's admin.conf user kubernetes-admin in
//     kubeadm:cluster-admins (not system:masters since kubeadm 1.29);
//   - anything else (a synthetic load client): a user of its own name.
func (w *world) identity(client string) apiserver.UserInfo {
	authenticated := apiserver.GroupAuthenticated
	switch {
	case strings.HasPrefix(client, "kubelet/"):
		return apiserver.NodeUser(strings.TrimPrefix(client, "kubelet/"))
	case client == "kubectl":
		return apiserver.UserInfo{Name: "kubernetes-admin", Groups: []string{"kubeadm:cluster-admins", authenticated}}
	case client == metrics.Component:
		return apiserver.ServiceAccountUser("kube-system", client)
	case client == "argocd-application-controller":
		return apiserver.ServiceAccountUser("argocd", client)
	case client == "kustomize-controller":
		return apiserver.ServiceAccountUser("flux-system", client)
	case strings.HasPrefix(client, scenarios.ComponentControllerManager+"/"):
		return apiserver.UserInfo{Name: apiserver.UserKubeControllerManager, Groups: []string{authenticated}}
	case strings.HasPrefix(client, scenarios.ComponentScheduler+"/"):
		return apiserver.UserInfo{Name: apiserver.UserKubeScheduler, Groups: []string{authenticated}}
	}
	for _, x := range w.extra {
		if x.Name == client {
			return apiserver.ServiceAccountUser("default", client)
		}
	}
	if owners := w.componentsOf[client]; len(owners) > 0 {
		if owners[0] == scenarios.ComponentScheduler {
			return apiserver.UserInfo{Name: apiserver.UserKubeScheduler, Groups: []string{authenticated}}
		}
		return apiserver.ServiceAccountUser("kube-system", client)
	}
	return apiserver.UserInfo{Name: client, Groups: []string{authenticated}}
}

// startAPILoad runs an api-load action: a client of the given name (its own user, see
// identity) and Workers processes, each sending the request and, once answered, the next,
// until For has passed. A request that fails without taking any time (a 404, say) is followed
// by a one-second pause, so that a broken load cannot spin at one instant.
func (w *world) startAPILoad(a *scenarios.APILoadArgs) error {
	name := a.Client
	if name == "" {
		name = scenarios.DefaultAPILoadClient
	}
	resource := a.Resource
	if resource == "" {
		resource = scenarios.DefaultAPILoadResource
	}
	var kind model.Kind
	for _, info := range w.srv.Store().ServedKinds() {
		if info.Resource == resource {
			kind = info.Kind
		}
	}
	if kind == "" {
		return fmt.Errorf("api-load: the API server does not serve %q", resource)
	}
	workers := a.Workers
	if workers == 0 {
		workers = scenarios.DefaultAPILoadWorkers
	}
	cfg := client.Config{QPS: -1}
	if a.QPS > 0 {
		cfg = client.Config{QPS: a.QPS, Burst: max(1, int(a.QPS))}
	}
	c := client.New(w.srv, name, cfg)
	end := w.k.Now().Add(a.For)
	for i := range workers {
		w.k.Spawn(fmt.Sprintf("api-load/%s/%d", name, i), func(p *sim.Proc) {
			for p.Now() < end {
				start := p.Now()
				var err error
				switch a.Verb {
				case "get":
					_, err = c.Get(p, kind, a.Namespace, a.Object)
				case "patch":
					_, err = c.Patch(p, kind, a.Namespace, a.Object, []byte("{}"))
				default:
					_, _, err = c.List(p, kind, model.ListOptions{Namespace: a.Namespace})
				}
				if err != nil && p.Now() == start {
					p.Sleep(time.Second)
				}
			}
		})
	}
	return nil
}
