import Foundation
import SluiceCLI
import SluiceCatalog
import SluicePostgreSQL
import SluicePostgreSQLTestSupport
import SluiceSQLite
@_spi(Internals) import SluiceTestSupport

/// Runs the built `sluice` executable as a user would, capturing exit code, stdout and stderr.
struct SluiceBinary {
  struct Result {
    var status: Int32
    var stdout: String
    var stderr: String
  }

  /// The executable sits next to the test bundle in the build products directory.
  static let path = builtExecutable("sluice")
  /// `sluice` plus `run --test-kill-at POINT` (`Tests/SluiceFaults`): what runs the command
  /// lines that kill a run at a chosen point, as the shipped binary has no test hook.
  static let faultsPath = builtExecutable("sluice-faults")

  private static func builtExecutable(_ name: String) -> String { Tool.built(name) }

  /// The bytes of `sluice` and of `sluice-faults`, read, not run (which test hooks each holds).
  static func contents() throws -> (sluice: Data, faults: Data) {
    (try Data(contentsOf: URL(fileURLWithPath: path)), try Data(contentsOf: URL(fileURLWithPath: faultsPath)))
  }

  /// The executable for `arguments`: `sluice-faults` when they ask for a kill, else `sluice`.
  static func executable(for arguments: [String]) -> URL {
    URL(fileURLWithPath: arguments.contains("--test-kill-at") ? faultsPath : path)
  }

  /// Runs `sluice arguments…` in `directory`, with `stdin` (a file path) as standard input.
  static func run(_ arguments: [String], in directory: String = Repository.root, stdin: String? = nil) throws -> Result
  {
    let process = Process()
    process.executableURL = executable(for: arguments)
    process.arguments = arguments
    process.currentDirectoryURL = URL(fileURLWithPath: directory)
    process.standardInput =
      try stdin.map { try FileHandle(forReadingFrom: URL(fileURLWithPath: $0)) } ?? FileHandle.nullDevice
    return try capture(process)
  }

  /// Runs `process` to its end with stdout and stderr going to files, and returns both.
  static func capture(_ process: Process) throws -> Result {
    let scratch = try TemporaryDirectory()
    let outPath = scratch.file("stdout")
    let errPath = scratch.file("stderr")
    _ = FileManager.default.createFile(atPath: outPath, contents: nil)
    _ = FileManager.default.createFile(atPath: errPath, contents: nil)
    process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: outPath))
    process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errPath))
    try process.run()
    process.waitUntilExit()
    return Result(
      status: process.terminationStatus,
      stdout: try String(contentsOfFile: outPath, encoding: .utf8),
      stderr: try String(contentsOfFile: errPath, encoding: .utf8))
  }
}

extension SluiceBinary {
  /// Runs a bash script with `$SLUICE` set to the binary, for what `Process` cannot set up:
  /// closed descriptors (`2>&-`), `/dev/full`, pipes whose reader is gone, `ulimit`.
  static func shell(_ script: String, in directory: String = Repository.root) throws -> Result {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/bash")
    process.arguments = ["-c", script]
    process.currentDirectoryURL = URL(fileURLWithPath: directory)
    var environment = ProcessInfo.processInfo.environment
    environment["SLUICE"] = path
    process.environment = environment
    process.standardInput = FileHandle.nullDevice
    return try capture(process)
  }

  /// Starts `sluice arguments…` without waiting, output discarded, for tests that kill it.
  static func start(_ arguments: [String], in directory: String = Repository.root) throws -> Process {
    let process = Process()
    process.executableURL = executable(for: arguments)
    process.arguments = arguments
    process.currentDirectoryURL = URL(fileURLWithPath: directory)
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    process.standardInput = FileHandle.nullDevice
    try process.run()
    return process
  }
}

