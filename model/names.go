package model

import (
	"k8s.io/apimachinery/pkg/api/validate/content"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Name and label checks without regular expressions.
//
// Upstream checks DNS names, label keys and label values with regular expressions
// (k8s.io/apimachinery/pkg/util/validation, .../api/validate/content). Every object the API
// server writes passes several of them, and a regexp match costs a backtracker from a pool,
// about a microsecond a name. The functions below accept exactly the strings those
// expressions (with their length limits) accept, by scanning bytes; a name they reject is
// checked again by the upstream function, which makes the error messages, so the messages
// are always upstream's. TestNameCheckersMatchUpstream and FuzzNameCheckers hold each
// acceptor to its upstream function.

// Length limits of upstream's checks (validation.DNS1123SubdomainMaxLength and the like).
const (
	dnsSubdomainMaxBytes = content.DNS1123SubdomainMaxLength
	dnsLabelMaxBytes     = content.DNS1123LabelMaxLength
	labelNameMaxBytes    = content.LabelValueMaxLength // a label value, and a label key's name part (the same 63)
)

// dnsScan is the state of a scan of a DNS-1123 name, byte by byte.
type dnsScan uint8

const (
	dnsLabelStart dnsScan = iota // at the start of a label: an alphanumeric must follow
	dnsAfterAlnum                // after [a-z0-9]: the name may end here
	dnsAfterDash                 // after '-': [a-z0-9] or '-' must follow
	dnsRejected
)

// next is the state after byte c; dots says '.' may separate labels (a subdomain).
func (st dnsScan) next(c byte, dots bool) dnsScan {
	switch {
	case 'a' <= c && c <= 'z' || '0' <= c && c <= '9':
		if st == dnsRejected {
			return dnsRejected
		}
		return dnsAfterAlnum
	case c == '-':
		if st == dnsAfterAlnum || st == dnsAfterDash {
			return dnsAfterDash
		}
	case c == '.' && dots:
		if st == dnsAfterAlnum {
			return dnsLabelStart
		}
	}
	return dnsRejected
}

// matchesDNS1123 reports whether s, followed by the byte tail when tail is not 0, matches
// upstream's DNS-1123 label expression ^[a-z0-9]([-a-z0-9]*[a-z0-9])?$ (dots false) or its
// subdomain expression, labels joined by '.' (dots true). Lengths are the caller's.
func matchesDNS1123(s string, tail byte, dots bool) bool {
	st := dnsLabelStart
	for i := 0; i < len(s) && st != dnsRejected; i++ {
		st = st.next(s[i], dots)
	}
	if tail != 0 {
		st = st.next(tail, dots)
	}
	return st == dnsAfterAlnum
}

// maskedName returns name as upstream's NameIsDNS* functions check it: with prefix (a
// generateName), a name longer than one byte that ends in '-' is checked with its last two
// bytes replaced by "a" (apimachinery's maskTrailingDash). The result is kept followed by
// tail (0 for none), so that no string is built.
func maskedName(name string, prefix bool) (kept string, tail byte, length int) {
	if prefix && len(name) > 1 && name[len(name)-1] == '-' {
		return name[:len(name)-2], 'a', len(name) - 1
	}
	return name, 0, len(name)
}

// isDNS1123Subdomain reports whether validation.IsDNS1123Subdomain(s) finds no error.
func isDNS1123Subdomain(s string) bool {
	return len(s) <= dnsSubdomainMaxBytes && matchesDNS1123(s, 0, true)
}

// isDNS1123Label reports whether validation.IsDNS1123Label(s) finds no error.
func isDNS1123Label(s string) bool {
	return len(s) <= dnsLabelMaxBytes && matchesDNS1123(s, 0, false)
}

// isLabelName reports whether s matches a label key's name part,
// ^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$, within its 63 bytes. It is also a non-empty
// label value.
func isLabelName(s string) bool {
	if len(s) == 0 || len(s) > labelNameMaxBytes || !isAlnum(s[0]) || !isAlnum(s[len(s)-1]) {
		return false
	}
	for i := 1; i < len(s)-1; i++ {
		if c := s[i]; !isAlnum(c) && c != '-' && c != '_' && c != '.' {
			return false
		}
	}
	return true
}

func isAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// isLabelKey reports whether content.IsLabelKey(s) finds no
// error: a name part, optionally after a DNS-1123 subdomain prefix and one '/'.
func isLabelKey(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == '/' {
			prefix, name := s[:i], s[i+1:]
			return prefix != "" && isDNS1123Subdomain(prefix) && isLabelName(name)
		}
	}
	return isLabelName(s)
}

