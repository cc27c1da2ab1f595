package operator

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	policyv1 "k8s.io/api/policy/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/randfill"

	"github.com/reconsim/reconsim/model"
)

// typedKinds pairs every kind the simulator models with its k8s.io/api type.
var typedKinds = map[model.Kind]func() client.Object{
	model.KindNamespace:               func() client.Object { return &corev1.Namespace{} },
	model.KindNode:                    func() client.Object { return &corev1.Node{} },
	model.KindLease:                   func() client.Object { return &coordinationv1.Lease{} },
	model.KindPod:                     func() client.Object { return &corev1.Pod{} },
	model.KindReplicaSet:              func() client.Object { return &appsv1.ReplicaSet{} },
	model.KindEvent:                   func() client.Object { return &corev1.Event{} },
	model.KindDeployment:              func() client.Object { return &appsv1.Deployment{} },
	model.KindStatefulSet:             func() client.Object { return &appsv1.StatefulSet{} },
	model.KindDaemonSet:               func() client.Object { return &appsv1.DaemonSet{} },
	model.KindControllerRevision:      func() client.Object { return &appsv1.ControllerRevision{} },
	model.KindPodDisruptionBudget:     func() client.Object { return &policyv1.PodDisruptionBudget{} },
	model.KindService:                 func() client.Object { return &corev1.Service{} },
	model.KindEndpointSlice:           func() client.Object { return &discoveryv1.EndpointSlice{} },
	model.KindHorizontalPodAutoscaler: func() client.Object { return &autoscalingv2.HorizontalPodAutoscaler{} },
	model.KindJob:                     func() client.Object { return &batchv1.Job{} },
	model.KindCronJob:                 func() client.Object { return &batchv1.CronJob{} },
}

// filler fills k8s.io/api objects at random, with values a real API server could hold: times
// within ten years of the simulator's epoch, quantities as the API prints them, numeric
// resourceVersions.
func filler(seed uint64) *randfill.Filler {
	return randfill.NewWithSeed(int64(seed)).NilChance(0.2).NumElements(0, 3).MaxDepth(12).Funcs(
		func(t *metav1.Time, c randfill.Continue) {
			t.Time = epoch.Add(time.Duration(c.Int63n(20*365*24*3600)-10*365*24*3600) * time.Second).UTC()
		},
		func(q *resource.Quantity, c randfill.Continue) {
			*q = *resource.NewMilliQuantity(c.Int63n(1<<40), resource.DecimalSI)
		},
		func(r *runtime.RawExtension, c randfill.Continue) {
			r.Raw = []byte(`{"revision":` + strconv.Itoa(c.Intn(100)) + `}`)
		},
		func(t *metav1.MicroTime, c randfill.Continue) {
			t.Time = epoch.Add(time.Duration(c.Int63n(20*365*24*3600*1e6)-10*365*24*3600*1e6) * time.Microsecond).UTC()
		},
		func(r *corev1.ObjectReference, c randfill.Continue) {
			c.FillNoCustom(r)
			r.ResourceVersion = strconv.FormatUint(c.Uint64()>>1, 10)
		},
		func(m *metav1.ObjectMeta, c randfill.Continue) {
			c.FillNoCustom(m)
			m.ResourceVersion = strconv.FormatUint(c.Uint64()>>1, 10)
		},
	)
}

