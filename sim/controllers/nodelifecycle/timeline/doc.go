// Package timeline holds the end-to-end node-failure tests (docs/upstream.md#node-failure-timeline): the node
// lifecycle and taint eviction controllers wired together against one API server, with the
// kubelets played by the test. It has no code of its own; its tests check the composed
// timeline from a kubelet going silent to its pods being deleted, which neither controller's
// own tests can see.
package timeline
