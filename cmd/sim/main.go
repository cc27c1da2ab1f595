package main

import "github.com/reconsim/reconsim/internal/cli"

func main() { cli.Main() }
