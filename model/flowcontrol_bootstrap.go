package model

import (
	"fmt"
	"strconv"

	"k8s.io/apimachinery/pkg/api/equality"
)

// Well-known user and group names the bootstrap flow schemas match ([apiserver@HEAD]
// pkg/authentication/user/user.go).
const (
	UserKubeControllerManager = "system:kube-controller-manager"
	UserKubeScheduler         = "system:kube-scheduler"
	GroupSystemMasters        = "system:masters"
	GroupNodes                = "system:nodes"
	GroupAuthenticated        = "system:authenticated"
	GroupUnauthenticated      = "system:unauthenticated"
	GroupServiceAccounts      = "system:serviceaccounts"
)

// The bootstrap configuration objects of API Priority and Fairness
// ([apiserver@v0.37] pkg/apis/flowcontrol/bootstrap/default.go: MandatoryPriorityLevelConfiguration*,
// SuggestedPriorityLevelConfiguration*, MandatoryFlowSchema*, SuggestedFlowSchema*; the
// values are those of k8s 1.29 through 1.37, unchanged since flowcontrol/v1 went GA in 1.29,
// KEP-1040). None sets borrowingLimitPercent.

func queuingPL(name string, shares, lendable, queues, handSize, queueLength int32) *PriorityLevelConfiguration {
	return &PriorityLevelConfiguration{
		ObjectMeta: ObjectMeta{Name: name},
		Spec: PriorityLevelConfigurationSpec{
			Type: PriorityLevelEnablementLimited,
			Limited: &LimitedPriorityLevelConfiguration{
				NominalConcurrencyShares: Ptr[int32](shares),
				LendablePercent:          Ptr[int32](lendable),
				LimitResponse: LimitResponse{
					Type:    LimitResponseTypeQueue,
					Queuing: &QueuingConfiguration{Queues: queues, HandSize: handSize, QueueLengthLimit: queueLength},
				},
			},
		},
	}
}

