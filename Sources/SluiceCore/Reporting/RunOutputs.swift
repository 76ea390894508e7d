import Foundation

/// The files a run writes besides the database — rejects, JSON report, JUnit XML, HTML report —
/// kept in step with what happens to the database.
///
/// All of them are opened before the first record is read, so a path that cannot be written
/// fails the run before any work (exit 73). Just before a run commits, `stage` flushes the
/// rejects and writes the reports (JSON, JUnit, HTML), as the run will have ended, into their
/// temporary files and syncs them: a full disk then fails the run and rolls it back, so the
/// outputs never contradict the database. After the commit only renames remain (`finish`). A
/// stream (a FIFO, `/dev/stdout`) cannot be staged; it gets the report once the outcome is
/// final, and when that write fails the data stays committed and the report says so
/// (`outputErrors`, exit 75). A failed run publishes its rejects and a report of the failure —
/// unless it failed before it had outputs of its own (a `--resume` with nothing to resume: the
/// files there are the finished run's), when only streams get the report.
/// A committed run also removes the staging files runs killed earlier left beside its outputs
/// (`OutputFile.removeAbandonedStagingFiles`).
package final class RunOutputs {
  let rejects: OutputFile?
  private let report: OutputFile?
  private let junit: OutputFile?
  private let html: OutputFile?
  /// The report written by `stage`, which a commit makes true.
  private var staged: RunReport?

  init(configuration: PipelineConfiguration) throws(OutputError) {
    rejects = try configuration.rejectsPath.map { path throws(OutputError) in
      try OutputFile(
        path: path, purpose: "rejects file", readerWait: configuration.busyTimeoutSeconds, isPrivate: true)
    }
    report = try configuration.reportPath.map { path throws(OutputError) in
      try OutputFile(path: path, purpose: "report", readerWait: configuration.busyTimeoutSeconds)
    }
    junit = try configuration.junitPath.map { path throws(OutputError) in
      try OutputFile(path: path, purpose: "JUnit file", readerWait: configuration.busyTimeoutSeconds)
    }
    html = try configuration.htmlPath.map { path throws(OutputError) in
      try OutputFile(path: path, purpose: "HTML report", readerWait: configuration.busyTimeoutSeconds)
    }
  }

  /// Whether the run writes any file (a stream is not one): what a run killed between its
  /// commit and their renames would lose.
  var writesFiles: Bool { [rejects, report, junit, html].compactMap { $0 }.contains { !$0.isStream } }

  /// Writes and syncs everything a successful run leaves, before its commit; throws when the
  /// disk refuses, which rolls the run back.
  package func stage(_ finalReport: RunReport) throws(OutputError) {
    try rejects?.prepare()
    for (file, content) in contents(of: finalReport) where !file.isStream {
      try file.write(content)
      try file.prepare()
    }
    staged = finalReport
  }

  /// Publishes every output: the staged ones when the run committed, otherwise `finalReport`
  /// (a failure, or a dry run). Without `files`, only the streams: the files at the outputs'
  /// paths are left as they are, and their staging files go (`RunAbort.leavesOutputFiles`).
  /// Returns what could not be written, one message each.
  func finish(_ finalReport: RunReport, committed: Bool, files: Bool = true) -> [String] {
    var errors: [String] = []
    do {
      if files || rejects?.isStream == true { try rejects?.publish() }
    } catch {
      errors.append(error.message)
    }
    let report = committed ? staged ?? finalReport : finalReport
    for (file, content) in contents(of: report) where files || file.isStream {
      do {
        if !(committed && staged != nil && !file.isStream) {
          try file.rewind()
          try file.write(content)
        }
        try file.publish()
      } catch {
        errors.append(error.message)
      }
    }
    // What runs killed before left beside these files goes once a run has committed: then no
    // run of this pipeline in this database is unfinished, so none of them is resumable.
    if committed {
      for file in [rejects, self.report, junit, html].compactMap({ $0 }) { file.removeAbandonedStagingFiles() }
    }
    return errors
  }

  /// The JSON report, the JUnit file and the HTML report with their rendered content.
  private func contents(of finalReport: RunReport) -> [(OutputFile, Data)] {
    var result: [(OutputFile, Data)] = []
    if let report {
      // Encoding a report of plain values cannot fail; an empty file would say it did.
      result.append((report, (try? finalReport.jsonData()) ?? Data()))
    }
    if let junit { result.append((junit, Data(JUnitReport.render(finalReport).utf8))) }
    if let html { result.append((html, Data(HTMLReport.render(finalReport).utf8))) }
    return result
  }
}
