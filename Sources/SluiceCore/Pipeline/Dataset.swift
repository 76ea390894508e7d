/// A dataset plugs its types into the generic engine: DTO, domain record, rules, loader, schema.
///
/// The engine knows no dataset (design rule 14): adding one means writing a type that conforms
/// to this protocol in the catalog target and listing it there — no engine file changes.
public protocol Dataset: Sendable {
  /// The wire format, mirrored faithfully.
  associatedtype DTO: Decodable
  /// The domain value the loader writes.
  associatedtype Record
  associatedtype Loader: RecordLoader<Record>

  /// The name pipeline specs use (`"fruits"`).
  var name: String { get }
  /// One line for `sluice --help`.
  var summary: String { get }
  /// The schema, as ordered migrations.
  var migrations: [Migration] { get }
  /// The tables this dataset writes, parents first; their row counts end the run's summary.
  var tables: [String] { get }
  /// The validation rules `validate` checks, listed for reports (each is a JUnit test case).
  var rules: [ValidationRule] { get }

  /// Business rules on the DTO (the validate stage).
  func validate(_ dto: DTO, into validation: inout Validation)
  /// DTO → domain (the map stage).
  func map(_ dto: DTO) throws(MappingError) -> Record
  /// Prepares the loader's statements on a connection inside the run's transaction.
  func makeLoader(connection: SQLiteConnection, conflict: ConflictPolicy) throws -> Loader
  /// Brings enum-owned lookup tables in line with their enums, after the migrations and before
  /// any record (`LookupTable.synchronize`).
  func synchronizeLookups(_ connection: SQLiteConnection) throws
}

extension Dataset {
  public var rules: [ValidationRule] { [] }
  public func synchronizeLookups(_ connection: SQLiteConnection) throws {}
}

/// A dataset with its types erased, so the command line can pick one by name.
public struct AnyDataset: Sendable {
  public let name: String
  public let summary: String
  public let migrations: [Migration]
  public let tables: [String]
  public let rules: [ValidationRule]
  private let runPipeline: @Sendable (PipelineConfiguration) -> RunReport

  public init<D: Dataset>(_ dataset: D) {
    name = dataset.name
    summary = dataset.summary
    migrations = dataset.migrations
    tables = dataset.tables
    rules = dataset.rules
    runPipeline = { configuration in Pipeline(dataset: dataset, configuration: configuration).run() }
  }

  public func run(_ configuration: PipelineConfiguration) -> RunReport {
    runPipeline(configuration)
  }
}