// TestRoundTripPreservesModelledFields is the property: for random k8s.io/api objects of every
// modelled kind, k8s.io/api -> model -> k8s.io/api -> model gives the same model object (no
// field the model holds is lost or altered), and converting the model object back onto the
// original (the remembered object) gives the original exactly (no unmodelled field is lost).
func TestRoundTripPreservesModelledFields(t *testing.T) {
	const perKind = 200
	require.Len(t, typedKinds, len(builtinKinds), "every built-in kind has a k8s.io/api type here")
	for _, ki := range model.Kinds() {
		if !builtin(ki) {
			continue // custom resources convert through JSON
		}
		newTyped, ok := typedKinds[ki.Kind]
		require.True(t, ok, "no k8s.io/api type for modelled kind %s", ki.Kind)
		t.Run(string(ki.Kind), func(t *testing.T) {
			f := filler(uint64(len(ki.Kind)))
			for i := range perKind {
				orig := newTyped()
				f.Fill(orig)
				m1 := ki.New()
				require.NoError(t, convertValue(m1, orig), "typed -> model, case %d", i)

				back := newTyped()
				require.NoError(t, convertValue(back, m1), "model -> typed, case %d", i)
				m2 := ki.New()
				require.NoError(t, convertValue(m2, back), "typed -> model again, case %d", i)
				if !apiequality.Semantic.DeepEqual(m1, m2) {
					t.Fatalf("case %d: a modelled field changed in the round trip:\n%s", i, diff(m1, m2))
				}

				onto := orig.DeepCopyObject().(client.Object)
				require.NoError(t, convertValue(onto, m1))
				if !apiequality.Semantic.DeepEqual(orig, onto) {
					t.Fatalf("case %d: converting back onto the remembered object changed it:\n%s", i, diff(orig, onto))
				}
			}
		})
	}
}

// diff names the first differing field path of a and b (for failure messages).
func diff(a, b any) string {
	return firstDiff(reflect.ValueOf(a), reflect.ValueOf(b), "")
}

func firstDiff(a, b reflect.Value, path string) string {
	if a.Kind() != b.Kind() {
		return path + ": kinds differ"
	}
	switch a.Kind() {
	case reflect.Pointer, reflect.Interface:
		if a.IsNil() || b.IsNil() {
			if a.IsNil() != b.IsNil() {
				return fmt.Sprintf("%s: %v vs %v", path, a, b)
			}
			return ""
		}
		return firstDiff(a.Elem(), b.Elem(), path)
	case reflect.Struct:
		if apiequality.Semantic.DeepEqual(a.Interface(), b.Interface()) {
			return ""
		}
		for i := range a.NumField() {
			if !a.Type().Field(i).IsExported() {
				continue
			}
			if d := firstDiff(a.Field(i), b.Field(i), path+"."+a.Type().Field(i).Name); d != "" {
				return d
			}
		}
		return path + ": differs (unexported)"
	case reflect.Slice:
		if a.Len() != b.Len() || a.IsNil() != b.IsNil() {
			return fmt.Sprintf("%s: len %d (nil %v) vs %d (nil %v)", path, a.Len(), a.IsNil(), b.Len(), b.IsNil())
		}
		for i := range a.Len() {
			if d := firstDiff(a.Index(i), b.Index(i), fmt.Sprintf("%s[%d]", path, i)); d != "" {
				return d
			}
		}
		return ""
	default:
		if !apiequality.Semantic.DeepEqual(a.Interface(), b.Interface()) {
			return fmt.Sprintf("%s: %v vs %v", path, a.Interface(), b.Interface())
		}
		return ""
	}
}

// BenchmarkConvert measures the conversion cost per object at the boundary, both ways, for a
// Deployment and a Pod as a controller reads and writes them.
func BenchmarkConvert(b *testing.B) {
	// A Deployment as an operator writes one (one container with env and ports).
	d := deployment("web")
	md := &model.Deployment{}
	if err := convertValue(md, d); err != nil {
		b.Fatal(err)
	}
	b.Run("Deployment-typical/to-model", func(b *testing.B) {
		for b.Loop() {
			if err := convertValue(&model.Deployment{}, d); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("Deployment-typical/from-model", func(b *testing.B) {
		for b.Loop() {
			if err := convertValue(d.DeepCopy(), md); err != nil {
				b.Fatal(err)
			}
		}
	})
	// Random objects with every field filled (randfill): the worst case.
	for _, kind := range []model.Kind{model.KindDeployment, model.KindPod} {
		ki, _ := model.LookupKind(kind)
		orig := typedKinds[kind]()
		filler(1).Fill(orig)
		m := ki.New()
		if err := convertValue(m, orig); err != nil {
			b.Fatal(err)
		}
		b.Run(string(kind)+"/to-model", func(b *testing.B) {
			for b.Loop() {
				out := ki.New()
				if err := convertValue(out, orig); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(string(kind)+"/from-model", func(b *testing.B) {
			for b.Loop() {
				out := typedKinds[kind]()
				if err := convertValue(out, m); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

var _ = rand.N[int]
