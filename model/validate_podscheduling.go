package model

import (
	"fmt"

	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Validation of inter-pod affinity and topology spread constraints, following upstream
// pkg/apis/core/validation/validation.go (validatePodAffinity, validatePodAntiAffinity,
// validatePodAffinityTerm, validateWeightedPodAffinityTerms, validateTopologySpreadConstraints,
// ValidateTopologyKey, ValidateSpreadConstraintNotRepeat, validateMinDomains,
// validateNodeInclusionPolicy, validateMatchLabelKeysInTopologySpread) with their messages.

var (
	unsatisfiableActions  = []string{DoNotSchedule, ScheduleAnyway}
	nodeInclusionPolicies = []string{NodeInclusionPolicyHonor, NodeInclusionPolicyIgnore}
)

// isNotPositiveErrorMsg is upstream's message for a value that must be > 0.
const isNotPositiveErrorMsg = "must be greater than zero"

// validatePodAffinities validates spec.affinity.podAffinity and podAntiAffinity.
func validatePodAffinities(a *Affinity, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	if a.PodAffinity != nil {
		p := path.Child("podAffinity")
		errs = append(errs, validatePodAffinityTerms(a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution, p.Child("requiredDuringSchedulingIgnoredDuringExecution"))...)
		errs = append(errs, validateWeightedPodAffinityTerms(a.PodAffinity.PreferredDuringSchedulingIgnoredDuringExecution, p.Child("preferredDuringSchedulingIgnoredDuringExecution"))...)
	}
	if a.PodAntiAffinity != nil {
		p := path.Child("podAntiAffinity")
		errs = append(errs, validatePodAffinityTerms(a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution, p.Child("requiredDuringSchedulingIgnoredDuringExecution"))...)
		errs = append(errs, validateWeightedPodAffinityTerms(a.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution, p.Child("preferredDuringSchedulingIgnoredDuringExecution"))...)
	}
	return errs
}

func validatePodAffinityTerms(terms []PodAffinityTerm, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i := range terms {
		errs = append(errs, validatePodAffinityTerm(&terms[i], path.Index(i))...)
	}
	return errs
}

func validateWeightedPodAffinityTerms(terms []WeightedPodAffinityTerm, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i := range terms {
		p := path.Index(i)
		if terms[i].Weight <= 0 || terms[i].Weight > 100 {
			errs = append(errs, field.Invalid(p.Child("weight"), terms[i].Weight, "must be in the range 1-100"))
		}
		errs = append(errs, validatePodAffinityTerm(&terms[i].PodAffinityTerm, p.Child("podAffinityTerm"))...)
	}
	return errs
}

// validatePodAffinityTerm is upstream validatePodAffinityTerm.
func validatePodAffinityTerm(t *PodAffinityTerm, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	errs = append(errs, sortedErrs(metav1validation.ValidateLabelSelector(t.LabelSelector, metav1validation.LabelSelectorValidationOptions{}, path.Child("labelSelector")))...)
	errs = append(errs, sortedErrs(metav1validation.ValidateLabelSelector(t.NamespaceSelector, metav1validation.LabelSelectorValidationOptions{}, path.Child("namespaceSelector")))...)
	for _, name := range t.Namespaces {
		for _, msg := range apivalidation.ValidateNamespaceName(name, false) {
			errs = append(errs, field.Invalid(path.Child("namespace"), name, msg))
		}
	}
	errs = append(errs, validateLabelKeys(t.MatchLabelKeys, path.Child("matchLabelKeys"))...)
	errs = append(errs, validateLabelKeys(t.MismatchLabelKeys, path.Child("mismatchLabelKeys"))...)
	return append(errs, validateTopologyKey(t.TopologyKey, path.Child("topologyKey"))...)
}

// validateTopologyKey is upstream ValidateTopologyKey: required, and a qualified name.
func validateTopologyKey(key string, path *field.Path) field.ErrorList {
	if key == "" {
		return field.ErrorList{field.Required(path, "can not be empty")}
	}
	return validateLabelName(key, path)
}

func validateLabelKeys(keys []string, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, k := range keys {
		errs = append(errs, validateLabelName(k, path.Index(i))...)
	}
	return errs
}

// validateTopologySpreadConstraints is upstream validateTopologySpreadConstraints.
func validateTopologySpreadConstraints(constraints []TopologySpreadConstraint, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	seen := map[[2]string]bool{}
	for i := range constraints {
		c := &constraints[i]
		p := path.Index(i)
		if c.MaxSkew <= 0 {
			errs = append(errs, field.Invalid(p.Child("maxSkew"), c.MaxSkew, isNotPositiveErrorMsg))
		}
		errs = append(errs, validateTopologyKey(c.TopologyKey, p.Child("topologyKey"))...)
		actionOK := c.WhenUnsatisfiable == DoNotSchedule || c.WhenUnsatisfiable == ScheduleAnyway
		if !actionOK {
			errs = append(errs, field.NotSupported(p.Child("whenUnsatisfiable"), c.WhenUnsatisfiable, unsatisfiableActions))
		}
		// ValidateSpreadConstraintNotRepeat: one constraint per (topologyKey, whenUnsatisfiable).
		pair := [2]string{c.TopologyKey, c.WhenUnsatisfiable}
		if seen[pair] {
			errs = append(errs, field.Duplicate(p, fmt.Sprintf("{%v, %v}", c.TopologyKey, c.WhenUnsatisfiable)))
		}
		seen[pair] = true
		if c.MinDomains != nil {
			// validateMinDomains.
			if *c.MinDomains <= 0 {
				errs = append(errs, field.Invalid(p.Child("minDomains"), *c.MinDomains, isNotPositiveErrorMsg))
			}
			if actionOK && c.WhenUnsatisfiable != DoNotSchedule {
				errs = append(errs, field.Invalid(p.Child("minDomains"), *c.MinDomains,
					fmt.Sprintf("can only use minDomains if whenUnsatisfiable=%s, not %s", DoNotSchedule, c.WhenUnsatisfiable)))
			}
		}
		errs = append(errs, validateNodeInclusionPolicy(c.NodeAffinityPolicy, p.Child("nodeAffinityPolicy"))...)
		errs = append(errs, validateNodeInclusionPolicy(c.NodeTaintsPolicy, p.Child("nodeTaintsPolicy"))...)
		errs = append(errs, validateMatchLabelKeysInTopologySpread(c.MatchLabelKeys, c.LabelSelector, p.Child("matchLabelKeys"))...)
		errs = append(errs, sortedErrs(metav1validation.ValidateLabelSelector(c.LabelSelector, metav1validation.LabelSelectorValidationOptions{}, p.Child("labelSelector")))...)
	}
	return errs
}

func validateNodeInclusionPolicy(policy *string, path *field.Path) field.ErrorList {
	if policy == nil || *policy == NodeInclusionPolicyHonor || *policy == NodeInclusionPolicyIgnore {
		return nil
	}
	return field.ErrorList{field.NotSupported(path, *policy, nodeInclusionPolicies)}
}

// validateMatchLabelKeysInTopologySpread: matchLabelKeys needs a labelSelector, and a key may
// not also be in the selector's matchLabels or matchExpressions.
func validateMatchLabelKeysInTopologySpread(keys []string, sel *metav1.LabelSelector, path *field.Path) field.ErrorList {
	if len(keys) == 0 {
		return nil
	}
	if sel == nil {
		return field.ErrorList{field.Forbidden(path, "must not be specified when labelSelector is not set")}
	}
	var errs field.ErrorList
	for i, k := range keys {
		errs = append(errs, validateLabelName(k, path.Index(i))...)
		if _, ok := sel.MatchLabels[k]; ok {
			errs = append(errs, field.Invalid(path.Index(i), k, "exists in both matchLabelKeys and labelSelector"))
			continue
		}
		for _, r := range sel.MatchExpressions {
			if r.Key == k {
				errs = append(errs, field.Invalid(path.Index(i), k, "exists in both matchLabelKeys and labelSelector"))
				break
			}
		}
	}
	return errs
}
