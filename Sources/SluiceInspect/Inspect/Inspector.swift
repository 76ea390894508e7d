import Glibc
@_spi(Internals) import SluiceCore

/// `sluice inspect`'s engine: finds an input's format and record paths, then reads the records
/// at one of them with Sluice's own record readers and describes their fields.
///
/// The input is opened up to three times, each a streaming pass: the first megabyte tells the
/// format (unless given); a structure pass lists the record paths (JSON, XML; NDJSON's records
/// are its lines); the record pass folds each record's tape into a `ShapeCollector`. With a
/// sample size the last two stop after that many records, so a sample of a huge dump is quick;
/// without, both read everything. Memory stays constant either way: one record at a time, a
/// bounded number of paths.
package enum Inspector {
  public static func inspect(path: String, options: InspectOptions = InspectOptions()) throws -> Inspection {
    try checkReadableTwice(path)
    let first = try Input(path: path, remote: options.remote)
    do {
      return try inspect(path: path, first: first, options: options)
    } catch let error as RecordReadError where first.isGzip {
      // Malformed text in a damaged gzip stream may be a symptom of the damage, which zlib
      // reports further on: the stream's error is the one to show.
      if let streamError = try Input(path: path, remote: options.remote).drain() { throw streamError }
      throw error
    }
  }

  /// Inspection reads its input in several passes, so it takes only a regular file: a pipe, a
  /// FIFO (`<(…)`) or a device gives its bytes once, and the later passes would find nothing —
  /// zero records, reported as a success. Refused with a reason instead.
  static func checkReadableTwice(_ path: String) throws {
    var status = stat()
    guard stat(path, &status) == 0 else { return }  // Opening says why.
    let kind: String
    switch status.st_mode & S_IFMT {
    case S_IFREG, S_IFDIR: return  // Opening a directory says so.
    case S_IFIFO: kind = "a pipe or FIFO"
    case S_IFCHR: kind = "a character device"
    case S_IFSOCK: kind = "a socket"
    default: kind = "not a regular file"
    }
    throw InputError(
      code: .unreadable, path: path,
      message:
        "is \(kind), which can be read only once; inspect reads its input in several passes: save it to a file first")
  }

  private static func inspect(path: String, first: Input, options: InspectOptions) throws -> Inspection {
    var format: PipelineConfiguration.Format
    if let given = options.format {
      format = given
    } else if options.dialect.isEmpty {
      format = try FormatSniffer.sniff(first, path: path)
    } else {
      // Dialect options say the file is delimited, even when its rows do not show it (a column).
      do {
        format = try FormatSniffer.sniff(first, path: path)
      } catch is RecordReadError {
        format = options.dialect.delimiter == 0x09 ? .tsv : .csv
      }
    }
    if !options.dialect.isEmpty && format != .csv && format != .tsv {
      throw InspectionError(
        code: .recordPathNotApplicable,
        message:
          "--delimiter, --quote, --no-header, --columns, --empty and --encoding apply to CSV and TSV; \(path) is \(format)\(options.format == nil ? " (detected)" : "")"
      )
    }
    var notes: [String] = []
    var reachedEnd = true

    // The record paths.
    var candidates: [RecordPathCandidate] = []
    var candidatesAreComplete = true
    var csv: CSVSniff?
    var xmlNaming = XMLRecordReader.Naming.local
    switch format {
    case .json:
      let outline = try JSONOutline(
        source: Input(path: path, remote: options.remote), sampleSize: options.sampleSize,
        maxCandidates: options.maxCandidates
      ).run()
      candidates = outline.candidates
      candidatesAreComplete = outline.isComplete
      if outline.droppedCandidates > 0 {
        notes.append(
          "record paths capped at \(options.maxCandidates): \(outline.droppedCandidates) array(s) of objects at further paths not listed"
        )
      }
    case .xml:
      let outline = try XMLOutline(source: Input(path: path, remote: options.remote), sampleSize: options.sampleSize)
        .run()
      candidates = outline.candidates
      candidatesAreComplete = outline.isComplete
      if let twice = outline.prefixedTwice {
        if options.qualifiesXMLNames { xmlNaming = .qualified }
        notes.append(Self.prefixNote(twice, qualified: xmlNaming == .qualified))
      }
      if outline.untrackedElements > 0 {
        notes.append(
          "element paths capped: \(outline.untrackedElements) element(s) at further paths not counted")
      }
    case .csv, .tsv:
      if let given = options.recordPath, !given.isEmpty {
        throw InspectionError(
          code: .recordPathNotApplicable, message: "--record-path applies to JSON and XML; \(path) is \(format)")
      }
      let (prefix, isComplete) = try FormatSniffer.prefix(of: Input(path: path, remote: options.remote))
      do {
        csv = try CSVSniffer.sniff(
          prefix, isComplete: isComplete, format: options.format, hint: format, options: options.dialect)
      } catch {
        throw InspectionError(code: .recordPathNotApplicable, message: "--encoding: \(error.message)")
      }
      if let csv, csv.encodingConfidence == .unknown {
        throw InspectionError(
          code: .unknownEncoding,
          message:
            "cannot tell the encoding: \(csv.encodingReason); give it with --encoding "
            + "(\(csv.encodingCandidates.joined(separator: " or "))), or a spec's dialect.encoding")
      }
      format = csv?.format ?? format
    case .ndjson:
      if let given = options.recordPath, !given.isEmpty {
        throw InspectionError(
          code: .recordPathNotApplicable,
          message:
            "--record-path applies to JSON and XML; \(path) is NDJSON\(options.format == nil ? " (detected)" : ""), whose records are its lines"
        )
      }
    }
    if !candidatesAreComplete {
      reachedEnd = false
      let sample = options.sampleSize ?? 0
      notes.append(
        "the record paths were listed from the input up to \(sample) records in one array: counts marked ≥ are lower bounds, and paths that only appear later are missing (--all reads everything)"
      )
    }

    // The record path.
    let recordPath: [String]
    if let given = options.recordPath {
      recordPath = given
    } else if format == .ndjson || csv != nil {
      recordPath = []
    } else if let best = options.prefersOutermost
      ? RecordPathCandidate.outermost(of: candidates, sampleSize: options.sampleSize)
      : RecordPathCandidate.best(of: candidates, sampleSize: options.sampleSize)
    {
      recordPath = best.keys
    } else {
      throw InspectionError(
        code: .noRecordPath,
        message: format == .json
          ? "\(path) holds no array of objects: no record path for sluice run (records are the objects of an array)"
          : "\(path) has no repeated element: no record path for sluice run (records are elements)")
    }

    // The records.
    let input = try Input(path: path, remote: options.remote)
    let reader = RecordReaders.make(
      format: format, recordPath: recordPath, source: input, dialect: csv?.dialect, xmlNaming: xmlNaming)
    var collector = ShapeCollector(showsValues: options.showsValues, maxPaths: options.maxFieldPaths)
    let pass: RecordPass
    do {
      pass = try RecordPass.read(reader, sampleSize: options.sampleSize, into: &collector)
    } catch var error as RecordReadError where options.recordPath != nil && error.code == .invalidValue {
      // A record path that leads nowhere: say where the records are.
      if !candidates.isEmpty {
        error.message += "; record paths found: " + candidates.map(\.text).joined(separator: ", ")
      }
      throw error
    }
    let hasMoreRecords = pass.hasMoreRecords
    if hasMoreRecords { reachedEnd = false }

    let fields = collector.finish()
    if collector.isCapped {
      notes.append(
        "field paths capped at \(options.maxFieldPaths): \(collector.untrackedValues) value(s) at further paths not described"
      )
    }
    if let csvReader = reader as? CSVRecordReader, !csvReader.renamedColumns.isEmpty {
      notes.append(CSVRenamedColumn.summary(csvReader.renamedColumns))
    }
    if collector.duplicateKeys > 0 {
      notes.append("\(collector.duplicateKeys) key(s) repeated within one object, counted once")
    }
    if let first = pass.firstKeyRepeatedAround {
      notes.append(
        "\(pass.keysRepeatedAround) key(s) repeated in the objects around the records (a run reports each as duplicateKey), the first at \(first.path) (\(first))"
      )
    }
    let objects = collector.record.kinds.object
    if collector.records > objects {
      notes.append(
        "\(collector.records - objects) of \(collector.records) records are not objects (\(describe(collector.record.kinds))): a DTO cannot decode them"
      )
    }
    return Inspection(
      path: path, fileBytes: first.size ?? 0, isGzip: first.isGzip,
      decompressedBytes: reachedEnd ? input.decompressedBytes : nil, format: format,
      formatWasDetected: options.format == nil, candidates: candidates, candidatesAreComplete: candidatesAreComplete,
      recordPath: recordPath, recordPathWasGiven: options.recordPath != nil, sampleSize: options.sampleSize,
      records: collector.records, hasMoreRecords: hasMoreRecords, record: collector.record, fields: fields,
      skippedRecords: pass.skippedRecords, firstSkippedRecord: pass.firstSkippedRecord, notes: notes,
      showsValues: options.showsValues, csv: csv, hasQualifiedXMLNames: xmlNaming == .qualified)
  }

  /// The note on elements of one path written with two namespace prefixes.
  static func prefixNote(_ path: String, qualified: Bool) -> String {
    qualified
      ? "elements at \(path) are written with two namespace prefixes: fields are named by prefixed name (content:encoded), as a spec's \"xmlNames\": \"qualified\" reads them"
      : "elements at \(path) are written with two namespace prefixes: read by local name (the default) they are one field; a spec's \"xmlNames\": \"qualified\" names them by prefixed name (content:encoded)"
  }

  /// The record pass: up to `sampleSize` records folded into a collector; records the reader
  /// can skip (a bad NDJSON line, an XML record over a limit) counted and skipped.
  private struct RecordPass {
    var skippedRecords = 0
    var firstSkippedRecord: RecordReadError?
    /// Keys repeated in the objects around the records (a second record array under the same
    /// key, whose records are read too), and the first of them.
    var keysRepeatedAround = 0
    var firstKeyRepeatedAround: RecordReadError?
    /// The sample ended before the records did.
    var hasMoreRecords = false

    static func read(
      _ reader: any RecordReader, sampleSize: Int?, into collector: inout ShapeCollector
    ) throws -> RecordPass {
      var pass = RecordPass()
      var tape = RecordTape()
      while true {
        if let sampleSize, collector.records >= sampleSize {
          pass.hasMoreRecords = hasAnotherRecord(reader)
          return pass
        }
        let record: RawRecord
        do {
          guard let next = try reader.next() else { return pass }
          record = next
        } catch let error as RecordReadError where error.isOutsideRecords {
          // A key repeated around the records: no record; said in the notes.
          pass.keysRepeatedAround += 1
          if pass.firstKeyRepeatedAround == nil { pass.firstKeyRepeatedAround = error }
          continue
        } catch let error as RecordReadError where error.isRecoverable {
          pass.skippedRecords += 1
          if pass.firstSkippedRecord == nil { pass.firstSkippedRecord = error }
          continue
        }
        if let recordTape = record.tape {
          collector.add(recordTape)
        } else {
          try tape.loadJSON(record.bytes)
          collector.add(tape)
        }
      }
    }

    /// Whether anything follows the sample: a record, or a line or element that fails to read.
    private static func hasAnotherRecord(_ reader: any RecordReader) -> Bool {
      do {
        return try reader.next() != nil
      } catch {
        return true
      }
    }
  }

  private static func describe(_ kinds: FieldShape.Kinds) -> String {
    var all = kinds.nonNull.filter { $0.name != "object" }.map { "\($0.count) \($0.name)" }
    if kinds.null > 0 { all.append("\(kinds.null) null") }
    return all.joined(separator: ", ")
  }
}
