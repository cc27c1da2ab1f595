package model

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/api/equality"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// flowcontrol.apiserver.k8s.io/v1 kinds, the configuration of API Priority and Fairness:
// field names and JSON names as in k8s.io/api flowcontrol/v1/types.go. The status (the
// config controller's Dangling condition) is not modelled.

// ---- FlowSchema ----

// FlowSchema is flowcontrol.apiserver.k8s.io/v1 FlowSchema: which requests (by subject, verb,
// resource and namespace) go to which priority level, and how they are split into flows.
type FlowSchema struct {
	ObjectMeta `json:"metadata,omitempty"`
	Spec       FlowSchemaSpec `json:"spec,omitempty"`
}

// FlowSchemaSpec is the schema's match and target.
type FlowSchemaSpec struct {
	// PriorityLevelConfiguration names the level matching requests go to (required).
	PriorityLevelConfiguration PriorityLevelConfigurationReference `json:"priorityLevelConfiguration"`
	// MatchingPrecedence orders the schemas: the lowest that matches wins (1-10000; default
	// 1000).
	MatchingPrecedence int32 `json:"matchingPrecedence,omitempty"`
	// DistinguisherMethod splits matching requests into flows by user or namespace; nil: one
	// flow.
	DistinguisherMethod *FlowDistinguisherMethod `json:"distinguisherMethod,omitempty"`
	// Rules: a request matches if any rule does.
	Rules []PolicyRulesWithSubjects `json:"rules,omitempty"`
}

// FlowDistinguisherMethodType is ByUser or ByNamespace.
type FlowDistinguisherMethodType string

// FlowDistinguisherMethod is how a schema's requests are split into flows.
type FlowDistinguisherMethod struct {
	Type FlowDistinguisherMethodType `json:"type"`
}

// PriorityLevelConfigurationReference names a PriorityLevelConfiguration.
type PriorityLevelConfigurationReference struct {
	Name string `json:"name"`
}

// PolicyRulesWithSubjects matches a request whose subject is one of Subjects and that one of
// the resource or non-resource rules matches.
type PolicyRulesWithSubjects struct {
	Subjects         []Subject               `json:"subjects"`
	ResourceRules    []ResourcePolicyRule    `json:"resourceRules,omitempty"`
	NonResourceRules []NonResourcePolicyRule `json:"nonResourceRules,omitempty"`
}

// SubjectKind is User, Group or ServiceAccount.
type SubjectKind string

// Subject is who made a request: exactly the member its Kind names is set.
type Subject struct {
	Kind           SubjectKind            `json:"kind"`
	User           *UserSubject           `json:"user,omitempty"`
	Group          *GroupSubject          `json:"group,omitempty"`
	ServiceAccount *ServiceAccountSubject `json:"serviceAccount,omitempty"`
}

// UserSubject is a user by name ("*": every user).
type UserSubject struct {
	Name string `json:"name"`
}

// GroupSubject is a group by name ("*": every group).
type GroupSubject struct {
	Name string `json:"name"`
}

// ServiceAccountSubject is a service account ("*" as Name: every one in Namespace).
type ServiceAccountSubject struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
}

// ResourcePolicyRule matches a resource request by verb, API group, resource (with
// subresource, "pods/status") and namespace; ClusterScope matches requests with no namespace.
type ResourcePolicyRule struct {
	Verbs        []string `json:"verbs"`
	APIGroups    []string `json:"apiGroups"`
	Resources    []string `json:"resources"`
	ClusterScope bool     `json:"clusterScope,omitempty"`
	Namespaces   []string `json:"namespaces"`
}

// NonResourcePolicyRule matches a request for a non-resource URL (/healthz, ...).
type NonResourcePolicyRule struct {
	Verbs           []string `json:"verbs"`
	NonResourceURLs []string `json:"nonResourceURLs"`
}

// ---- PriorityLevelConfiguration ----

// PriorityLevelConfiguration is flowcontrol.apiserver.k8s.io/v1 PriorityLevelConfiguration:
// a priority level, its share of the server's concurrency and what happens to requests past
// it.
type PriorityLevelConfiguration struct {
	ObjectMeta `json:"metadata,omitempty"`
	Spec       PriorityLevelConfigurationSpec `json:"spec,omitempty"`
}

// PriorityLevelEnablement is Exempt or Limited.
type PriorityLevelEnablement string

