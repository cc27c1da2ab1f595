package model

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/validate/content"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// checkNameAgainstUpstream fails unless every checker of names.go gives, for s, exactly what
// the upstream function it stands for gives, and unless each acceptor accepts exactly the
// strings its upstream function finds no error in (so the fast path is taken for every
// valid name, not only for some).
func checkNameAgainstUpstream(t *testing.T, s string) {
	t.Helper()
	same := func(what string, got, want []string) {
		t.Helper()
		if strings.Join(got, "\n") != strings.Join(want, "\n") || len(got) != len(want) {
			t.Fatalf("%s(%q) = %q, upstream %q", what, s, got, want)
		}
	}
	sameAcceptance := func(what string, accepted bool, upstream []string) {
		t.Helper()
		if accepted != (len(upstream) == 0) {
			t.Fatalf("%s(%q) = %v, upstream errors %q", what, s, accepted, upstream)
		}
	}
	for _, prefix := range []bool{false, true} {
		same("nameIsDNSSubdomain", nameIsDNSSubdomain(s, prefix), apivalidation.NameIsDNSSubdomain(s, prefix))
		same("nameIsDNSLabel", nameIsDNSLabel(s, prefix), apivalidation.NameIsDNSLabel(s, prefix))
		same("nameIsDNS1035Label", nameIsDNS1035Label(s, prefix), apivalidation.NameIsDNS1035Label(s, prefix))
	}
	same("dns1123Subdomain", dns1123Subdomain(s), validation.IsDNS1123Subdomain(s))
	same("dns1123Label", dns1123Label(s), validation.IsDNS1123Label(s))
	same("labelKey", labelKey(s), content.IsLabelKey(s))
	same("labelValue", labelValue(s), content.IsLabelValue(s))
	sameAcceptance("isDNS1123Subdomain", isDNS1123Subdomain(s), validation.IsDNS1123Subdomain(s))
	sameAcceptance("isDNS1123Label", isDNS1123Label(s), validation.IsDNS1123Label(s))
	sameAcceptance("isLabelKey", isLabelKey(s), content.IsLabelKey(s))
	sameAcceptance("isLabelValue", isLabelValue(s), content.IsLabelValue(s))

	path := field.NewPath("metadata", "labels")
	sameErrs := func(what string, got, want field.ErrorList) {
		t.Helper()
		if got.ToAggregate() == nil && want.ToAggregate() == nil {
			return
		}
		if got.ToAggregate() == nil || want.ToAggregate() == nil || got.ToAggregate().Error() != want.ToAggregate().Error() {
			t.Fatalf("%s(%q) = %v, upstream %v", what, s, got, want)
		}
	}
	sameErrs("validateLabelName", validateLabelName(s, path), metav1validation.ValidateLabelName(s, path))
	for _, m := range []map[string]string{{s: "v"}, {"k": s}, {s: s, "a": "b"}} {
		sameErrs("validateLabels", validateLabels(m, path), sortedErrs(metav1validation.ValidateLabels(m, path)))
		sameErrs("validateAnnotations", validateAnnotations(m, path), sortedErrs(apivalidation.ValidateAnnotations(m, path)))
	}
}

// TestNameCheckersMatchUpstream compares every checker with upstream's on every string of up
// to four bytes over an alphabet of each byte class the expressions tell apart, and on the
// strings at the length limits and the generateName masking.
func TestNameCheckersMatchUpstream(t *testing.T) {
	// Lower and upper letters, a digit, the three separators, '/', a byte outside every class
	// and the first byte of a two-byte UTF-8 letter.
	alphabet := []byte{'a', 'Z', '0', '-', '.', '_', '/', ' ', 0xc3}
	var build func(prefix []byte, n int)
	build = func(prefix []byte, n int) {
		checkNameAgainstUpstream(t, string(prefix))
		if n == 0 {
			return
		}
		for _, c := range alphabet {
			build(append(prefix, c), n-1)
		}
	}
	build(nil, 4)

	label63 := strings.Repeat("a", 63)
	subdomain253 := strings.Repeat(label63+".", 3) + strings.Repeat("b", 61) // 4*64-3 = 253 bytes
	for _, s := range []string{
		label63, label63 + "a", label63 + "-", label63[:62] + "-", "a" + label63 + "-",
		subdomain253, subdomain253 + "c", subdomain253 + "-", subdomain253[:252] + "-",
		subdomain253 + "/" + label63, subdomain253 + "/" + label63 + "a", "x/" + label63 + "A",
		"example.com/" + label63, "a/b/c", "/a", "a/", "A.b/c", "kubernetes.io/config.seen",
		"pod-7d9f8b6c5d-x2v4q", "node-17.zone-a", "web-", "w-", "-", "--", "a--", "1-", "1a-",
		"\u212a", "\u212a8s.io/x", "é", "aé", "a\x00b", "a\nb",
	} {
		checkNameAgainstUpstream(t, s)
	}
}

// TestValidateAnnotationsSizeLimit: the fast path of validateAnnotations still reports the
// total size limit with upstream's error.
func TestValidateAnnotationsSizeLimit(t *testing.T) {
	path := field.NewPath("metadata", "annotations")
	big := map[string]string{"a": strings.Repeat("x", apivalidation.TotalAnnotationSizeLimitB)}
	got, want := validateAnnotations(big, path), sortedErrs(apivalidation.ValidateAnnotations(big, path))
	if len(want) != 1 || got.ToAggregate() == nil || got.ToAggregate().Error() != want.ToAggregate().Error() {
		t.Fatalf("validateAnnotations over the limit = %v, upstream %v", got, want)
	}
	fits := map[string]string{"a": strings.Repeat("x", apivalidation.TotalAnnotationSizeLimitB-1)}
	if errs := validateAnnotations(fits, path); errs != nil {
		t.Fatalf("validateAnnotations at the limit = %v", errs)
	}
}

// FuzzNameCheckers holds every checker to upstream's on arbitrary strings.
func FuzzNameCheckers(f *testing.F) {
	for _, s := range []string{"", "a", "a-", "web-7d9f8b6c5d-", "kubernetes.io/hostname", "A.b/c", "a..b", "\u212a", strings.Repeat("ab.", 90)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { checkNameAgainstUpstream(t, s) })
}
