package bounds

import (
	"cmp"
	"fmt"
)

// In reports v outside [lo, hi].
func In[T cmp.Ordered](name string, v, lo, hi T) error {
	if v >= lo && v <= hi {
		return nil
	}
	return fmt.Errorf("%s must be in [%v, %v], got %v", name, lo, hi, v)
}

// PositiveAtMost reports v outside (0, hi].
func PositiveAtMost[T cmp.Ordered](name string, v, hi T) error {
	var zero T
	if v > zero && v <= hi {
		return nil
	}
	return fmt.Errorf("%s must be in (0, %v], got %v", name, hi, v)
}

// Positive reports v that is not greater than zero.
func Positive[T cmp.Ordered](name string, v T) error {
	var zero T
	if v > zero {
		return nil
	}
	return fmt.Errorf("%s must be positive, got %v", name, v)
}

// NonNegative reports v below zero.
func NonNegative[T cmp.Ordered](name string, v T) error {
	var zero T
	if v >= zero {
		return nil
	}
	return fmt.Errorf("%s must not be negative, got %v", name, v)
}

// First returns the first non-nil error of errs, prefixed with "prefix: " unless prefix is
// empty; nil when every error is nil.
func First(prefix string, errs ...error) error {
	for _, err := range errs {
		if err == nil {
			continue
		}
		if prefix == "" {
			return err
		}
		return fmt.Errorf("%s: %w", prefix, err)
	}
	return nil
}