// PriorityLevelConfigurationSpec is a level's type and its settings.
type PriorityLevelConfigurationSpec struct {
	Type    PriorityLevelEnablement            `json:"type"`
	Limited *LimitedPriorityLevelConfiguration `json:"limited,omitempty"`
	Exempt  *ExemptPriorityLevelConfiguration  `json:"exempt,omitempty"`
}

// LimitedPriorityLevelConfiguration is a limited level's shares, lending, borrowing and
// limit response.
type LimitedPriorityLevelConfiguration struct {
	// NominalConcurrencyShares is the level's share of the server's seats (default 30).
	NominalConcurrencyShares *int32 `json:"nominalConcurrencyShares,omitempty"`
	// LimitResponse is what happens to a request that cannot run at once.
	LimitResponse LimitResponse `json:"limitResponse,omitempty"`
	// LendablePercent of the nominal seats other levels may borrow (default 0).
	LendablePercent *int32 `json:"lendablePercent,omitempty"`
	// BorrowingLimitPercent bounds what the level may borrow; nil: no limit.
	BorrowingLimitPercent *int32 `json:"borrowingLimitPercent,omitempty"`
}

// ExemptPriorityLevelConfiguration is the exempt level's shares and lending (both default 0).
type ExemptPriorityLevelConfiguration struct {
	NominalConcurrencyShares *int32 `json:"nominalConcurrencyShares,omitempty"`
	LendablePercent          *int32 `json:"lendablePercent,omitempty"`
}

// LimitResponseType is Queue or Reject.
type LimitResponseType string

// LimitResponse is Reject (answer 429 at once) or Queue (with Queuing).
type LimitResponse struct {
	Type    LimitResponseType     `json:"type"`
	Queuing *QueuingConfiguration `json:"queuing,omitempty"`
}

// QueuingConfiguration is a level's fair queuing: the number of queues, the hand size of
// shuffle sharding and the queue length limit (defaults 64, 8 and 50).
type QueuingConfiguration struct {
	Queues           int32 `json:"queues,omitempty"`
	HandSize         int32 `json:"handSize,omitempty"`
	QueueLengthLimit int32 `json:"queueLengthLimit,omitempty"`
}

// The values of the enumerations and the wildcards (k8s.io/api flowcontrol/v1/types.go).
const (
	FlowDistinguisherMethodByUserType      FlowDistinguisherMethodType = "ByUser"
	FlowDistinguisherMethodByNamespaceType FlowDistinguisherMethodType = "ByNamespace"

	SubjectKindUser           SubjectKind = "User"
	SubjectKindGroup          SubjectKind = "Group"
	SubjectKindServiceAccount SubjectKind = "ServiceAccount"

	PriorityLevelEnablementExempt  PriorityLevelEnablement = "Exempt"
	PriorityLevelEnablementLimited PriorityLevelEnablement = "Limited"

	LimitResponseTypeQueue  LimitResponseType = "Queue"
	LimitResponseTypeReject LimitResponseType = "Reject"

	// The wildcards of subjects and rules.
	NameAll        = "*"
	APIGroupAll    = "*"
	ResourceAll    = "*"
	VerbAll        = "*"
	NonResourceAll = "*"
	NamespaceEvery = "*"

	// The mandatory objects' names: the exempt level and schema, and the catch-all ones.
	PriorityLevelConfigurationNameExempt   = "exempt"
	PriorityLevelConfigurationNameCatchAll = "catch-all"
	FlowSchemaNameExempt                   = "exempt"
	FlowSchemaNameCatchAll                 = "catch-all"

	// AutoUpdateAnnotationKey marks the objects kube-apiserver's bootstrap ensurer keeps
	// equal to its built-in configuration ("true") or leaves alone ("false").
	AutoUpdateAnnotationKey = "apf.kubernetes.io/autoupdate-spec"

	// FlowSchemaMaxMatchingPrecedence is the largest matchingPrecedence.
	FlowSchemaMaxMatchingPrecedence int32 = 10000
)

// The defaults of [k8s] pkg/apis/flowcontrol/v1/defaults.go.
const (
	FlowSchemaDefaultMatchingPrecedence                       int32 = 1000
	PriorityLevelConfigurationDefaultHandSize                 int32 = 8
	PriorityLevelConfigurationDefaultQueues                   int32 = 64
	PriorityLevelConfigurationDefaultQueueLengthLimit         int32 = 50
	PriorityLevelConfigurationDefaultNominalConcurrencyShares int32 = 30
)

