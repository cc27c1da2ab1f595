package report

import (
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"
)

// CleanText escapes what would act on a terminal instead of being shown: control characters
// (C0 including tab, CR and LF, DEL, C1), Unicode direction overrides, and invalid UTF-8, each
// written as a Go escape (\x1b, \n, \u202e). Every text that came from a user (scenario and
// entry names, messages quoting them) goes through it before it is printed.
func CleanText(s string) string { return clean(s, false) }

// CleanLines is CleanText that keeps line feeds: for multi-line messages (one problem per
// line) whose lines are each user text.
func CleanLines(s string) string { return clean(s, true) }

func clean(s string, keepLF bool) string {
	if !needsCleaning(s, keepLF) {
		return s
	}
	var b strings.Builder
	for i, w := 0, 0; i < len(s); i += w {
		r, size := utf8.DecodeRuneInString(s[i:])
		w = size
		switch {
		case r == utf8.RuneError && size == 1:
			b.WriteString(`\x` + strconv.FormatUint(uint64(s[i]), 16))
		case r == '\n' && keepLF:
			b.WriteByte('\n')
		case unsafeRune(r):
			q := strconv.QuoteRuneToASCII(r)
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteString(s[i : i+size])
		}
	}
	return b.String()
}

func needsCleaning(s string, keepLF bool) bool {
	for i, r := range s {
		if r == utf8.RuneError {
			if _, size := utf8.DecodeRuneInString(s[i:]); size == 1 {
				return true
			}
		}
		if unsafeRune(r) && !(keepLF && r == '\n') {
			return true
		}
	}
	return false
}

// unsafeRune reports a rune CleanText escapes.
func unsafeRune(r rune) bool {
	return r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f) ||
		(r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) || r == 0x200e || r == 0x200f
}

// cleanStrings returns a copy of v (a struct, or a pointer, slice or map of them) with
// CleanText applied to every string in it. Pointers, slices and maps are copied, never
// shared with v.
func cleanStrings[T any](v T) T {
	out := reflect.New(reflect.TypeOf(v)).Elem()
	cleanValue(out, reflect.ValueOf(v))
	return out.Interface().(T)
}

func cleanValue(dst, src reflect.Value) {
	switch src.Kind() {
	case reflect.String:
		dst.SetString(CleanText(src.String()))
	case reflect.Pointer:
		if src.IsNil() {
			return
		}
		p := reflect.New(src.Type().Elem())
		cleanValue(p.Elem(), src.Elem())
		dst.Set(p)
	case reflect.Struct:
		dst.Set(src) // unexported fields keep their values
		for i := 0; i < src.NumField(); i++ {
			if dst.Field(i).CanSet() {
				cleanValue(dst.Field(i), src.Field(i))
			}
		}
	case reflect.Slice:
		if src.IsNil() {
			return
		}
		s := reflect.MakeSlice(src.Type(), src.Len(), src.Len())
		for i := 0; i < src.Len(); i++ {
			cleanValue(s.Index(i), src.Index(i))
		}
		dst.Set(s)
	case reflect.Map:
		if src.IsNil() {
			return
		}
		m := reflect.MakeMapWithSize(src.Type(), src.Len())
		it := src.MapRange()
		for it.Next() {
			k := reflect.New(src.Type().Key()).Elem()
			cleanValue(k, it.Key())
			v := reflect.New(src.Type().Elem()).Elem()
			cleanValue(v, it.Value())
			m.SetMapIndex(k, v)
		}
		dst.Set(m)
	default:
		dst.Set(src)
	}
}
