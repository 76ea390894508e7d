import SluiceCore

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

/// Standard output: results. Remembers the first write that failed, so the command can report
/// it and exit non-zero instead of pretending its results were delivered.
final class StandardOutput {
  nonisolated(unsafe) static let shared = StandardOutput()
  private(set) var failure: String?

  func print(_ text: String = "") {
    guard failure == nil else { return }
    if let code = StandardStreams.write(text + "\n", to: 1) {
      failure = String(cString: strerror(code))
    }
  }
}

/// Writes a result line to standard output.
func printOutput(_ text: String = "") {
  StandardOutput.shared.print(text)
}

/// Writes a line to standard error; dropped when stderr is closed or full.
///
/// Diagnostics quote paths, keys and messages that come from the data: each line is escaped
/// (`TerminalText`), so an escape sequence or a bidirectional override in them never reaches the
/// terminal or the log; the message's own line breaks stay.
func printError(_ text: String) {
  let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map { String($0) }
  _ = StandardStreams.write(TerminalText.lines(lines) + "\n", to: 2)
}
