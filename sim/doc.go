// Package sim is the deterministic discrete-event kernel of reconsim.
//
// The kernel owns virtual time, an event heap ordered by (time, sequence number), the seeded
// random streams, the trace, and the coroutine processes in which all blocking code runs.
// It promises:
//
//   - Determinism: for the same seed and the same sequence of calls, Run fires the same events
//     in the same order and the trace hashes to the same value. Nothing here reads the wall
//     clock, the global random source, or iterates a map.
//   - Single-threadedness: exactly one piece of simulation code runs at a time. A Proc is a
//     coroutine (iter.Pull); it runs only when the kernel resumes it and gives control back
//     when it blocks (Sleep, Park). No simulation code runs concurrently with the kernel; a
//     HashFolder (Trace.SetFolder) may fold the trace's finished lines into its hash on
//     another goroutine, as it sees only bytes already emitted and the hash is theirs alone.
//   - Limits: Run stops at a virtual-time limit, an event limit, quiescence, an explicit Stop
//     or a process panic, and reports which (Outcome.Reason).
//
// Quiescence is defined by two things the rest of the simulator feeds in. A "hold" is pending
// work that must not be cut short (a process that is runnable or sleeping in the foreground, a
// foreground timer); MarkActivity records a significant change of state (the API server calls it
// on every write that is not a heartbeat). The world is quiescent when there are no holds and
// nothing significant has happened for Limits.QuiescenceWindow.
package sim