/// `sluice` run in this process, with its own standard output, standard error and working
/// directory (`CommandIO`): what most end-to-end tests need, at a fraction of a process launch.
/// What needs a process of its own — standard input, signals, a terminal, `ulimit`, `kill -9`,
/// the environment — runs the binary (`SluiceBinary`).
enum SluiceCommand {
  static func run(_ arguments: [String], in directory: String = Repository.root) throws -> SluiceBinary.Result {
    let io = CommandIO(capturingIn: directory)
    let status = Sluice.run(
      arguments: arguments, datasets: Catalog.datasets, drivers: [SQLiteDriver(), PostgreSQLDriver()], io: io)
    return SluiceBinary.Result(status: status, stdout: io.output, stderr: io.error)
  }

  /// `sluice arguments…` run in process on a thread of its own, for a test that acts while the
  /// command runs (ends its server session, stops a worker): `finished()` waits for its end.
  static func start(_ arguments: [String], in directory: String = Repository.root) -> Running {
    let running = Running()
    let thread = Thread {
      running.end(Result { try run(arguments, in: directory) })
    }
    thread.stackSize = 16 << 20
    thread.start()
    return running
  }

  /// A command started in process (`start`).
  final class Running: @unchecked Sendable {
    private let lock = NSLock()
    private let ended = DispatchSemaphore(value: 0)
    private var outcome: Result<SluiceBinary.Result, any Error>?

    /// Whether the command has not ended yet.
    var isRunning: Bool { lock.withLock { outcome == nil } }

    fileprivate func end(_ outcome: Result<SluiceBinary.Result, any Error>) {
      lock.withLock { self.outcome = outcome }
      ended.signal()
    }

    /// Waits for the command's end; what it returned.
    func finished() throws -> SluiceBinary.Result {
      ended.wait()
      ended.signal()
      return try lock.withLock { outcome! }.get()
    }

    /// Waits `seconds` at most for the command's end — a guard against a hang, as `timeout` is
    /// for a process: a command still running then fails the test (its thread is left blocked).
    func finished(within seconds: Double) throws -> SluiceBinary.Result {
      guard ended.wait(timeout: .now() + seconds) == .success else {
        throw CocoaError(.executableLoad, userInfo: [NSLocalizedDescriptionKey: "still running after \(seconds) s"])
      }
      ended.signal()
      return try lock.withLock { outcome! }.get()
    }
  }
}

/// Processes that are not `sluice`: the generators built beside it, and shells for the tools the
/// tests compare Sluice with or make data with (`zcat`, `sha256sum`, `python3`). No `$SLUICE` is
/// set here: a shell that runs the binary is `SluiceBinary.shell`, which the launch count sees
/// (`LaunchCountTests`).
enum Tool {
  /// An executable of the package (`orders-generator`, …), next to the test bundle.
  static func built(_ name: String) -> String {
    let candidates = [
      URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        .appendingPathComponent(name).path,
      Repository.path(".build/debug/\(name)"),
    ]
    return candidates.first { FileManager.default.isExecutableFile(atPath: $0) } ?? candidates[0]
  }

  /// Runs `process` to its end with stdout and stderr going to files, and returns both.
  static func capture(_ process: Process) throws -> SluiceBinary.Result { try SluiceBinary.capture(process) }

  /// Starts a bash script in `directory` without waiting (a FIFO's writer or reader), its
  /// output discarded; `end` waits for it.
  static func background(_ script: String, in directory: String = Repository.root) throws -> Process {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/bash")
    process.arguments = ["-c", script]
    process.currentDirectoryURL = URL(fileURLWithPath: directory)
    process.standardInput = FileHandle.nullDevice
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
    return process
  }

  /// Waits `seconds` at most for `process` to end, then ends it (a writer blocked on a FIFO
  /// nobody opened).
  static func end(_ process: Process, within seconds: Double = 10) {
    let deadline = Date().addingTimeInterval(seconds)
    while process.isRunning && Date() < deadline { usleep(10_000) }
    if process.isRunning { process.terminate() }
    process.waitUntilExit()
  }

  /// Runs a bash script in `directory`, standard input empty.
  static func shell(_ script: String, in directory: String = Repository.root) throws -> SluiceBinary.Result {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/bash")
    process.arguments = ["-c", script]
    process.currentDirectoryURL = URL(fileURLWithPath: directory)
    process.standardInput = FileHandle.nullDevice
    return try capture(process)
  }
}
