// Package atomicfile writes output files so that a reader never sees a partial one: the data
// goes to a temporary file in the destination directory (".NAME.*.tmp"), which is renamed to
// NAME only when everything was written. It is the one implementation the result files
// (report), the sweep's files and the CLI's streamed trace share.
//
// Contract: the directory is created (0755) when missing; a committed file is 0644 and
// replaces any earlier file of that name whole; a file that is not committed (an error, or
// Discard) leaves no temporary file and does not touch the earlier one. Errors name the
// directory or the file and wrap the operating system's error; callers add their own prefix.
package atomicfile