// BootstrapPriorityLevels returns new copies of the default PriorityLevelConfigurations, in
// the order upstream lists them.
func BootstrapPriorityLevels() []*PriorityLevelConfiguration {
	exempt := &PriorityLevelConfiguration{
		ObjectMeta: ObjectMeta{Name: PriorityLevelConfigurationNameExempt},
		Spec: PriorityLevelConfigurationSpec{
			Type:   PriorityLevelEnablementExempt,
			Exempt: &ExemptPriorityLevelConfiguration{NominalConcurrencyShares: Ptr[int32](0), LendablePercent: Ptr[int32](0)},
		},
	}
	catchAll := &PriorityLevelConfiguration{
		ObjectMeta: ObjectMeta{Name: PriorityLevelConfigurationNameCatchAll},
		Spec: PriorityLevelConfigurationSpec{
			Type: PriorityLevelEnablementLimited,
			Limited: &LimitedPriorityLevelConfiguration{
				NominalConcurrencyShares: Ptr[int32](5),
				LendablePercent:          Ptr[int32](0),
				LimitResponse:            LimitResponse{Type: LimitResponseTypeReject},
			},
		},
	}
	return []*PriorityLevelConfiguration{
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

func apfUsers(names ...string) []Subject {
	out := make([]Subject, len(names))
	for i, n := range names {
		out[i] = Subject{Kind: SubjectKindUser, User: &UserSubject{Name: n}}
	}
	return out
}

func apfGroups(names ...string) []Subject {
	out := make([]Subject, len(names))
	for i, n := range names {
		out[i] = Subject{Kind: SubjectKindGroup, Group: &GroupSubject{Name: n}}
	}
	return out
}

func kubeSystemServiceAccounts() []Subject {
	return []Subject{{Kind: SubjectKindServiceAccount,
		ServiceAccount: &ServiceAccountSubject{Namespace: "kube-system", Name: NameAll}}}
}

func apfRuleAll() []ResourcePolicyRule {
	return []ResourcePolicyRule{{Verbs: []string{VerbAll}, APIGroups: []string{APIGroupAll},
		Resources: []string{ResourceAll}, ClusterScope: true, Namespaces: []string{NamespaceEvery}}}
}

func apfNonResourceAll() []NonResourcePolicyRule {
	return []NonResourcePolicyRule{{Verbs: []string{VerbAll}, NonResourceURLs: []string{NonResourceAll}}}
}

func bootFlowSchema(name, pl string, precedence int32, dm FlowDistinguisherMethodType, rules ...PolicyRulesWithSubjects) *FlowSchema {
	fs := &FlowSchema{
		ObjectMeta: ObjectMeta{Name: name},
		Spec: FlowSchemaSpec{
			PriorityLevelConfiguration: PriorityLevelConfigurationReference{Name: pl},
			MatchingPrecedence:         precedence,
			Rules:                      rules,
		},
	}
	if dm != "" {
		fs.Spec.DistinguisherMethod = &FlowDistinguisherMethod{Type: dm}
	}
	return fs
}

func apfAllOf(subjects []Subject) PolicyRulesWithSubjects {
	return PolicyRulesWithSubjects{Subjects: subjects, ResourceRules: apfRuleAll(), NonResourceRules: apfNonResourceAll()}
}

func apfVerbsOn(namespaces []string, clusterScope bool, verbs []string, group string, resources ...string) ResourcePolicyRule {
	return ResourcePolicyRule{Verbs: verbs, APIGroups: []string{group}, Resources: resources, Namespaces: namespaces, ClusterScope: clusterScope}
}

// BootstrapFlowSchemas returns new copies of the default FlowSchemas, in upstream's order.
func BootstrapFlowSchemas() []*FlowSchema {
	byUser, byNS := FlowDistinguisherMethodByUserType, FlowDistinguisherMethodByNamespaceType
	gcu := []string{"get", "create", "update"}
	every := []string{NamespaceEvery}
	return []*FlowSchema{
		bootFlowSchema("exempt", "exempt", 1, "", apfAllOf(apfGroups(GroupSystemMasters))),
		bootFlowSchema("probes", "exempt", 2, "", PolicyRulesWithSubjects{
			Subjects:         apfGroups(GroupUnauthenticated, GroupAuthenticated),
			NonResourceRules: []NonResourcePolicyRule{{Verbs: []string{"get"}, NonResourceURLs: []string{"/healthz", "/readyz", "/livez"}}}}),
		bootFlowSchema("system-leader-election", "leader-election", 100, byUser, PolicyRulesWithSubjects{
			Subjects:      append(apfUsers(UserKubeControllerManager, UserKubeScheduler), kubeSystemServiceAccounts()...),
			ResourceRules: []ResourcePolicyRule{apfVerbsOn(every, false, gcu, "coordination.k8s.io", "leases")}}),
		bootFlowSchema("endpoint-controller", "workload-high", 150, byUser, PolicyRulesWithSubjects{
			Subjects: append(apfUsers(UserKubeControllerManager), Subject{Kind: SubjectKindServiceAccount,
				ServiceAccount: &ServiceAccountSubject{Namespace: "kube-system", Name: "endpoint-controller"}}),
			ResourceRules: []ResourcePolicyRule{apfVerbsOn(every, false, gcu, "", "endpoints")}}),
		bootFlowSchema("workload-leader-election", "leader-election", 200, byUser, PolicyRulesWithSubjects{
			Subjects:      kubeSystemServiceAccounts(),
			ResourceRules: []ResourcePolicyRule{apfVerbsOn(every, false, gcu, "coordination.k8s.io", "leases")}}),
		bootFlowSchema("system-node-high", "node-high", 400, byUser, PolicyRulesWithSubjects{
			Subjects: apfGroups(GroupNodes),
			ResourceRules: []ResourcePolicyRule{
				apfVerbsOn(nil, true, []string{VerbAll}, "", "nodes", "nodes/status"),
				apfVerbsOn(every, false, []string{VerbAll}, "coordination.k8s.io", "leases"),
			}}),
		bootFlowSchema("system-nodes", "system", 500, byUser, apfAllOf(apfGroups(GroupNodes))),
		bootFlowSchema("kube-controller-manager", "workload-high", 800, byNS, apfAllOf(apfUsers(UserKubeControllerManager))),
		bootFlowSchema("kube-scheduler", "workload-high", 800, byNS, apfAllOf(apfUsers(UserKubeScheduler))),
		bootFlowSchema("kube-system-service-accounts", "workload-high", 900, byNS, apfAllOf(kubeSystemServiceAccounts())),
		bootFlowSchema("service-accounts", "workload-low", 9000, byUser, apfAllOf(apfGroups(GroupServiceAccounts))),
		bootFlowSchema("global-default", "global-default", 9900, byUser, apfAllOf(apfGroups(GroupUnauthenticated, GroupAuthenticated))),
		bootFlowSchema("catch-all", "catch-all", 10000, byUser, apfAllOf(apfGroups(GroupUnauthenticated, GroupAuthenticated))),
	}
}

// mandatoryFlowSchema returns a new copy of the mandatory FlowSchema of that name (exempt or
// catch-all), or nil.
func mandatoryFlowSchema(name string) *FlowSchema {
	switch name {
	case FlowSchemaNameExempt, FlowSchemaNameCatchAll:
		for _, fs := range BootstrapFlowSchemas() {
			if fs.Name == name {
				return fs
			}
		}
	}
	return nil
}

// IsMandatoryAPFObject reports whether name is a mandatory configuration object (exempt or
// catch-all, of either kind): kube-apiserver's ensurer always resets their spec
// ([k8s] pkg/registry/flowcontrol/ensurer/strategy.go newMandatoryEnsureStrategy).
func IsMandatoryAPFObject(name string) bool {
	return name == PriorityLevelConfigurationNameExempt || name == PriorityLevelConfigurationNameCatchAll
}

// APFAutoUpdateSpec is the bootstrap ensurer's decision for a stored object that has the
// name of a suggested configuration object ([k8s] pkg/registry/flowcontrol/ensurer/strategy.go
// shouldUpdateSpec): the apf.kubernetes.io/autoupdate-spec annotation when it parses as a
// boolean (strconv.ParseBool), else true only while the object's spec was never changed
// (generation 1).
func APFAutoUpdateSpec(meta *ObjectMeta) bool {
	if auto, ok := autoUpdateAnnotation(meta.Annotations[AutoUpdateAnnotationKey]); ok {
		return auto
	}
	return meta.Generation == 1
}

// autoUpdateAnnotation reads the value of an apf.kubernetes.io/autoupdate-spec annotation
// the way the ensurer does (strconv.ParseBool); ok is false when it is missing or no boolean.
func autoUpdateAnnotation(value string) (auto, ok bool) {
	auto, err := strconv.ParseBool(value)
	return auto, err == nil
}

// autoUpdates reports whether an autoupdate-spec annotation's value reads as true.
func autoUpdates(value string) bool {
	auto, ok := autoUpdateAnnotation(value)
	return ok && auto
}

// APFEnsurerKeeps reports whether kube-apiserver's bootstrap ensurer leaves a stored
// FlowSchema or PriorityLevelConfiguration as it is ([k8s] pkg/registry/flowcontrol/ensurer):
// one named like a bootstrap object (bootstrap true) when it is not mandatory and
// APFAutoUpdateSpec is false (strategy.go ShouldUpdate); one of another name unless its
// autoupdate annotation parses as true (getRemoveCandidate and removeConfiguration delete it).
func APFEnsurerKeeps(meta *ObjectMeta, bootstrap bool) bool {
	if bootstrap {
		return !IsMandatoryAPFObject(meta.Name) && !APFAutoUpdateSpec(meta)
	}
	return !autoUpdates(meta.Annotations[AutoUpdateAnnotationKey])
}

// APFEnsurerIgnores says why kube-apiserver's bootstrap ensurer would keep obj, a FlowSchema
// or PriorityLevelConfiguration about to be created (generation 1), from configuring API
// Priority and Fairness, or returns "" when it would not (or obj is of another kind): a
// mandatory object's spec is always reset, a suggested object's unless shouldUpdateSpec says
// otherwise (APFAutoUpdateSpec), and an object of another name annotated "true" is deleted
// ([k8s] pkg/registry/flowcontrol/ensurer/strategy.go). An object whose spec equals the
// bootstrap one is used either way.
func APFEnsurerIgnores(obj Object) string {
	var spec, bootSpec any
	switch o := obj.(type) {
	case *FlowSchema:
		for _, b := range BootstrapFlowSchemas() {
			if b.Name == o.Name {
				spec, bootSpec = o.Spec, b.Spec
			}
		}
	case *PriorityLevelConfiguration:
		for _, b := range BootstrapPriorityLevels() {
			if b.Name == o.Name {
				spec, bootSpec = o.Spec, b.Spec
			}
		}
	default:
		return ""
	}
	m := obj.Meta()
	created := *m
	created.Generation = 1
	switch {
	case bootSpec == nil:
		if !APFEnsurerKeeps(&created, false) {
			return fmt.Sprintf("it is annotated %s: \"true\" but is not a bootstrap object, so kube-apiserver's bootstrap ensurer deletes it", AutoUpdateAnnotationKey)
		}
	case equality.Semantic.DeepEqual(spec, bootSpec):
	case IsMandatoryAPFObject(m.Name):
		return "it is a mandatory configuration object, whose spec kube-apiserver's bootstrap ensurer always resets to the built-in one"
	case !APFEnsurerKeeps(&created, true):
		return fmt.Sprintf("it has the name of a suggested configuration object, whose spec kube-apiserver's bootstrap ensurer resets to the built-in one unless it is annotated %s: \"false\"", AutoUpdateAnnotationKey)
	}
	return ""
}

// isBootstrapAPFName reports whether a bootstrap object of kind has that name.
func isBootstrapAPFName(kind Kind, name string) bool {
	if kind == KindFlowSchema {
		for _, fs := range BootstrapFlowSchemas() {
			if fs.Name == name {
				return true
			}
		}
		return false
	}
	for _, pl := range BootstrapPriorityLevels() {
		if pl.Name == name {
			return true
		}
	}
	return false
}