// isLabelValue reports whether content.IsLabelValue(s) finds no error.
func isLabelValue(s string) bool { return s == "" || isLabelName(s) }

// The upstream functions, each returning what the one it names returns (nil where that
// returns an empty list, which every caller only ranges over or appends).

// nameIsDNSSubdomain is apivalidation.NameIsDNSSubdomain.
func nameIsDNSSubdomain(name string, prefix bool) []string {
	if kept, tail, n := maskedName(name, prefix); n <= dnsSubdomainMaxBytes && matchesDNS1123(kept, tail, true) {
		return nil
	}
	return apivalidation.NameIsDNSSubdomain(name, prefix)
}

// nameIsDNSLabel is apivalidation.NameIsDNSLabel (namespace names).
func nameIsDNSLabel(name string, prefix bool) []string {
	if kept, tail, n := maskedName(name, prefix); n <= dnsLabelMaxBytes && matchesDNS1123(kept, tail, false) {
		return nil
	}
	return apivalidation.NameIsDNSLabel(name, prefix)
}

// nameIsDNS1035Label is apivalidation.NameIsDNS1035Label (service names): a DNS-1123 label
// that starts with a letter.
func nameIsDNS1035Label(name string, prefix bool) []string {
	kept, tail, n := maskedName(name, prefix)
	first := tail
	if kept != "" {
		first = kept[0]
	}
	if n <= dnsLabelMaxBytes && 'a' <= first && first <= 'z' && matchesDNS1123(kept, tail, false) {
		return nil
	}
	return apivalidation.NameIsDNS1035Label(name, prefix)
}

// dns1123Subdomain is validation.IsDNS1123Subdomain.
func dns1123Subdomain(value string) []string {
	if isDNS1123Subdomain(value) {
		return nil
	}
	return validation.IsDNS1123Subdomain(value)
}

// dns1123Label is validation.IsDNS1123Label.
func dns1123Label(value string) []string {
	if isDNS1123Label(value) {
		return nil
	}
	return validation.IsDNS1123Label(value)
}

// labelKey is content.IsLabelKey.
func labelKey(value string) []string {
	if isLabelKey(value) {
		return nil
	}
	return content.IsLabelKey(value)
}

// labelValue is content.IsLabelValue.
func labelValue(value string) []string {
	if isLabelValue(value) {
		return nil
	}
	return content.IsLabelValue(value)
}

// validateLabelName is metav1validation.ValidateLabelName.
func validateLabelName(key string, path *field.Path) field.ErrorList {
	if isLabelKey(key) {
		return nil
	}
	return metav1validation.ValidateLabelName(key, path)
}

// validateLabels is metav1validation.ValidateLabels, its errors in a stable order
// (sortedErrs: upstream walks the map).
func validateLabels(l map[string]string, path *field.Path) field.ErrorList {
	valid := true
	for k, v := range l { //detlint:ordered an all-entries check; order cannot matter
		if !isLabelKey(k) || !isLabelValue(v) {
			valid = false
			break
		}
	}
	if valid {
		return nil
	}
	return sortedErrs(metav1validation.ValidateLabels(l, path))
}

// validateAnnotations is apivalidation.ValidateAnnotations, its errors in a stable order.
// Upstream checks each key lowercased (strings.ToLower, which maps some non-ASCII letters to
// ASCII ones), so the fast path takes only keys without upper-case or non-ASCII bytes, whose
// lowercase is themselves.
func validateAnnotations(a map[string]string, path *field.Path) field.ErrorList {
	valid := true
	totalBytes := 0
	for k, v := range a { //detlint:ordered an all-entries check and a sum; order cannot matter
		totalBytes += len(k) + len(v)
		if !isLowerASCII(k) || !isLabelKey(k) {
			valid = false
			break
		}
	}
	if valid && totalBytes <= apivalidation.TotalAnnotationSizeLimitB {
		return nil
	}
	return sortedErrs(apivalidation.ValidateAnnotations(a, path))
}

// isLowerASCII reports whether s has no upper-case and no non-ASCII byte.
func isLowerASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 0x80 || 'A' <= c && c <= 'Z' {
			return false
		}
	}
	return true
}
