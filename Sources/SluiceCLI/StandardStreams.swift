import Foundation
@_spi(Internals) import SluiceCore

#if canImport(Glibc)
  import Glibc
#endif

/// Standard output and standard error, written with `write(2)` so that a closed or full stream
/// is an error code, never a crash.
///
/// Foundation's `FileHandle.write` raises an exception on `EBADF` or `ENOSPC`, which kills the
/// process — after a commit, before the report is written. Diagnostics that cannot be printed
/// are dropped: the run's outcome and exit code must not depend on stderr. Results on stdout are
/// different: losing them is reported (`StandardOutput.failure`) and changes the exit code.
enum StandardStreams {
  /// Ignores SIGPIPE (a closed pipe becomes `EPIPE`) and SIGXFSZ (a file-size limit becomes
  /// `EFBIG`), so both are reported errors instead of silent deaths.
  static func install() {
    signal(SIGPIPE, SIG_IGN)
    signal(SIGXFSZ, SIG_IGN)
  }

  /// Writes all of `text` to `descriptor`; the error code when that fails.
  static func write(_ text: String, to descriptor: Int32) -> Int32? {
    Array(text.utf8).withUnsafeBytes { OutputFile.writeAll($0, to: descriptor) }
  }
}

/// Where a command's results and diagnostics go, and the directory its relative paths start from:
/// the process's standard output, standard error and working directory for the `sluice` tool; a
/// pair of buffers and a directory of the test's own for a command run in process
/// (`Sluice.run(arguments:datasets:drivers:io:)`), so commands run side by side in one process.
package final class CommandIO: @unchecked Sendable {
  /// The command being run on this task: set by `Sluice.run`.
  @TaskLocal package static var current = CommandIO()

  /// The directory relative paths on the command line start from.
  package let workingDirectory: String
  private let lock = NSLock()
  private let captures: Bool
  private var outputText = ""
  private var errorText = ""
  /// The first result line that could not be written, as `strerror` says why.
  private var outputFailure: String?

  /// The process's streams and working directory.
  package init() {
    workingDirectory = FileManager.default.currentDirectoryPath
    captures = false
  }

  /// Buffers for standard output and standard error, and `workingDirectory` for relative paths.
  package init(capturingIn workingDirectory: String) {
    self.workingDirectory = workingDirectory
    captures = true
  }

  /// What the command wrote to standard output and standard error (captured streams only).
  package var output: String { lock.withLock { outputText } }
  package var error: String { lock.withLock { errorText } }
  package var failure: String? { lock.withLock { outputFailure } }
  /// Whether the streams are buffers (a command run in process), not the process's.
  package var isCaptured: Bool { captures }

  func writeOutput(_ text: String) {
    lock.withLock {
      guard outputFailure == nil else { return }
      if captures {
        outputText += text
      } else if let code = StandardStreams.write(text, to: 1) {
        outputFailure = String(cString: strerror(code))
      }
    }
  }

  func writeError(_ text: String) {
    lock.withLock {
      if captures {
        errorText += text
      } else {
        _ = StandardStreams.write(text, to: 2)
      }
    }
  }
}

/// Writes a result line to standard output (the command's, `CommandIO.current`).
func printOutput(_ text: String = "") {
  CommandIO.current.writeOutput(text + "\n")
}

/// Writes a line to standard error; dropped when stderr is closed or full.
///
/// Diagnostics quote paths, keys and messages that come from the data: each line is escaped
/// (`TerminalText`), so an escape sequence or a bidirectional override in them never reaches the
/// terminal or the log; the message's own line breaks stay.
func printError(_ text: String) {
  let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map { String($0) }
  CommandIO.current.writeError(TerminalText.lines(lines) + "\n")
}
