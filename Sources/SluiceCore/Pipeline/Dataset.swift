/// A dataset plugs its types into the generic engine: DTO, domain record, rules, tables, rows.
///
/// The engine knows no dataset: adding one means writing a type that conforms
/// to this protocol in the catalog target and listing it there — no engine file changes. A
/// dataset writes no SQL: it declares its tables (`schema`) and turns a domain record into rows
/// (`rows(for:into:)`); the engine derives the DDL and writes the rows. The article "Declaring a
/// dataset" walks through one.
///
/// ```swift
/// struct BooksDataset: Dataset {
///   var name: String { "books" }
///   var summary: String { "books by ISBN-13 → books" }
///   static let books = Table("books", key: ["isbn"], columns: [.text("isbn"), .text("title")])
///   var schema: Schema { Schema([Self.books]) }
///   func validate(_ book: BookDTO, into validation: inout Validation) {}
///   func map(_ book: BookDTO, context _: inout MappingContext) throws(MappingError) -> BookDTO { book }
///   func rows(for book: BookDTO, into rows: inout RecordRows) { rows.add(Self.books, book.isbn, book.title) }
/// }
/// ```
public protocol Dataset: Sendable {
  /// The wire format, mirrored faithfully.
  associatedtype DTO: Decodable
  /// The domain value the rows are made of.
  associatedtype Record

  /// The name pipeline specs use (`"fruits"`).
  var name: String { get }
  /// One line for `sluice --help`.
  var summary: String { get }
  /// The tables this dataset writes, parents first.
  var schema: Schema { get }
  /// The validation rules `validate` checks, listed for reports (each is a JUnit test case).
  var rules: [ValidationRule] { get }
  /// What the map and load stages require of fields, beyond the rules, as data (`sluice
  /// contract` states it): the values of an enum-backed or discriminating string field, a row a
  /// patch must find.
  var recordConstraints: [FieldConstraint] { get }

  /// Business rules on the DTO (the validate stage).
  func validate(_ dto: DTO, into validation: inout Validation)
  /// DTO → domain (the map stage), with the record's context (`MappingContext`: where it came
  /// from, the fields read before the records, the elements of a list it dropped). Throw
  /// `MappingError.skipped` for a record the dataset skips by design; a mapping that needs no
  /// context ignores it (`context _: inout MappingContext`).
  func map(_ dto: DTO, context: inout MappingContext) throws(MappingError) -> Record
  /// Domain → rows, in the order they are written: referenced rows before the rows that name
  /// them, a parent before its children. Runs on the decoding thread, off the writer's.
  func rows(for record: Record, into rows: inout RecordRows)
  /// Rows an input adds once its records are all read, from the fields of the document around
  /// them: `context.fields` holds the scalar members before the records and those after them
  /// (a Messenger conversation's `title` follows its `messages`; a stream cannot look ahead,
  /// so a record cannot use it). Called at the end of each input read to its end, on the
  /// decoding thread; its rows are written after the input's last record, in the same
  /// transaction, and are no record of their own: not counted among the records, never
  /// repeated keys. Notes (`context.note`) become warnings; a row the store refuses rejects
  /// them as a record would be. The default adds nothing.
  func rowsAfterRecords(context: inout MappingContext, into rows: inout RecordRows)
  /// What the DTO's `init(from:)` finds in `decoder.userInfo`, wherever it is decoded (a run,
  /// `sluice contract`): for a DTO whose shape is data rather than code, as a dataset file's
  /// records are. The default is empty.
  var decodingUserInfo: [CodingUserInfoKey: any Sendable] { get }
}

extension Dataset {
  public var rules: [ValidationRule] { [] }
  public var recordConstraints: [FieldConstraint] { [] }
  public func rowsAfterRecords(context _: inout MappingContext, into _: inout RecordRows) {}
  public var decodingUserInfo: [CodingUserInfoKey: any Sendable] { [:] }

  /// `map(_:context:)` with a context of its own, for a record read outside a run.
  public func map(_ dto: DTO) throws(MappingError) -> Record {
    var context = MappingContext()
    return try map(dto, context: &context)
  }
}

/// A dataset with its types erased, so the command line can pick one by name and a run can
/// read inputs of several datasets.
public struct AnyDataset: Sendable {
  public let name: String
  public let summary: String
  public let schema: Schema
  public let rules: [ValidationRule]
  /// The record loop over the dataset's own types, for the inputs of a run that are its records.
  let makeRecordLoop: @Sendable (PipelineConfiguration) -> any RecordLoading
  /// The dataset itself, for what opens it to reach its types (SluiceInspect's `contract(_:)`,
  /// which walks its DTO).
  package let base: any Dataset
  /// For a dataset declared in a file: that file and every dataset file it references, by
  /// absolute path (`RunFiles` keeps outputs off them); empty for a dataset declared in Swift.
  package internal(set) var files: [String] = []

  public init<D: Dataset>(_ dataset: D) {
    name = dataset.name
    summary = dataset.summary
    schema = dataset.schema
    rules = dataset.rules
    makeRecordLoop = { configuration in RecordLoop(dataset: dataset, configuration: configuration) }
    base = dataset
  }

  /// Every table the dataset writes or owns, for row counts: its tables, then its lookups.
  public var tables: [String] { schema.tableNames }

}