// GetKind returns KindFlowSchema.
func (o *FlowSchema) GetKind() Kind { return KindFlowSchema }

// DeepCopyObject returns a deep copy.
func (o *FlowSchema) DeepCopyObject() Object { return o.DeepCopy() }

// DeepCopy returns a deep copy.
func (o *FlowSchema) DeepCopy() *FlowSchema {
	if o == nil {
		return nil
	}
	out := copyWithMeta(o)
	out.Spec.DistinguisherMethod = CopyPtr(o.Spec.DistinguisherMethod)
	out.Spec.Rules = copyEach(o.Spec.Rules, func(r PolicyRulesWithSubjects) PolicyRulesWithSubjects {
		return PolicyRulesWithSubjects{
			Subjects: copyEach(r.Subjects, func(s Subject) Subject {
				return Subject{Kind: s.Kind, User: CopyPtr(s.User), Group: CopyPtr(s.Group), ServiceAccount: CopyPtr(s.ServiceAccount)}
			}),
			ResourceRules: copyEach(r.ResourceRules, func(rr ResourcePolicyRule) ResourcePolicyRule {
				return ResourcePolicyRule{Verbs: copySlice(rr.Verbs), APIGroups: copySlice(rr.APIGroups),
					Resources: copySlice(rr.Resources), ClusterScope: rr.ClusterScope, Namespaces: copySlice(rr.Namespaces)}
			}),
			NonResourceRules: copyEach(r.NonResourceRules, func(nr NonResourcePolicyRule) NonResourcePolicyRule {
				return NonResourcePolicyRule{Verbs: copySlice(nr.Verbs), NonResourceURLs: copySlice(nr.NonResourceURLs)}
			}),
		}
	})
	return out
}

// SetDefaults is SetDefaults_FlowSchemaSpec ([k8s] pkg/apis/flowcontrol/v1/defaults.go):
// matchingPrecedence 0 becomes 1000.
func (o *FlowSchema) SetDefaults() {
	if o.Spec.MatchingPrecedence == 0 {
		o.Spec.MatchingPrecedence = FlowSchemaDefaultMatchingPrecedence
	}
}

// GetKind returns KindPriorityLevelConfiguration.
func (o *PriorityLevelConfiguration) GetKind() Kind { return KindPriorityLevelConfiguration }

// DeepCopyObject returns a deep copy.
func (o *PriorityLevelConfiguration) DeepCopyObject() Object { return o.DeepCopy() }

// DeepCopy returns a deep copy.
func (o *PriorityLevelConfiguration) DeepCopy() *PriorityLevelConfiguration {
	if o == nil {
		return nil
	}
	out := copyWithMeta(o)
	if l := o.Spec.Limited; l != nil {
		c := *l
		c.NominalConcurrencyShares = CopyPtr(l.NominalConcurrencyShares)
		c.LendablePercent = CopyPtr(l.LendablePercent)
		c.BorrowingLimitPercent = CopyPtr(l.BorrowingLimitPercent)
		c.LimitResponse.Queuing = CopyPtr(l.LimitResponse.Queuing)
		out.Spec.Limited = &c
	}
	if e := o.Spec.Exempt; e != nil {
		out.Spec.Exempt = &ExemptPriorityLevelConfiguration{NominalConcurrencyShares: CopyPtr(e.NominalConcurrencyShares), LendablePercent: CopyPtr(e.LendablePercent)}
	}
	return out
}

// SetDefaults is [k8s] pkg/apis/flowcontrol/v1/defaults.go: an exempt level's shares and
// lendablePercent default to 0; a limited level's nominalConcurrencyShares to 30 and
// lendablePercent to 0; a queuing configuration's queues, handSize and queueLengthLimit to
// 64, 8 and 50.
func (o *PriorityLevelConfiguration) SetDefaults() {
	if e := o.Spec.Exempt; e != nil {
		if e.NominalConcurrencyShares == nil {
			e.NominalConcurrencyShares = Ptr[int32](0)
		}
		if e.LendablePercent == nil {
			e.LendablePercent = Ptr[int32](0)
		}
	}
	if l := o.Spec.Limited; l != nil {
		if l.NominalConcurrencyShares == nil {
			l.NominalConcurrencyShares = Ptr(PriorityLevelConfigurationDefaultNominalConcurrencyShares)
		}
		if l.LendablePercent == nil {
			l.LendablePercent = Ptr[int32](0)
		}
		if q := l.LimitResponse.Queuing; q != nil {
			q.HandSize = cmp.Or(q.HandSize, PriorityLevelConfigurationDefaultHandSize)
			q.Queues = cmp.Or(q.Queues, PriorityLevelConfigurationDefaultQueues)
			q.QueueLengthLimit = cmp.Or(q.QueueLengthLimit, PriorityLevelConfigurationDefaultQueueLengthLimit)
		}
	}
}

