package apiserver

import (
	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Well-known user and group names ([apiserver@HEAD] pkg/authentication/user/user.go and
// pkg/authentication/serviceaccount/util.go).
const (
	UserKubeControllerManager = "system:kube-controller-manager"
	UserKubeScheduler         = "system:kube-scheduler"
	GroupSystemMasters        = "system:masters"
	GroupNodes                = "system:nodes"
	GroupAuthenticated        = "system:authenticated"
	GroupUnauthenticated      = "system:unauthenticated"
	GroupServiceAccounts      = "system:serviceaccounts"
	// NodeUserPrefix prefixes a kubelet's user name (system:node:<node>).
	NodeUserPrefix = "system:node:"
	// ServiceAccountUserPrefix prefixes a service account's user name
	// (system:serviceaccount:<namespace>:<name>).
	ServiceAccountUserPrefix = "system:serviceaccount:"
)

// UserInfo is the identity a request is authenticated as (authentication's user.Info, reduced
// to what API Priority and Fairness matches on).
type UserInfo struct {
	Name   string
	Groups []string
}

// ServiceAccountUser returns the identity of service account namespace/name as the token
// authenticator gives it: the user system:serviceaccount:<ns>:<name> in the groups
// system:serviceaccounts, system:serviceaccounts:<ns> and system:authenticated
// ([apiserver@HEAD] pkg/authentication/serviceaccount/util.go UserInfo, MakeGroupNames).
func ServiceAccountUser(namespace, name string) UserInfo {
	return UserInfo{Name: ServiceAccountUserPrefix + namespace + ":" + name,
		Groups: []string{GroupServiceAccounts, GroupServiceAccounts + ":" + namespace, GroupAuthenticated}}
}

// NodeUser returns a kubelet's identity: system:node:<node> in system:nodes (the node
// authorizer's convention, [k8s] plugin/pkg/auth/authorizer/node).
func NodeUser(node string) UserInfo {
	return UserInfo{Name: NodeUserPrefix + node, Groups: []string{GroupNodes, GroupAuthenticated}}
}

// The bootstrap configuration objects of API Priority and Fairness
// ([apiserver@v0.37] pkg/apis/flowcontrol/bootstrap/default.go: MandatoryPriorityLevelConfiguration*,
// SuggestedPriorityLevelConfiguration*, MandatoryFlowSchema*, SuggestedFlowSchema*; the
// values are those of k8s 1.29 through 1.37, unchanged since flowcontrol/v1 went GA in 1.29,
// KEP-1040). None sets borrowingLimitPercent.

func int32p(v int32) *int32 { return &v }

func queuingPL(name string, shares, lendable, queues, handSize, queueLength int32) *flowcontrolv1.PriorityLevelConfiguration {
	return &flowcontrolv1.PriorityLevelConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: flowcontrolv1.PriorityLevelConfigurationSpec{
			Type: flowcontrolv1.PriorityLevelEnablementLimited,
			Limited: &flowcontrolv1.LimitedPriorityLevelConfiguration{
				NominalConcurrencyShares: int32p(shares),
				LendablePercent:          int32p(lendable),
				LimitResponse: flowcontrolv1.LimitResponse{
					Type:    flowcontrolv1.LimitResponseTypeQueue,
					Queuing: &flowcontrolv1.QueuingConfiguration{Queues: queues, HandSize: handSize, QueueLengthLimit: queueLength},
				},
			},
		},
	}
}

// BootstrapPriorityLevels returns new copies of the default PriorityLevelConfigurations, in
// the order upstream lists them.
func BootstrapPriorityLevels() []*flowcontrolv1.PriorityLevelConfiguration {
	exempt := &flowcontrolv1.PriorityLevelConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: flowcontrolv1.PriorityLevelConfigurationNameExempt},
		Spec: flowcontrolv1.PriorityLevelConfigurationSpec{
			Type:   flowcontrolv1.PriorityLevelEnablementExempt,
			Exempt: &flowcontrolv1.ExemptPriorityLevelConfiguration{NominalConcurrencyShares: int32p(0), LendablePercent: int32p(0)},
		},
	}
	catchAll := &flowcontrolv1.PriorityLevelConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: flowcontrolv1.PriorityLevelConfigurationNameCatchAll},
		Spec: flowcontrolv1.PriorityLevelConfigurationSpec{
			Type: flowcontrolv1.PriorityLevelEnablementLimited,
			Limited: &flowcontrolv1.LimitedPriorityLevelConfiguration{
				NominalConcurrencyShares: int32p(5),
				LendablePercent:          int32p(0),
				LimitResponse:            flowcontrolv1.LimitResponse{Type: flowcontrolv1.LimitResponseTypeReject},
			},
		},
	}
	return []*flowcontrolv1.PriorityLevelConfiguration{
		exempt,
		catchAll,
		queuingPL("system", 30, 33, 64, 6, 50),
		queuingPL("node-high", 40, 25, 64, 6, 50),
		queuingPL("leader-election", 10, 0, 16, 4, 50),
		queuingPL("workload-high", 40, 50, 128, 6, 50),
		queuingPL("workload-low", 100, 90, 128, 6, 50),
		queuingPL("global-default", 20, 50, 128, 6, 50),
	}
}

