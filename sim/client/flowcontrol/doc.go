// Package flowcontrol is client-go's util/flowcontrol Backoff on virtual time: the per-key
// exponential back-off (no jitter) the kubelet keeps for crashing containers and image pulls
// and the DaemonSet controller for failed daemon pods.
//
// Contract: a key's delay starts at the initial delay and doubles on every Next up to the
// maximum; an entry unused for more than twice the maximum has expired and starts over, and GC
// forgets expired entries. Nothing reads a clock: every call takes the virtual times it needs,
// so the same calls give the same answers in every run.
package flowcontrol