// ---- validation ----

// The rules and messages below are [k8s] pkg/apis/flowcontrol/validation/validation.go
// (ValidateFlowSchema, ValidatePriorityLevelConfiguration and their helpers) for the spec;
// the metadata (a DNS subdomain name, cluster-scoped) is checked by Validate's caller.

// supportedVerbs are the verbs a rule may name (validation.go supportedVerbs).
var supportedVerbs = []string{"create", "delete", "deletecollection", "get", "list", "patch", "proxy", "update", "watch"}

// maxQueues is priorityLevelConfigurationQueuingMaxQueues (10^7).
const maxQueues int32 = 10_000_000

// maxHashBits is shufflesharding.MaxHashBits: a hand is dealt from 60 bits of hash.
const maxHashBits = 60

// Validate is ValidateFlowSchema for the spec: matchingPrecedence in 1-10000 and 1 only
// for the schema named exempt, a supported distinguisher, a priority level named, each
// rule's subjects and rules; the mandatory schemas (exempt, catch-all) must equal their
// fixed spec.
func (o *FlowSchema) Validate() field.ErrorList {
	var errs field.ErrorList
	spec := specPath
	mp := spec.Child("matchingPrecedence")
	if o.Spec.MatchingPrecedence <= 0 {
		errs = append(errs, field.Invalid(mp, o.Spec.MatchingPrecedence, "must be a positive value"))
	}
	if o.Spec.MatchingPrecedence > FlowSchemaMaxMatchingPrecedence {
		errs = append(errs, field.Invalid(mp, o.Spec.MatchingPrecedence, fmt.Sprintf("must not be greater than %v", FlowSchemaMaxMatchingPrecedence)))
	}
	if o.Spec.MatchingPrecedence == 1 && o.Name != FlowSchemaNameExempt {
		errs = append(errs, field.Invalid(mp, o.Spec.MatchingPrecedence, "only the schema named 'exempt' may have matchingPrecedence 1"))
	}
	if dm := o.Spec.DistinguisherMethod; dm != nil && dm.Type != FlowDistinguisherMethodByUserType && dm.Type != FlowDistinguisherMethodByNamespaceType {
		errs = append(errs, field.NotSupported(spec.Child("distinguisherMethod", "type"), dm.Type,
			[]string{string(FlowDistinguisherMethodByNamespaceType), string(FlowDistinguisherMethodByUserType)}))
	}
	plName := spec.Child("priorityLevelConfiguration", "name")
	if n := o.Spec.PriorityLevelConfiguration.Name; n == "" {
		errs = append(errs, field.Required(plName, "must reference a priority level"))
	} else {
		for _, msg := range nameIsDNSSubdomain(n, false) {
			errs = append(errs, field.Invalid(plName, n, msg))
		}
	}
	for i := range o.Spec.Rules {
		errs = append(errs, validatePolicyRulesWithSubjects(&o.Spec.Rules[i], spec.Child("rules").Index(i))...)
	}
	if mand := mandatoryFlowSchema(o.Name); mand != nil && len(errs) == 0 && !equality.Semantic.DeepEqual(o.Spec, mand.Spec) {
		errs = append(errs, field.Invalid(spec, field.OmitValueType{}, fmt.Sprintf("spec of '%s' must equal the fixed value", o.Name)))
	}
	return errs
}

