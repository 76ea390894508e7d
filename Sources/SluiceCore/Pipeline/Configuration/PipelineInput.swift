/// One input of a pipeline: which dataset its records are, where they come from and how they
/// are laid out.
///
/// A pipeline reads one input, or several in order (`inputs` in a spec) — a dump folder's
/// files, devices then the alerts that name them — all into one transaction. Everything else
/// about a run (policy, database, conflict policy, outputs) is the pipeline's, shared by its
/// inputs.
public struct PipelineInput: Sendable, Hashable {
  /// The catalog name of the dataset the records are; `nil` reads them as the pipeline's one
  /// dataset (`Pipeline<D>`'s).
  public var dataset: String?
  /// An absolute path, or `-` for standard input.
  public var path: String
  public var format: PipelineConfiguration.Format
  /// Keys leading to the record array; empty for a top-level array.
  public var recordPath: [String]
  /// How a CSV or TSV input is written; nil: the format's default (`CSVDialect.csv`, `.tsv`).
  public var dialect: CSVDialect?
  /// An XML input's elements and attributes keyed by qualified name (`prefix:local`), not by
  /// local name (`"xmlNames": "qualified"` in a spec; `XMLRecordReader.Naming`).
  public var hasQualifiedXMLNames = false
  /// A spec's glob pattern that matched no file (`path` is the pattern): the run fails with
  /// exit 66 before it opens the database (`PipelineSpec.expand`).
  public var isUnmatchedPattern = false
  /// An input the run may go without (`"optional": true` in a spec): when it is missing, or its
  /// pattern matches no file, the run warns (`missingInput`) and reads the others.
  public var isOptional = false
  /// An input an incremental run may skip (`"incremental": true` in a spec, `--incremental`):
  /// when the database's input ledger already holds its content, under any name, it is not
  /// read; when its path was loaded with other content, the run is refused unless it reloads
  /// changed inputs (`PipelineConfiguration.incremental`).
  public var isIncremental = false
  /// An input that is a full snapshot of its dataset (`"snapshot": true` in a spec,
  /// `--snapshot`): after the load, the top-level rows of its dataset's tables whose keys the
  /// run did not write are deleted, within `PipelineConfiguration.snapshot`.
  public var isSnapshot = false
  /// The spec's glob pattern this input is one match of (nil for a path without one): the files
  /// of one pattern are what `sluice run --share K/N` deals out among several processes.
  public var pattern: String?
  /// A remote input as its listing described it (ETag, size), so an incremental run can skip
  /// an object it holds without asking for it again; nil for files and unlisted URLs.
  public var remoteObject: RemoteObject?
  /// A remote input's URL as written, presigned query and all: what is opened, never shown
  /// (`path` is the URL without them, `RemoteURL.redacted`).
  public var requestURL: String?
  /// A remote pattern's `exclude` names, applied when it is listed (a file pattern's are applied
  /// when the spec is read).
  package var exclusions: [String] = []
  /// What the input is opened by: its URL as written, or its path.
  public var location: String { requestURL ?? path }
  /// A spec's relative input's path relative to the spec's folder, as if `--input-dir` had not
  /// re-based it; nil for any other input (see `name`).
  package var relativeName: String?
  /// The input's name where rows are keyed by their place in it (a dataset file's `"$input"`
  /// column, `MappingContext.inputName`): positions restart at 0 in every input, so a key of
  /// position alone would let one input replace another's rows. A spec's relative input is
  /// named by its path below the spec's folder — tonight's `--input-dir` copy of `page-1.json`
  /// is last night's input, re-imported — and any other by its path (its URL without query).
  public var name: String { relativeName ?? path }

  public init(
    dataset: String? = nil, path: String, format: PipelineConfiguration.Format = .json, recordPath: [String] = []
  ) {
    self.dataset = dataset
    self.path = path
    self.format = format
    self.recordPath = recordPath
  }
}
