@_spi(Internals) import SluiceCore

/// What `sluice inspect` found in an input: its format, the record paths it holds, and the shape
/// of the records at the chosen one. Counts and lengths only; values only with `showsValues`.
package struct Inspection: Sendable {
  public var path: String
  /// The file's size on disk (compressed, for gzip).
  public var fileBytes: Int64
  public var isGzip: Bool
  /// The decompressed size, when every pass read the input to its end.
  public var decompressedBytes: Int64?
  public var format: PipelineConfiguration.Format
  /// The format was found from the content rather than given.
  public var formatWasDetected: Bool
  /// Record paths found (empty for NDJSON, whose records are its lines), in document order.
  public var candidates: [RecordPathCandidate]
  /// The structure pass read the whole input (otherwise it stopped at the sample).
  public var candidatesAreComplete: Bool
  /// The record path inspected: given, or the best candidate.
  public var recordPath: [String]
  public var recordPathWasGiven: Bool
  /// Records read at most (nil: all).
  public var sampleSize: Int?
  /// Records read and folded into `fields`.
  public var records: Int
  /// The sample ended before the records did.
  public var hasMoreRecords: Bool
  /// The records themselves: their kinds (objects, normally).
  public var record: FieldShape
  /// Every field path, depth first in order of first appearance.
  public var fields: [FieldShape]
  /// Records the reader could not read but could skip — NDJSON lines that are not JSON, XML
  /// records over the size or depth limit — and the first one's error.
  public var skippedRecords: Int
  public var firstSkippedRecord: RecordReadError?
  /// Things the reader should know: caps reached, a sample that stopped the structure pass.
  public var notes: [String]
  public var showsValues: Bool
  /// For CSV and TSV: the dialect the rows were read in, and which parts were sniffed.
  package var csv: CSVSniff? = nil
  /// The records were read with XML elements keyed by prefixed name (`InspectOptions.qualifiesXMLNames`
  /// and two prefixes at one element path): a spec must say `"xmlNames": "qualified"`.
  package var hasQualifiedXMLNames = false

  /// The record path as `--record-path` takes it (`''` for a top-level JSON array).
  public var recordPathText: String { RecordPathCandidate.text(recordPath) }
}

/// What `inspect` reads, and how much of it.
package struct InspectOptions: Sendable {
  /// Records read when no sample size is given.
  public static let defaultSampleSize = 1_000

  /// The format; detected from the content when nil.
  public var format: PipelineConfiguration.Format?
  /// The record path; the best candidate when nil.
  public var recordPath: [String]?
  /// Records to read (and where the structure pass may stop); nil reads the whole input.
  public var sampleSize: Int?
  /// Keep a few example values per field (never otherwise).
  public var showsValues: Bool
  /// Distinct field paths tracked; values at further paths are counted, not described.
  public var maxFieldPaths: Int
  /// Distinct record paths listed.
  public var maxCandidates: Int
  /// How a URL input is read (each pass asks for the object again).
  public var remote = RemoteAccess.none
  /// Without a record path, take the outermost collection of records (`RecordPathCandidate.
  /// outermost`: a one-order dump's `orders`, not its two line items) rather than the longest
  /// array, as `sluice init` does.
  package var prefersOutermost = false
  /// When an element path is written with two namespace prefixes (`content:encoded`,
  /// `excerpt:encoded`), read the records with prefixed names, so that they are two fields
  /// (`sluice init`, which writes `"xmlNames": "qualified"` in the spec).
  package var qualifiesXMLNames = false
  /// For CSV and TSV: the dialect's parts given on the command line; the others are sniffed.
  package var dialect = CSVDialectOptions()

  public init(
    format: PipelineConfiguration.Format? = nil, recordPath: [String]? = nil,
    sampleSize: Int? = InspectOptions.defaultSampleSize, showsValues: Bool = false, maxFieldPaths: Int = 1_000,
    maxCandidates: Int = 256
  ) {
    self.format = format
    self.recordPath = recordPath
    self.sampleSize = sampleSize
    self.showsValues = showsValues
    self.maxFieldPaths = maxFieldPaths
    self.maxCandidates = maxCandidates
  }
}

/// The input holds nothing `inspect` can describe as records, or the options do not fit it.
package struct InspectionError: Error, Sendable, CustomStringConvertible {
  public enum Code: Sendable {
    /// No array of objects (JSON) or repeated element (XML) in the input.
    case noRecordPath
    /// A record path was given for NDJSON, whose records are its lines.
    case recordPathNotApplicable
    /// A CSV file is not UTF-8, and several legacy encodings read it alike: it must be given.
    case unknownEncoding
  }

  public var code: Code
  public var message: String

  public var description: String { message }
}
