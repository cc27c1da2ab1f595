package main

import "github.com/reconsim/reconsim"

func main() { reconsim.Main() }
