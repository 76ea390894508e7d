@_spi(Internals) import SluiceCore

/// How an error ends the tool: the message for stderr and the exit code — the one table from
/// errors to exit codes.
///
/// A pipeline run does not throw for what happens to its data: its report carries the outcome
/// and the exit code (`RunReport.exitCode`). What reaches here is what stops a command before
/// or outside such a run: its command line, its spec, a history that is not there, a
/// database that cannot be read.
struct FailureExit {
  var message: String
  var status: Int32

  /// `command` is the subcommand that failed, when one was recognised: usage errors point at
  /// its `--help`.
  init(_ error: any Error, command: String?) {
    switch error {
    case let error as UsageError:
      message = "\(error.message)\nRun 'sluice \(command.map { "\($0) " } ?? "")--help' for usage."
      status = ExitCode.usage
    case let error as SpecError:
      message = "\(error.subject) \(error)"
      status = ExitCode.usage
    case let error as RunHistoryError:
      message = "\(error)"
      status = Self.status(of: error.code)
    case let error as ReportFileError:
      message = error.message
      status = error.code == .unreadable ? ExitCode.noInput : ExitCode.dataError
    case let error as InputError:
      message = error.description
      status = ExitCode.of(error)
    case let error as EvolutionRefusal:
      message = error.message
      status = ExitCode.dataError
    case let error as OutputError:
      message = error.message
      status = error.kind == .cannotCreate ? ExitCode.cannotCreate : ExitCode.ioError
    default:
      message = "\(error)"
      status = ExitCode.ioError
    }
  }

  /// Nothing to show is 66 — no database, no history in it, no such run: what was named is not
  /// there. A file that holds something other than what Sluice writes is 65, a data error.
  private static func status(of code: RunHistoryError.Code) -> Int32 {
    switch code {
    case .databaseMissing, .noHistory, .unknownRun: ExitCode.noInput
    case .notADatabase, .malformedRow: ExitCode.dataError
    case .unreachable: ExitCode.ioError
    }
  }
}