func validatePolicyRulesWithSubjects(rule *PolicyRulesWithSubjects, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if len(rule.Subjects) == 0 {
		errs = append(errs, field.Required(p.Child("subjects"), "subjects must contain at least one value"))
	}
	for i := range rule.Subjects {
		errs = append(errs, validateSubject(&rule.Subjects[i], p.Child("subjects").Index(i))...)
	}
	if len(rule.ResourceRules) == 0 && len(rule.NonResourceRules) == 0 {
		errs = append(errs, field.Required(p, "at least one of resourceRules and nonResourceRules has to be non-empty"))
	}
	for i := range rule.ResourceRules {
		errs = append(errs, validateResourcePolicyRule(&rule.ResourceRules[i], p.Child("resourceRules").Index(i))...)
	}
	for i := range rule.NonResourceRules {
		errs = append(errs, validateNonResourcePolicyRule(&rule.NonResourceRules[i], p.Child("nonResourceRules").Index(i))...)
	}
	return errs
}

// validateSubject is ValidateFlowSchemaSubject: the member the kind names is required, the
// others forbidden.
func validateSubject(s *Subject, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	forbidUser := func() {
		if s.User != nil {
			errs = append(errs, field.Forbidden(p.Child("user"), "user is forbidden when subject kind is not 'User'"))
		}
	}
	forbidGroup := func() {
		if s.Group != nil {
			errs = append(errs, field.Forbidden(p.Child("group"), "group is forbidden when subject kind is not 'Group'"))
		}
	}
	forbidSA := func() {
		if s.ServiceAccount != nil {
			errs = append(errs, field.Forbidden(p.Child("serviceAccount"), "serviceAccount is forbidden when subject kind is not 'ServiceAccount'"))
		}
	}
	switch s.Kind {
	case SubjectKindServiceAccount:
		sp := p.Child("serviceAccount")
		if sa := s.ServiceAccount; sa == nil {
			errs = append(errs, field.Required(sp, "serviceAccount is required when subject kind is 'ServiceAccount'"))
		} else {
			if sa.Name == "" {
				errs = append(errs, field.Required(sp.Child("name"), ""))
			} else if sa.Name != NameAll {
				for _, msg := range apivalidation.ValidateServiceAccountName(sa.Name, false) {
					errs = append(errs, field.Invalid(sp.Child("name"), sa.Name, msg))
				}
			}
			if sa.Namespace == "" {
				errs = append(errs, field.Required(sp.Child("namespace"), "must specify namespace for service account"))
			} else {
				for _, msg := range apivalidation.ValidateNamespaceName(sa.Namespace, false) {
					errs = append(errs, field.Invalid(sp.Child("namespace"), sa.Namespace, msg))
				}
			}
		}
		forbidUser()
		forbidGroup()
	case SubjectKindUser:
		if s.User == nil {
			errs = append(errs, field.Required(p.Child("user"), "user is required when subject kind is 'User'"))
		} else if s.User.Name == "" {
			errs = append(errs, field.Required(p.Child("user", "name"), ""))
		}
		forbidSA()
		forbidGroup()
	case SubjectKindGroup:
		if s.Group == nil {
			errs = append(errs, field.Required(p.Child("group"), "group is required when subject kind is 'Group'"))
		} else if s.Group.Name == "" {
			errs = append(errs, field.Required(p.Child("group", "name"), ""))
		}
		forbidSA()
		forbidUser()
	default:
		errs = append(errs, field.NotSupported(p.Child("kind"), s.Kind, []string{string(SubjectKindGroup), string(SubjectKindServiceAccount), string(SubjectKindUser)}))
	}
	return errs
}

// validateVerbs is the verbs check both kinds of rule share.
func validateVerbs(verbs []string, p *field.Path) field.ErrorList {
	switch {
	case len(verbs) == 0:
		return field.ErrorList{field.Required(p, "verbs must contain at least one value")}
	case slices.Contains(verbs, VerbAll):
		if len(verbs) > 1 {
			return field.ErrorList{field.Invalid(p, verbs, "if '*' is present, must not specify other verbs")}
		}
	default:
		for _, v := range verbs {
			if !slices.Contains(supportedVerbs, v) {
				return field.ErrorList{field.NotSupported(p, verbs, supportedVerbs)}
			}
		}
	}
	return nil
}

