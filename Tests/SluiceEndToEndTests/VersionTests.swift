import CLibCrypto
import CLibPQ
import CLibXML2
import CSQLite
import CZlib
import Foundation
@_spi(Internals) import SluiceCLI
@_spi(Internals) import SluiceTestSupport
import Testing

/// `sluice --version` and `sluice version` (issue 60, item 3): the version, the commit and each C
/// library with the version it reports at run time — compared here with the library's own call.
@Suite("sluice --version")
struct VersionTests {
  /// The `NAME VERSION` lines after the version and the commit.
  static func libraries(in output: String) -> [String: String] {
    var libraries: [String: String] = [:]
    for line in output.split(separator: "\n").dropFirst(2) {
      let parts = line.split(separator: " ", maxSplits: 1).map(String.init)
      if parts.count == 2 { libraries[parts[0]] = parts[1] }
    }
    return libraries
  }

  @Test func versionListsEachLibraryWithTheVersionItReportsAtRunTime() throws {
    let result = try SluiceCommand.run(["--version"])
    #expect(result.status == 0)
    #expect(result.stderr == "")
    let lines = result.stdout.split(separator: "\n").map(String.init)
    #expect(lines.first == "sluice \(SluiceVersion.number)")
    let libraries = Self.libraries(in: result.stdout)
    #expect(libraries["SQLite"] == String(cString: sqlite3_libversion()))
    #expect(libraries["zlib"] == String(cString: zlibVersion()))
    #expect(libraries["libcrypto"] == String(cString: OpenSSL_version(Int32(OPENSSL_VERSION_STRING))))
    // libxml2 reports `20914` for 2.9.14: the dotted form names the same number.
    let xml = try #require(libraries["libxml2"]).split(separator: ".").compactMap { Int($0) }
    #expect(xml.count == 3)
    #expect(xml.reduce(0) { $0 * 100 + $1 } == Int(String(cString: sluice_xmlParserVersion())))
    // libpq reports 150005 for 15.5 (major × 10000 + minor).
    let pq = try #require(libraries["libpq"]).split(separator: ".").compactMap { Int($0) }
    #expect(pq.count == 2)
    #expect(pq[0] * 10000 + pq[1] == Int(PQlibVersion()))
    #expect(Set(libraries.keys) == ["zlib", "libxml2", "libcrypto", "SQLite", "libpq"])
  }

  @Test func versionSubcommandPrintsWhatTheOptionPrints() throws {
    let option = try SluiceCommand.run(["--version"])
    let command = try SluiceCommand.run(["version"])
    #expect(command.status == 0)
    #expect(command.stdout == option.stdout)
  }

  @Test func versionRefusesAnArgument() throws {
    let result = try SluiceCommand.run(["version", "extra"])
    #expect(result.status == 64)
    #expect(result.stdout == "")
    #expect(result.stderr == "sluice: version takes no arguments\nRun 'sluice version --help' for usage.\n")
  }

  /// A build from a working copy knows no commit and says so; a `git archive` of the source
  /// (a release tarball, what `.ci/build-release` builds) carries the commit's hash instead of
  /// the placeholder, through `.gitattributes`' export-subst.
  @Test func aReleaseArchiveRecordsItsCommitWhereAWorkingCopyDoesNot() throws {
    let output = try SluiceCommand.run(["version"]).stdout
    #expect(SluiceVersion.commit == nil)
    #expect(
      output.split(separator: "\n").dropFirst().first
        == "commit unknown (built from a working copy, not a release archive)")
    let archived = try Tool.shell(
      "git rev-parse HEAD && git archive HEAD Sources/SluiceCLI/SluiceVersion.swift | tar -xO")
    #expect(archived.status == 0, "\(archived.stderr)")
    let lines = archived.stdout.split(separator: "\n").map(String.init)
    let head = try #require(lines.first)
    #expect(head.count == 40)
    #expect(lines.contains("  static let archivedCommit = \"\(head)\""))
    #expect(SluiceVersion.commit(from: head) == head)
    #expect(SluiceVersion.commit(from: "$" + "Format:%H$") == nil)
  }
}
