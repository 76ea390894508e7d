/// Which Sluice this program is: its version and the commit it was built from.
///
/// The version is this one constant, changed by hand in the commit that makes a release;
/// `.ci/build-release` names the package after it. The commit cannot come from `git describe` at
/// build time — SwiftPM runs nothing before compiling (no build-info injection without a plugin),
/// and a build from a tarball has no `.git` — so it comes from git's own `export-subst`
/// (`.gitattributes`): `git archive`, which makes a source tarball and which `.ci/build-release`
/// builds from, writes the commit's hash in place of the placeholder below (`%H` in git's format). A build
/// from a working copy keeps the placeholder and says its commit is unknown.
package enum SluiceVersion {
  /// The release this source is: `0.1.0`.
  package static let number = "0.1.0"

  /// The commit a `git archive` of this source was made from, or the placeholder.
  static let archivedCommit = "$Format:%H$"

  /// The commit this binary was built from, when it was built from a `git archive`.
  package static var commit: String? { commit(from: archivedCommit) }

  /// `text` when `git archive` wrote a commit's hash there (40 or 64 hex digits), else nil.
  package static func commit(from text: String) -> String? {
    [40, 64].contains(text.count) && text.allSatisfy(\.isHexDigit) ? text : nil
  }
}
