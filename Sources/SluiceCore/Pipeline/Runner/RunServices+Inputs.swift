import Foundation

/// Opening and reading the run's inputs, and checking before the run that they are there.
extension RunServices {
  /// Opens one input, reads it to its end with `body` and closes it, counting what its records
  /// did as its own; `body` returns the rows they wrote.
  ///
  /// `resuming` is the input a checkpointed run stopped in (`CheckpointedRun`): it is
  /// read again from its start, its first results taken from the reader without being decoded.
  package func read(
    _ source: Source, index: Int? = nil, state: inout RunState, resuming: InputProgress.Saved? = nil,
    _ body: (any RecordReader, any RecordLoading, inout RunState) throws -> [String: Int]
  ) throws {
    // A run that writes hashes each input as it reads it, for the input ledger. A FIFO's writer
    // is waited for as long as an output FIFO's reader: `busyTimeout`.
    let stream = try opening(source.input.location) {
      try Input(
        path: $0, digesting: !configuration.isDryRun, writerWait: configuration.busyTimeoutSeconds,
        remote: configuration.remote)
    }
    let reader = makeReader(for: source.input, source: stream)
    var rowsWritten: [String: Int] = [:]
    if let resuming {
      if let then = resuming.remoteObject, let now = stream.remoteObject, !now.isSameObject(as: then) {
        throw RunAbort(
          failure: .init(
            kind: .data,
            message:
              "\(source.input.path) was replaced since the interrupted run read it (ETag \(then.etag ?? "none") then, \(now.etag ?? "none") now): resuming would not load what that run read; nothing was written"
          ))
      }
      state.resume(resuming, input: source.input, stream: stream)
      try skip(resuming.consumed, of: reader, path: source.input.path)
      rowsWritten = resuming.rowsWritten
    } else {
      state.begin(source.input, dataset: source.dataset.name, stream: stream, index: index)
    }
    state.quarantine?.csv = (reader as? CSVRecordReader).map { ($0.dialect, $0.columns) }
    rowsWritten.merge(try body(reader, source.dataset.makeRecordLoop(configuration), &state), uniquingKeysWith: +)
    state.endInput(rowsWritten: rowsWritten, digest: try stream.finishDigest())
  }

  /// The record reader for an input: the one place a format becomes a reader.
  private func makeReader(for input: PipelineInput, source: Input) -> any RecordReader {
    if configuration.mode == .replay { return QuarantineReader(source: source) }
    return RecordReaders.make(
      format: input.format, recordPath: input.recordPath, source: source, dialect: input.dialect,
      xmlNaming: input.hasQualifiedXMLNames ? .qualified : .local)
  }

  /// Every required input is there and readable: a missing one fails the run before the
  /// database is opened, let alone written. An optional input that is missing (a dump folder
  /// without `PostHistory.xml`) is a warning of the read stage naming it, and its place is
  /// returned: the run skips it. So is each file a glob matched and its `exclude` left out.
  ///
  /// The check looks and never opens: each input is opened exactly once, when it is read. A
  /// FIFO opened here and closed again would block until its writer came, then cut the writer
  /// off (SIGPIPE) or lose what it wrote before the second open.
  func checkInputsExist(state: inout RunState) throws -> Set<Int> {
    var missing: Set<Int> = []
    for (index, source) in inputs.enumerated() where source.input.path != "-" {
      guard let problem = Self.problem(reading: source.input) else { continue }
      guard source.input.isOptional else {
        throw RunAbort(failure: .init(kind: .inputMissing, message: "\(source.input.path): \(problem)"))
      }
      missing.insert(index)
      var warning = Issue(
        stage: .read, severity: .warning, code: .missingInput, location: nil,
        message: "the optional input is not there (\(problem)); the run goes on without it")
      warning.input = source.input.path
      state.ledger.warn(warning)
    }
    for excluded in configuration.excludedInputs {
      var warning = Issue(
        stage: .read, severity: .warning, code: .excludedInput, location: nil,
        message:
          "not read: the file matches the input \(excluded.pattern) (\(excluded.dataset)), and its name the input's exclude '\(excluded.exclusion)'"
      )
      warning.input = excluded.path
      state.ledger.warn(warning)
    }
    return missing
  }

  /// Why `input` cannot be read, or nil when it can: it is missing, a pattern that matched no
  /// file, a directory, or not readable by this process.
  static func problem(reading input: PipelineInput) -> String? {
    let path = input.path
    if input.isUnmatchedPattern {
      var problem = "no file matches this pattern"
      let literal = PipelineSpec.unescaped(path)
      if FileManager.default.fileExists(atPath: literal) {
        problem +=
          "; a file of that very name exists — a path with *, ? or [ in a file's name is written with a backslash before each (\\[), as the shell takes it"
      }
      return problem
    }
    // A remote input is looked at when it is opened: a request here would be one more per object.
    if RemoteURL.isURL(path) { return nil }
    var status = stat()
    guard stat(path, &status) == 0 else {
      let code = errno
      return code == ENOENT ? "no such file" : "cannot open: \(OutputFile.reason(code))"
    }
    if status.st_mode & S_IFMT == S_IFDIR { return "is a directory" }
    if access(path, R_OK) != 0 { return "cannot open: \(OutputFile.reason(errno))" }
    return nil
  }

  /// An input that cannot be opened is missing or unreadable (exit 66), unlike one whose stream
  /// breaks while it is read (exit 74).
  private func opening<T>(_ path: String, _ body: (String) throws -> T) throws -> T {
    do {
      return try body(path)
    } catch let error as InputError {
      throw RunAbort(failure: .init(kind: error.failureKind(opening: true), message: error.description))
    }
  }

}

extension InputError {
  /// The kind of run failure this error is: when `opening`, a file that cannot be opened is
  /// missing (66); a stream that breaks while it is read is an I/O error (74). A remote input's
  /// refusal is a permission error (77), its replacement mid-read a data error (65).
  package func failureKind(opening: Bool) -> RunReport.Failure.Kind {
    switch code {
    case .notFound, .unreadable, .corruptStream, .truncatedStream: return opening ? .inputMissing : .io
    case .denied: return .permissionDenied
    case .changed: return .data
    case .unreachable: return .io
    }
  }
}
