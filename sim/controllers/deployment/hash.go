package deployment

import (
	"encoding/binary"
	"encoding/json"
	"hash/fnv"
	"strconv"

	"github.com/reconsim/reconsim/model"
)

// safeEncodeAlphabet is the alphabet of upstream k8s.io/apimachinery/pkg/util/rand
// SafeEncodeString: no vowels (no words) and none of the look-alikes 0, 1, 3.
const safeEncodeAlphabet = "bcdfghjklmnpqrstvwxz2456789"

// ComputeHash returns the pod-template-hash of a template: the value of the
// pod-template-hash label and the suffix of the new ReplicaSet's name (upstream
// controller.ComputeHash).
//
// Upstream feeds an FNV-32a hash with hashutil.DeepHashObject (a spew dump of the Go value),
// then, when collisionCount is set, its 4 bytes little-endian in an 8-byte buffer, and encodes
// the decimal sum with SafeEncodeString. Here the FNV-32a input is the template's JSON encoding
// instead of the spew dump: encoding/json writes struct fields in declaration order and map
// keys sorted, so the bytes, and the hash, depend only on the template's content. The
// collision-count bytes and the encoding are as upstream. The values therefore differ from a
// real cluster's, but have the same properties: stable across runs, equal for equal templates,
// different after a collision-count bump.
func ComputeHash(template *model.PodTemplateSpec, collisionCount *int32) string {
	h := fnv.New32a()
	b, err := json.Marshal(template)
	if err != nil {
		// The model types always encode; should one ever fail, hashing the error text keeps
		// the result deterministic.
		b = []byte(err.Error())
	}
	_, _ = h.Write(b)
	if collisionCount != nil {
		buf := make([]byte, 8)
		binary.LittleEndian.PutUint32(buf, uint32(*collisionCount))
		_, _ = h.Write(buf)
	}
	return safeEncodeString(strconv.FormatUint(uint64(h.Sum32()), 10))
}

// safeEncodeString maps each byte of s into safeEncodeAlphabet (upstream SafeEncodeString).
func safeEncodeString(s string) string {
	out := make([]byte, len(s))
	for i := 0; i < len(s); i++ {
		out[i] = safeEncodeAlphabet[int(s[i])%len(safeEncodeAlphabet)]
	}
	return string(out)
}
