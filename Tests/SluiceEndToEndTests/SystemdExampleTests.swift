import Foundation
@_spi(Internals) import SluiceTestSupport
import Testing

/// `Examples/systemd/`: the nightly service and its timer load in systemd's own checker. The
/// service starts `/usr/bin/sluice`, which `systemd-analyze verify` requires to exist and be
/// executable (it only looks, it never runs it); the test verifies a copy whose ExecStart program
/// is `/usr/bin/true`, every other line as shipped — that ExecStart's arguments are ones `sluice
/// run` takes is the second test's, parsed in process.
@Suite(
  "The systemd example",
  .enabled(
    if: FileManager.default.isExecutableFile(atPath: "/usr/bin/systemd-analyze"),
    "no /usr/bin/systemd-analyze (Debian's systemd)"))
struct SystemdExampleTests {
  @Test func systemdAnalyzeVerifiesTheServiceAndTheTimer() throws {
    let scratch = try TemporaryDirectory()
    let folder = Repository.path("Examples/systemd")
    let service = try String(contentsOfFile: folder + "/sluice-nightly.service", encoding: .utf8)
    #expect(service.contains("ExecStart=/usr/bin/sluice run "))
    _ = try scratch.write(
      "sluice-nightly.service",
      service.replacingOccurrences(of: "ExecStart=/usr/bin/sluice ", with: "ExecStart=/usr/bin/true "))
    _ = try scratch.write(
      "sluice-nightly.timer", try String(contentsOfFile: folder + "/sluice-nightly.timer", encoding: .utf8))
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/systemd-analyze")
    process.arguments = ["verify", "sluice-nightly.service", "sluice-nightly.timer"]
    process.currentDirectoryURL = URL(fileURLWithPath: scratch.path)
    let output = Pipe()
    process.standardOutput = output
    process.standardError = output
    try process.run()
    let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    #expect(process.terminationStatus == 0)
    #expect(printed == "")
  }

  @Test func theServicesCommandLineNamesOptionsSluiceTakes() throws {
    let service = try String(
      contentsOfFile: Repository.path("Examples/systemd/sluice-nightly.service"), encoding: .utf8)
    // ExecStart's logical line, its `\` continuations joined.
    let joined = service.replacingOccurrences(of: "\\\n", with: " ")
    let line = try #require(joined.split(separator: "\n").first { $0.hasPrefix("ExecStart=") })
    let words = line.dropFirst("ExecStart=".count).split(separator: " ").map(String.init)
    #expect(words.first == "/usr/bin/sluice")
    // The parser reads every option before the spec is opened: only the spec, which is not on
    // this machine, is missing.
    let result = try SluiceCommand.run(Array(words.dropFirst()))
    #expect(result.status == 64)
    #expect(
      result.stderr.hasPrefix("sluice: pipeline spec /etc/sluice/orders.json: no such file\n"), "\(result.stderr)")
  }
}
