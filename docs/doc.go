// Package docs holds the repository's documentation (the Markdown files beside this one) and
// the tests that keep it standing on its own.
//
// It promises, each checked by a test:
//
//   - The repository is self-contained: no file outside .git (and the build outputs the
//     .gitignore lists) mentions a path outside the repository, such as the design notes the
//     project started from, or a reference document that is not in it. Upstream facts are
//     cited from their upstream source or from upstream.md.
//   - Every citation of upstream.md#<anchor> or architecture.md#<anchor> anywhere in the
//     repository names a heading that exists, so the anchors other documents and code comments
//     rely on stay stable; every relative link in the README and in these documents names a
//     file (and heading) inside the repository.
//   - The documents describe the code as it is: every package path architecture.md names, and
//     every package upstream.md says a behaviour is "Modelled in", exists.
//   - The README's sample output is what its command prints (checked in internal/cli, which
//     can run it).
//
// It has no code: the package exists for its tests.
package docs
