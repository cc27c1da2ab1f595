// Package words holds the small text helpers that reconsim's messages and generated documents
// share, so that each is written once: Plural (the word for a count), FirstLine (the first
// line of a possibly multi-line message) and MarkdownCell (text made safe for a Markdown table
// cell).
//
// Contract: pure functions of their arguments, standard library only, usable from every layer
// (model and scenarios included).
package words
