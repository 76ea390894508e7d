import CCurl
@_spi(Internals) import SluiceCLI
@_spi(Internals) import SluiceCore
import SluiceRemote
import SluiceSQLite
@_spi(Internals) import SluiceTestSupport
import Testing

/// The remote transport names the libcurl it runs against in `sluice --version` (issue 60,
/// item 3); no server is needed.
@Suite("libcurl in sluice --version")
struct CurlVersionTests {
  @Test func versionListsTheLibcurlItRunsAgainst() throws {
    let scratch = try TemporaryDirectory()
    let io = CommandIO(capturingIn: scratch.path)
    let status = Sluice.run(
      arguments: ["--version"], datasets: [], drivers: [SQLiteDriver()], io: io, remote: [CurlRemoteInputs()])
    #expect(status == 0)
    let info = try #require(sluice_curl_version_info())
    let version = String(cString: try #require(info.pointee.version))
    #expect(io.output.split(separator: "\n").map(String.init).contains("libcurl \(version)"))
    #expect(CurlRemoteInputs().linkedLibraries == [LinkedLibrary(name: "libcurl", version: version)])
  }
}
