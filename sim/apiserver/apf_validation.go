package apiserver

import (
	"fmt"
	"math"

	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	"k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// maxHashBits is shufflesharding.MaxHashBits: a hand must be dealt from 60 bits of hash.
const maxHashBits = 60

// ValidatePriorityLevelConfiguration checks a PriorityLevelConfiguration as kube-apiserver
// does ([k8s] pkg/apis/flowcontrol/validation/validation.go
// ValidatePriorityLevelConfiguration), with its field paths and messages.
func ValidatePriorityLevelConfiguration(pl *flowcontrolv1.PriorityLevelConfiguration) field.ErrorList {
	var errs field.ErrorList
	errs = append(errs, validation.ValidateObjectMeta(&pl.ObjectMeta, false, validation.NameIsDNSSubdomain, field.NewPath("metadata"))...)
	spec := field.NewPath("spec")
	switch pl.Spec.Type {
	case flowcontrolv1.PriorityLevelEnablementExempt:
		if pl.Spec.Limited != nil {
			errs = append(errs, field.Forbidden(spec.Child("limited"), "must be nil if the type is not Limited"))
		}
		if pl.Name != flowcontrolv1.PriorityLevelConfigurationNameExempt {
			errs = append(errs, field.Invalid(spec.Child("type"), pl.Spec.Type, "only 'exempt' priority level can be exempt"))
		}
		if e := pl.Spec.Exempt; e != nil {
			if e.NominalConcurrencyShares != nil && *e.NominalConcurrencyShares < 0 {
				errs = append(errs, field.Invalid(spec.Child("exempt", "nominalConcurrencyShares"), *e.NominalConcurrencyShares, "must be a non-negative integer"))
			}
			if e.LendablePercent != nil && (*e.LendablePercent < 0 || *e.LendablePercent > 100) {
				errs = append(errs, field.Invalid(spec.Child("exempt", "lendablePercent"), *e.LendablePercent, "must be between 0 and 100, inclusive"))
			}
		}
	case flowcontrolv1.PriorityLevelEnablementLimited:
		if pl.Spec.Exempt != nil {
			errs = append(errs, field.Forbidden(spec.Child("exempt"), "must be nil if the type is Limited"))
		}
		if pl.Name == flowcontrolv1.PriorityLevelConfigurationNameExempt {
			errs = append(errs, field.Invalid(spec.Child("type"), pl.Spec.Type, "type must be 'Exempt' if and only if name is 'exempt'"))
		}
		if pl.Spec.Limited == nil {
			errs = append(errs, field.Required(spec.Child("limited"), "must not be empty when type is Limited"))
		} else {
			errs = append(errs, validateLimited(pl.Spec.Limited, spec.Child("limited"))...)
		}
	case "":
		errs = append(errs, field.Required(spec.Child("type"), "must not be empty"))
	default:
		errs = append(errs, field.NotSupported(spec.Child("type"), pl.Spec.Type, []string{string(flowcontrolv1.PriorityLevelEnablementExempt), string(flowcontrolv1.PriorityLevelEnablementLimited)}))
	}
	return errs
}

func validateLimited(l *flowcontrolv1.LimitedPriorityLevelConfiguration, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if l.NominalConcurrencyShares != nil && *l.NominalConcurrencyShares < 0 {
		errs = append(errs, field.Invalid(p.Child("nominalConcurrencyShares"), *l.NominalConcurrencyShares, "must be a non-negative integer"))
	}
	if l.LendablePercent != nil && (*l.LendablePercent < 0 || *l.LendablePercent > 100) {
		errs = append(errs, field.Invalid(p.Child("lendablePercent"), *l.LendablePercent, "must be between 0 and 100, inclusive"))
	}
	if l.BorrowingLimitPercent != nil && *l.BorrowingLimitPercent < 0 {
		errs = append(errs, field.Invalid(p.Child("borrowingLimitPercent"), *l.BorrowingLimitPercent, "if specified, must be a non-negative integer"))
	}
	lr := p.Child("limitResponse")
	switch l.LimitResponse.Type {
	case flowcontrolv1.LimitResponseTypeReject:
		if l.LimitResponse.Queuing != nil {
			errs = append(errs, field.Forbidden(lr.Child("queuing"), "must be nil if limited.limitResponse.type is not Limited"))
		}
	case flowcontrolv1.LimitResponseTypeQueue:
		if q := l.LimitResponse.Queuing; q == nil {
			errs = append(errs, field.Required(lr.Child("queuing"), "must not be empty if limited.limitResponse.type is Limited"))
		} else {
			errs = append(errs, validateQueuing(q, lr.Child("queuing"))...)
		}
	case "":
		errs = append(errs, field.Required(lr.Child("type"), "must not be empty"))
	default:
		errs = append(errs, field.NotSupported(lr.Child("type"), l.LimitResponse.Type, []string{string(flowcontrolv1.LimitResponseTypeQueue), string(flowcontrolv1.LimitResponseTypeReject)}))
	}
	return errs
}

// validateQueuing is ValidatePriorityLevelQueuingConfiguration with the shuffle-sharding
// check of shufflesharding.RequiredEntropyBits.
func validateQueuing(q *flowcontrolv1.QueuingConfiguration, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if q.QueueLengthLimit <= 0 {
		errs = append(errs, field.Invalid(p.Child("queueLengthLimit"), q.QueueLengthLimit, "must be positive"))
	}
	if q.Queues <= 0 {
		errs = append(errs, field.Invalid(p.Child("queues"), q.Queues, "must be positive"))
	} else if q.Queues > 1 {
		if q.HandSize > q.Queues {
			errs = append(errs, field.Invalid(p.Child("handSize"), q.HandSize, fmt.Sprintf("should not be greater than queues (%d)", q.Queues)))
		} else if q.HandSize <= 0 {
			errs = append(errs, field.Invalid(p.Child("handSize"), q.HandSize, "must be positive"))
		} else if bits := entropyBits(int(q.Queues), int(q.HandSize)); bits > maxHashBits {
			errs = append(errs, field.Invalid(p.Child("handSize"), q.HandSize,
				fmt.Sprintf("required entropy bits of deckSize %d and handSize %d should not be greater than %d", q.Queues, q.HandSize, maxHashBits)))
		}
	}
	return errs
}

// entropyBits is shufflesharding.RequiredEntropyBits: ceil(log2(deck^hand)).
func entropyBits(deck, hand int) int {
	bits := 0.0
	for i := 0; i < hand; i++ {
		bits += math.Log2(float64(deck))
	}
	n := int(bits)
	if float64(n) < bits {
		n++
	}
	return n
}

// ValidateFlowSchema checks a FlowSchema as kube-apiserver does ([k8s]
// pkg/apis/flowcontrol/validation/validation.go ValidateFlowSchema), with its field paths.
func ValidateFlowSchema(fs *flowcontrolv1.FlowSchema) field.ErrorList {
	var errs field.ErrorList
	errs = append(errs, validation.ValidateObjectMeta(&fs.ObjectMeta, false, validation.NameIsDNSSubdomain, field.NewPath("metadata"))...)
	spec := field.NewPath("spec")
	if fs.Spec.MatchingPrecedence <= 0 || fs.Spec.MatchingPrecedence > 10000 {
		errs = append(errs, field.Invalid(spec.Child("matchingPrecedence"), fs.Spec.MatchingPrecedence, "must be between 1 and 10000 inclusively"))
	}
	if dm := fs.Spec.DistinguisherMethod; dm != nil && dm.Type != flowcontrolv1.FlowDistinguisherMethodByUserType && dm.Type != flowcontrolv1.FlowDistinguisherMethodByNamespaceType {
		errs = append(errs, field.NotSupported(spec.Child("distinguisherMethod", "type"), dm.Type,
			[]string{string(flowcontrolv1.FlowDistinguisherMethodByNamespaceType), string(flowcontrolv1.FlowDistinguisherMethodByUserType)}))
	}
	if fs.Spec.PriorityLevelConfiguration.Name == "" {
		errs = append(errs, field.Required(spec.Child("priorityLevelConfiguration", "name"), "must reference a priority level"))
	}
	for i, rule := range fs.Spec.Rules {
		rp := spec.Child("rules").Index(i)
		if len(rule.Subjects) == 0 {
			errs = append(errs, field.Required(rp.Child("subjects"), "subjects must contain at least one value"))
		}
		for j, s := range rule.Subjects {
			errs = append(errs, validateSubject(s, rp.Child("subjects").Index(j))...)
		}
		if len(rule.ResourceRules) == 0 && len(rule.NonResourceRules) == 0 {
			errs = append(errs, field.Required(rp, "at least one of resourceRules and nonResourceRules has to be non-empty"))
		}
		for j, rr := range rule.ResourceRules {
			p := rp.Child("resourceRules").Index(j)
			if len(rr.Verbs) == 0 {
				errs = append(errs, field.Required(p.Child("verbs"), "verbs must contain at least one value"))
			}
			if len(rr.APIGroups) == 0 {
				errs = append(errs, field.Required(p.Child("apiGroups"), "resource rules must supply at least one api group"))
			}
			if len(rr.Resources) == 0 {
				errs = append(errs, field.Required(p.Child("resources"), "resource rules must supply at least one resource"))
			}
			if len(rr.Namespaces) == 0 && !rr.ClusterScope {
				errs = append(errs, field.Required(p.Child("namespaces"), "resource rules that are not cluster scoped must supply at least one namespace"))
			}
		}
	}
	return errs
}

func validateSubject(s flowcontrolv1.Subject, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	switch s.Kind {
	case flowcontrolv1.SubjectKindServiceAccount:
		if s.ServiceAccount == nil {
			errs = append(errs, field.Required(p.Child("serviceAccount"), "serviceAccount is required when subject kind is 'ServiceAccount'"))
		} else {
			if s.ServiceAccount.Name == "" {
				errs = append(errs, field.Required(p.Child("serviceAccount", "name"), ""))
			}
			if s.ServiceAccount.Namespace == "" {
				errs = append(errs, field.Required(p.Child("serviceAccount", "namespace"), ""))
			}
		}
	case flowcontrolv1.SubjectKindUser:
		if s.User == nil {
			errs = append(errs, field.Required(p.Child("user"), "user is required when subject kind is 'User'"))
		} else if s.User.Name == "" {
			errs = append(errs, field.Required(p.Child("user", "name"), ""))
		}
	case flowcontrolv1.SubjectKindGroup:
		if s.Group == nil {
			errs = append(errs, field.Required(p.Child("group"), "group is required when subject kind is 'Group'"))
		} else if s.Group.Name == "" {
			errs = append(errs, field.Required(p.Child("group", "name"), ""))
		}
	default:
		errs = append(errs, field.NotSupported(p.Child("kind"), s.Kind, []string{string(flowcontrolv1.SubjectKindServiceAccount), string(flowcontrolv1.SubjectKindGroup), string(flowcontrolv1.SubjectKindUser)}))
	}
	return errs
}