func users(names ...string) []flowcontrolv1.Subject {
	out := make([]flowcontrolv1.Subject, len(names))
	for i, n := range names {
		out[i] = flowcontrolv1.Subject{Kind: flowcontrolv1.SubjectKindUser, User: &flowcontrolv1.UserSubject{Name: n}}
	}
	return out
}

func groups(names ...string) []flowcontrolv1.Subject {
	out := make([]flowcontrolv1.Subject, len(names))
	for i, n := range names {
		out[i] = flowcontrolv1.Subject{Kind: flowcontrolv1.SubjectKindGroup, Group: &flowcontrolv1.GroupSubject{Name: n}}
	}
	return out
}

func kubeSystemServiceAccounts() []flowcontrolv1.Subject {
	return []flowcontrolv1.Subject{{Kind: flowcontrolv1.SubjectKindServiceAccount,
		ServiceAccount: &flowcontrolv1.ServiceAccountSubject{Namespace: metav1.NamespaceSystem, Name: flowcontrolv1.NameAll}}}
}

func ruleAll() []flowcontrolv1.ResourcePolicyRule {
	return []flowcontrolv1.ResourcePolicyRule{{Verbs: []string{flowcontrolv1.VerbAll}, APIGroups: []string{flowcontrolv1.APIGroupAll},
		Resources: []string{flowcontrolv1.ResourceAll}, ClusterScope: true, Namespaces: []string{flowcontrolv1.NamespaceEvery}}}
}

func nonResourceAll() []flowcontrolv1.NonResourcePolicyRule {
	return []flowcontrolv1.NonResourcePolicyRule{{Verbs: []string{flowcontrolv1.VerbAll}, NonResourceURLs: []string{flowcontrolv1.NonResourceAll}}}
}

func flowSchema(name, pl string, precedence int32, dm flowcontrolv1.FlowDistinguisherMethodType, rules ...flowcontrolv1.PolicyRulesWithSubjects) *flowcontrolv1.FlowSchema {
	fs := &flowcontrolv1.FlowSchema{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: flowcontrolv1.FlowSchemaSpec{
			PriorityLevelConfiguration: flowcontrolv1.PriorityLevelConfigurationReference{Name: pl},
			MatchingPrecedence:         precedence,
			Rules:                      rules,
		},
	}
	if dm != "" {
		fs.Spec.DistinguisherMethod = &flowcontrolv1.FlowDistinguisherMethod{Type: dm}
	}
	return fs
}

func allOf(subjects []flowcontrolv1.Subject) flowcontrolv1.PolicyRulesWithSubjects {
	return flowcontrolv1.PolicyRulesWithSubjects{Subjects: subjects, ResourceRules: ruleAll(), NonResourceRules: nonResourceAll()}
}

