// Package boundedfile is the one bounded file reader of reconsim: scenarios, manifests,
// series, sweep and explore files, result files and cluster dumps are all read with Read. It
// imports only the standard library so that every layer may use it.
//
// Contract: Read checks the size as it reads and never holds more than limit+1 bytes of a
// file, whatever its size; a larger file is a *TooLargeError naming the file and the limit; a
// directory is an error saying so; any other error is the operating system's, unwrapped.
// Callers add their own prefix or hint.
package boundedfile
