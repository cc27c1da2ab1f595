package cluster

// GCPercent is the garbage collector's target (GOGC) for a program that runs simulations:
// sim sets it unless the environment sets GOGC, and this package's benchmarks run at it, so
// that they measure what sim does. A simulation's heap is mostly long-lived cluster state
// (objects, caches, watch history) that every collection has to mark again. On
// thundering-herd (3 runs each, 2 cores) GOGC 100, 200 and 400 gave the same wall time (the
// collector runs on the other core) but 18.1, 15.6 and 14.6 s of CPU for 1,068, 1,361 and
// 1,664 MiB peak memory: 200 keeps most of the CPU saving, which counts when a sweep keeps
// every core busy, for half the memory (docs/performance.md).
const GCPercent = 200