func verbsOn(namespaces []string, clusterScope bool, verbs []string, group string, resources ...string) flowcontrolv1.ResourcePolicyRule {
	return flowcontrolv1.ResourcePolicyRule{Verbs: verbs, APIGroups: []string{group}, Resources: resources, Namespaces: namespaces, ClusterScope: clusterScope}
}

// BootstrapFlowSchemas returns new copies of the default FlowSchemas, in upstream's order.
func BootstrapFlowSchemas() []*flowcontrolv1.FlowSchema {
	byUser, byNS := flowcontrolv1.FlowDistinguisherMethodByUserType, flowcontrolv1.FlowDistinguisherMethodByNamespaceType
	gcu := []string{"get", "create", "update"}
	every := []string{flowcontrolv1.NamespaceEvery}
	return []*flowcontrolv1.FlowSchema{
		flowSchema("exempt", "exempt", 1, "", allOf(groups(GroupSystemMasters))),
		flowSchema("probes", "exempt", 2, "", flowcontrolv1.PolicyRulesWithSubjects{
			Subjects:         groups(GroupUnauthenticated, GroupAuthenticated),
			NonResourceRules: []flowcontrolv1.NonResourcePolicyRule{{Verbs: []string{"get"}, NonResourceURLs: []string{"/healthz", "/readyz", "/livez"}}}}),
		flowSchema("system-leader-election", "leader-election", 100, byUser, flowcontrolv1.PolicyRulesWithSubjects{
			Subjects:      append(users(UserKubeControllerManager, UserKubeScheduler), kubeSystemServiceAccounts()...),
			ResourceRules: []flowcontrolv1.ResourcePolicyRule{verbsOn(every, false, gcu, "coordination.k8s.io", "leases")}}),
		flowSchema("endpoint-controller", "workload-high", 150, byUser, flowcontrolv1.PolicyRulesWithSubjects{
			Subjects: append(users(UserKubeControllerManager), flowcontrolv1.Subject{Kind: flowcontrolv1.SubjectKindServiceAccount,
				ServiceAccount: &flowcontrolv1.ServiceAccountSubject{Namespace: metav1.NamespaceSystem, Name: "endpoint-controller"}}),
			ResourceRules: []flowcontrolv1.ResourcePolicyRule{verbsOn(every, false, gcu, "", "endpoints")}}),
		flowSchema("workload-leader-election", "leader-election", 200, byUser, flowcontrolv1.PolicyRulesWithSubjects{
			Subjects:      kubeSystemServiceAccounts(),
			ResourceRules: []flowcontrolv1.ResourcePolicyRule{verbsOn(every, false, gcu, "coordination.k8s.io", "leases")}}),
		flowSchema("system-node-high", "node-high", 400, byUser, flowcontrolv1.PolicyRulesWithSubjects{
			Subjects: groups(GroupNodes),
			ResourceRules: []flowcontrolv1.ResourcePolicyRule{
				verbsOn(nil, true, []string{flowcontrolv1.VerbAll}, "", "nodes", "nodes/status"),
				verbsOn(every, false, []string{flowcontrolv1.VerbAll}, "coordination.k8s.io", "leases"),
			}}),
		flowSchema("system-nodes", "system", 500, byUser, allOf(groups(GroupNodes))),
		flowSchema("kube-controller-manager", "workload-high", 800, byNS, allOf(users(UserKubeControllerManager))),
		flowSchema("kube-scheduler", "workload-high", 800, byNS, allOf(users(UserKubeScheduler))),
		flowSchema("kube-system-service-accounts", "workload-high", 900, byNS, allOf(kubeSystemServiceAccounts())),
		flowSchema("service-accounts", "workload-low", 9000, byUser, allOf(groups(GroupServiceAccounts))),
		flowSchema("global-default", "global-default", 9900, byUser, allOf(groups(GroupUnauthenticated, GroupAuthenticated))),
		flowSchema("catch-all", "catch-all", 10000, byUser, allOf(groups(GroupUnauthenticated, GroupAuthenticated))),
	}
}
