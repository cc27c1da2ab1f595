package testsupport

import (
	"fmt"
	"strings"
)

// AliasBomb returns YAML whose aliases expand to 10^(levels+1) values in a few hundred bytes:
// top-level keys a0 to a<levels>, a0 a list of ten scalars and each a<i> a list of ten
// aliases of a<i-1>. A decoder must refuse it by counting expanded values, not bytes.
func AliasBomb(levels int) string {
	var b strings.Builder
	b.WriteString("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n")
	for i := 1; i <= levels; i++ {
		fmt.Fprintf(&b, "a%d: &a%d [", i, i)
		for j := 0; j < 10; j++ {
			if j > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "*a%d", i-1)
		}
		b.WriteString("]\n")
	}
	return b.String()
}
