package rewrite

import "flag"

// Name is the flag's name.
const Name = "rewrite"

func init() {
	if flag.Lookup(Name) == nil {
		flag.Bool(Name, false, "rewrite generated test expectations (golden files) instead of comparing")
	}
}

// Enabled reports whether -rewrite was given.
func Enabled() bool {
	f := flag.Lookup(Name)
	return f != nil && f.Value.String() == "true"
}