// validateResourcePolicyRule is ValidateFlowSchemaResourcePolicyRule.
func validateResourcePolicyRule(r *ResourcePolicyRule, p *field.Path) field.ErrorList {
	errs := validateVerbs(r.Verbs, p.Child("verbs"))
	if len(r.APIGroups) == 0 {
		errs = append(errs, field.Required(p.Child("apiGroups"), "resource rules must supply at least one api group"))
	} else if len(r.APIGroups) > 1 && slices.Contains(r.APIGroups, APIGroupAll) {
		errs = append(errs, field.Invalid(p.Child("apiGroups"), r.APIGroups, "if '*' is present, must not specify other api groups"))
	}
	if len(r.Resources) == 0 {
		errs = append(errs, field.Required(p.Child("resources"), "resource rules must supply at least one resource"))
	} else if len(r.Resources) > 1 && slices.Contains(r.Resources, ResourceAll) {
		errs = append(errs, field.Invalid(p.Child("resources"), r.Resources, "if '*' is present, must not specify other resources"))
	}
	switch {
	case len(r.Namespaces) == 0 && !r.ClusterScope:
		errs = append(errs, field.Required(p.Child("namespaces"), "resource rules that are not cluster scoped must supply at least one namespace"))
	case slices.Contains(r.Namespaces, NamespaceEvery):
		if len(r.Namespaces) > 1 {
			errs = append(errs, field.Invalid(p.Child("namespaces"), r.Namespaces, "if '*' is present, must not specify other namespaces"))
		}
	default:
		for i, ns := range r.Namespaces {
			for _, msg := range apivalidation.ValidateNamespaceName(ns, false) {
				errs = append(errs, field.Invalid(p.Child("namespaces").Index(i), ns, "each member of this list must be '*' or a DNS-1123 label; "+msg))
			}
		}
	}
	return errs
}

// validateNonResourcePolicyRule is ValidateFlowSchemaNonResourcePolicyRule.
func validateNonResourcePolicyRule(r *NonResourcePolicyRule, p *field.Path) field.ErrorList {
	errs := validateVerbs(r.Verbs, p.Child("verbs"))
	switch {
	case len(r.NonResourceURLs) == 0:
		errs = append(errs, field.Required(p.Child("nonResourceURLs"), "nonResourceURLs must contain at least one value"))
	case slices.Contains(r.NonResourceURLs, NonResourceAll):
		if len(r.NonResourceURLs) > 1 {
			errs = append(errs, field.Invalid(p.Child("nonResourceURLs"), r.NonResourceURLs, "if '*' is present, must not specify other non-resource URLs"))
		}
	default:
		for i, u := range r.NonResourceURLs {
			if e := validateNonResourceURLPath(u, p.Child("nonResourceURLs").Index(i)); e != nil {
				errs = append(errs, e)
			}
		}
	}
	return errs
}

// validateNonResourceURLPath is ValidateNonResourceURLPath.
func validateNonResourceURLPath(path string, p *field.Path) *field.Error {
	switch {
	case path == "":
		return field.Invalid(p, path, "must not be empty")
	case path == "/":
		return nil
	case !strings.HasPrefix(path, "/"):
		return field.Invalid(p, path, "must start with slash")
	case strings.Contains(path, " "):
		return field.Invalid(p, path, "must not contain white-space")
	case strings.Contains(path, "//"):
		return field.Invalid(p, path, "must not contain double slash")
	}
	if n := strings.Count(path, "*"); n > 1 || (n == 1 && !strings.HasSuffix(path, "/*")) {
		return field.Invalid(p, path, "wildcard can only do suffix matching")
	}
	return nil
}

// Validate is ValidatePriorityLevelConfiguration for the spec: the type is Exempt exactly
// when the name is exempt, the member the type names is set and the other not, shares and
// percentages in range, and a queuing configuration whose shuffle sharding is possible.
func (o *PriorityLevelConfiguration) Validate() field.ErrorList {
	var errs field.ErrorList
	spec := specPath
	if (o.Name == PriorityLevelConfigurationNameExempt) != (o.Spec.Type == PriorityLevelEnablementExempt) {
		errs = append(errs, field.Invalid(spec.Child("type"), o.Spec.Type, "type must be 'Exempt' if and only if name is 'exempt'"))
	}
	switch o.Spec.Type {
	case PriorityLevelEnablementExempt:
		if o.Spec.Limited != nil {
			errs = append(errs, field.Forbidden(spec.Child("limited"), "must be nil if the type is not Limited"))
		}
		if e := o.Spec.Exempt; e != nil {
			ep := spec.Child("exempt")
			if e.NominalConcurrencyShares != nil && *e.NominalConcurrencyShares < 0 {
				errs = append(errs, field.Invalid(ep.Child("nominalConcurrencyShares"), *e.NominalConcurrencyShares, "must be a non-negative integer"))
			}
			errs = append(errs, validateLendablePercent(e.LendablePercent, ep.Child("lendablePercent"))...)
		}
	case PriorityLevelEnablementLimited:
		if o.Spec.Exempt != nil {
			errs = append(errs, field.Forbidden(spec.Child("exempt"), "must be nil if the type is Limited"))
		}
		if o.Spec.Limited == nil {
			errs = append(errs, field.Required(spec.Child("limited"), "must not be empty when type is Limited"))
		} else {
			errs = append(errs, validateLimited(o.Spec.Limited, spec.Child("limited"))...)
		}
	default:
		errs = append(errs, field.NotSupported(spec.Child("type"), o.Spec.Type, []string{string(PriorityLevelEnablementExempt), string(PriorityLevelEnablementLimited)}))
	}
	return errs
}

