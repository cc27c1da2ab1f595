package controllerutil

import (
	"encoding/binary"
	"encoding/json"
	"hash/fnv"
	"strconv"

	"github.com/reconsim/reconsim/model"
)

// SafeEncodeAlphabet is the alphabet of upstream k8s.io/apimachinery/pkg/util/rand
// SafeEncodeString: no vowels (no words) and none of the look-alikes 0, 1, 3.
const SafeEncodeAlphabet = "bcdfghjklmnpqrstvwxz2456789"

// SafeEncodeString maps each byte of s to a letter of the safe alphabet (upstream
// k8s.io/apimachinery/pkg/util/rand.SafeEncodeString), which turns a decimal hash into a
// name-safe suffix.
func SafeEncodeString(s string) string {
	out := make([]byte, len(s))
	for i := 0; i < len(s); i++ {
		out[i] = SafeEncodeAlphabet[int(s[i])%len(SafeEncodeAlphabet)]
	}
	return string(out)
}

// ComputeHash returns the hash of a pod template that names and labels what a controller
// creates from it: the Deployment's pod-template-hash and the DaemonSet's revision hash
// (upstream pkg/controller/controller_utils.go ComputeHash, release 1.33).
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
	return SafeEncodeString(strconv.FormatUint(uint64(h.Sum32()), 10))
}
