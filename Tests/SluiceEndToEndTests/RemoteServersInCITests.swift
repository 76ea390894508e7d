import Foundation
import SluiceTestSupport
import Testing

/// In CI the remote-input tests must run: `.ci/run` runs the tests inside `.ci/with-remote`, and a
/// missing variable there would otherwise turn every remote test into a quiet skip.
@Suite("Remote servers in CI")
struct RemoteServersInCITests {
  @Test(
    .enabled(
      if: ProcessInfo.processInfo.environment["CI"] == "true",
      "only in CI (CI=true), where .ci/run runs the tests through .ci/with-remote"))
  func theTestsHaveTheRemoteServersInCI() {
    #expect(
      RemoteServers.missing.isEmpty,
      "CI=true but \(RemoteServers.missing.joined(separator: ", ")) not set: the remote-input tests would be skipped")
  }
}
