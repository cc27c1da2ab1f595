package sim

import "math/rand/v2"

// Rand returns a new random stream for the named component. Streams are PCG generators
// seeded from the kernel seed and the name, so each component draws its own sequence and
// adding a component does not shift the draws of the others. The same (seed, name) always
// gives the same stream; callers keep the stream rather than asking again.
func (k *Kernel) Rand(component string) *rand.Rand {
	return NewRand(k.seed, component)
}

// NewRand is Kernel.Rand without a kernel, for setup code that runs before one exists.
func NewRand(seed uint64, component string) *rand.Rand {
	h := fnv64a(component)
	return rand.New(rand.NewPCG(splitmix64(seed^h), splitmix64(h+0x9e3779b97f4a7c15)))
}

func fnv64a(s string) uint64 { return FoldFNV(FNVOffsetBasis, []byte(s)) }

// splitmix64 is the SplitMix64 finaliser, used to spread sub-seeds.
func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}