func validateLendablePercent(v *int32, p *field.Path) field.ErrorList {
	if v != nil && (*v < 0 || *v > 100) {
		return field.ErrorList{field.Invalid(p, *v, "must be between 0 and 100, inclusive")}
	}
	return nil
}

// validateLimited is ValidateLimitedPriorityLevelConfiguration.
func validateLimited(l *LimitedPriorityLevelConfiguration, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if l.NominalConcurrencyShares != nil && *l.NominalConcurrencyShares < 0 {
		errs = append(errs, field.Invalid(p.Child("nominalConcurrencyShares"), *l.NominalConcurrencyShares, "must be a non-negative integer"))
	}
	errs = append(errs, validateLendablePercent(l.LendablePercent, p.Child("lendablePercent"))...)
	if l.BorrowingLimitPercent != nil && *l.BorrowingLimitPercent < 0 {
		errs = append(errs, field.Invalid(p.Child("borrowingLimitPercent"), *l.BorrowingLimitPercent, "if specified, must be a non-negative integer"))
	}
	lr := p.Child("limitResponse")
	switch l.LimitResponse.Type {
	case LimitResponseTypeReject:
		if l.LimitResponse.Queuing != nil {
			errs = append(errs, field.Forbidden(lr.Child("queuing"), "must be nil if limited.limitResponse.type is not Limited"))
		}
	case LimitResponseTypeQueue:
		if q := l.LimitResponse.Queuing; q == nil {
			errs = append(errs, field.Required(lr.Child("queuing"), "must not be empty if limited.limitResponse.type is Limited"))
		} else {
			errs = append(errs, validateQueuing(q, lr.Child("queuing"))...)
		}
	default:
		errs = append(errs, field.NotSupported(lr.Child("type"), l.LimitResponse.Type, []string{string(LimitResponseTypeQueue), string(LimitResponseTypeReject)}))
	}
	return errs
}

// validateQueuing is ValidatePriorityLevelQueuingConfiguration, with
// shufflesharding.RequiredEntropyBits.
func validateQueuing(q *QueuingConfiguration, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if q.QueueLengthLimit <= 0 {
		errs = append(errs, field.Invalid(p.Child("queueLengthLimit"), q.QueueLengthLimit, "must be positive"))
	}
	if q.Queues <= 0 {
		errs = append(errs, field.Invalid(p.Child("queues"), q.Queues, "must be positive"))
	} else if q.Queues > maxQueues {
		errs = append(errs, field.Invalid(p.Child("queues"), q.Queues, fmt.Sprintf("must not be greater than %d", maxQueues)))
	}
	switch {
	case q.HandSize <= 0:
		errs = append(errs, field.Invalid(p.Child("handSize"), q.HandSize, "must be positive"))
	case q.HandSize > q.Queues:
		errs = append(errs, field.Invalid(p.Child("handSize"), q.HandSize, fmt.Sprintf("should not be greater than queues (%d)", q.Queues)))
	case entropyBits(int(q.Queues), int(q.HandSize)) > maxHashBits:
		errs = append(errs, field.Invalid(p.Child("handSize"), q.HandSize,
			fmt.Sprintf("required entropy bits of deckSize %d and handSize %d should not be greater than %d", q.Queues, q.HandSize, maxHashBits)))
	}
	return errs
}

// entropyBits is shufflesharding.RequiredEntropyBits: ceil(log2(deck) * hand).
func entropyBits(deck, hand int) int {
	return int(math.Ceil(math.Log2(float64(deck)) * float64(hand)))
}
