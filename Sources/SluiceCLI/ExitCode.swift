@_spi(Internals) import SluiceCore

/// Exit codes from `sysexits.h`, as docs/design.md lists them, and the two Sluice adds.
package enum ExitCode {
  static let success: Int32 = 0
  /// Only with `--fail-on-rejects`: a lenient run committed, but rejected records on the way.
  ///
  /// Not a `sysexits.h` code on purpose: those say something failed, and 65 says nothing was
  /// written, while here the data is in. 1 is the "done, with findings" of `diff` and `grep`:
  /// cron mails it and CI fails on it, yet no one reads it as a rolled-back run.
  static let rejectsFound: Int32 = 1
  /// `sluice recover`: interrupted parallel runs are listed, or left after `--apply` — the same
  /// "done, with findings" 1.
  static let recoveryNeeded: Int32 = 1
  /// EX_USAGE: bad command line or pipeline spec.
  static let usage: Int32 = 64
  /// EX_DATAERR: the run failed on its data and nothing was written.
  static let dataError: Int32 = 65
  /// EX_NOINPUT: the input is missing or unreadable.
  static let noInput: Int32 = 66
  /// EX_NOPERM: a remote input's server refused access (401, 403).
  static let permissionDenied: Int32 = 77
  /// EX_CANTCREAT: the database or a report cannot be created.
  static let cannotCreate: Int32 = 73
  /// EX_IOERR: a corrupt or truncated stream, a locked or full database.
  static let ioError: Int32 = 74
  /// The data was committed, but an output written after the commit was lost (EX_TEMPFAIL's
  /// number, Sluice's meaning).
  static let committedButOutputFailed: Int32 = 75

  /// The code a run's report ends the command with: its failure's kind, or 75 when the data was
  /// committed but an output written after the commit was lost. The one place a report becomes
  /// an exit code; the report itself carries the kind.
  /// The code an input that could not be opened or read ends a command with.
  package static func of(_ error: InputError) -> Int32 {
    switch error.code {
    case .notFound, .unreadable: return noInput
    case .denied: return permissionDenied
    case .changed: return dataError
    case .corruptStream, .truncatedStream, .unreachable: return ioError
    }
  }

  package static func of(_ report: RunReport) -> Int32 {
    guard let failure = report.failure else { return report.outputErrors.isEmpty ? success : committedButOutputFailed }
    switch failure.kind {
    case .configuration: return usage
    case .data: return dataError
    case .inputMissing: return noInput
    case .permissionDenied: return permissionDenied
    case .cannotCreateOutput: return cannotCreate
    case .io: return ioError
    }
  }
}
