package bad

import (
	"math/rand/v2"
	"time"
)

func Bad(m map[string]int) int {
	_ = time.Now()
	go func() {}()
	n := rand.IntN(3)
	for k := range m {
		n += len(k)
	}
	//detlint:ordered summing lengths is commutative
	for k := range m {
		n += len(k)
	}
	for range m { //detlint:
		n++
	}
	r := rand.New(rand.NewPCG(1, 2))
	_ = time.Duration(5) * time.Second
	return n + r.IntN(2)
}
