/// Exit codes from `sysexits.h`, as DESIGN.md lists them.
enum ExitCode {
  static let success: Int32 = 0
  /// EX_USAGE: bad command line or pipeline spec.
  static let usage: Int32 = 64
  /// EX_DATAERR: the run failed on its data and nothing was written.
  static let dataError: Int32 = 65
  /// EX_NOINPUT: the input is missing or unreadable.
  static let noInput: Int32 = 66
  /// EX_CANTCREAT: the database or a report cannot be created.
  static let cannotCreate: Int32 = 73
  /// EX_IOERR: a corrupt or truncated stream, a locked or full database.
  static let ioError: Int32 = 74
}

/// A command line that cannot be run; exit 64 with the message and a pointer to `--help`.
struct UsageError: Error, CustomStringConvertible {
  var message: String
  var help: String
  var description: String { message }
}
