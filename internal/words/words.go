package words

import "strings"

// Plural returns one when n is 1, else many.
func Plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// FirstLine returns s up to its first newline.
func FirstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// MarkdownCell escapes the pipes in s, which would end a Markdown table cell.
func MarkdownCell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
