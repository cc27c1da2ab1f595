package record

import (
	"fmt"
	"slices"
	"strconv"
)

// appendMessage appends fmt.Sprintf(format, args...) to b. The formats components pass
// (client-go's callers' own) mostly use bare %s, %q, %v and %d on strings and ints; those are
// appended here directly (appendPlainMessage), and anything else goes to fmt. fmt's %q of a
// string (strconv.AppendQuote) took a deep stack, which a pod worker's coroutine reaches
// first at its image's Event: its stack grew there, by copying, about once per pod.
func appendMessage(b []byte, format string, args []any) []byte {
	if out, ok := appendPlainMessage(b, format, args); ok {
		return out
	}
	return fmt.Appendf(b, format, args...)
}

// appendPlainMessage appends fmt.Sprintf(format, args...) to b and reports true when format
// uses only %%, and %s, %v, %q and %d without flags, width or precision, each with its own
// argument, which for %s, %v and %q is a string (%q of printable ASCII alone, without quotes
// or backslashes) and for %d and %v an int: for those fmt appends the string as it is, the
// string between double quotes, and strconv.AppendInt(b, n, 10). Otherwise it reports false
// and b's contents past its length are garbage.
func appendPlainMessage(b []byte, format string, args []any) ([]byte, bool) {
	// Room for the format and some arguments at once: appended piece by piece, a recorder's
	// first message would otherwise grow its buffer several times over.
	b = slices.Grow(b, len(format)+messageArgsRoom)
	next := 0
	for i := 0; i < len(format); i++ {
		c := format[i]
		if c != '%' {
			b = append(b, c)
			continue
		}
		i++
		if i == len(format) {
			return b, false
		}
		verb := format[i]
		if verb == '%' {
			b = append(b, '%')
			continue
		}
		if next == len(args) {
			return b, false
		}
		arg := args[next]
		next++
		switch a := arg.(type) {
		case string:
			switch {
			case verb == 's' || verb == 'v':
				b = append(b, a...)
			case verb == 'q' && plainQuotable(a):
				b = append(b, '"')
				b = append(b, a...)
				b = append(b, '"')
			default:
				return b, false
			}
		case int:
			if verb != 'd' && verb != 'v' {
				return b, false
			}
			b = strconv.AppendInt(b, int64(a), 10)
		default:
			return b, false
		}
	}
	return b, next == len(args)
}

// messageArgsRoom is the room appendPlainMessage makes for the arguments beyond the format's
// length.
const messageArgsRoom = 64

// plainQuotable reports whether strconv.Quote(s) is s between double quotes: every byte is
// printable ASCII and neither a double quote nor a backslash.
func plainQuotable(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < ' ' || c > '~' || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}
