/// How an input holds its records: what the record layer needs to know, declared here so that
/// the readers depend on nothing above them (`PipelineConfiguration.Format` names it).
public enum RecordFormat: String, Sendable, Hashable, Codable, CaseIterable {
  /// A JSON document whose records are the elements of an array (at `recordPath`), or the
  /// members of an object keyed by id (`recipes{id}`).
  case json
  /// Newline-delimited JSON: one record per line.
  case ndjson
  /// An XML document whose records are the elements at `recordPath` (element names from the
  /// root: `orders.order`; empty: the root's children).
  case xml
  /// Comma-separated values (RFC 4180), one record per row, keyed by the header
  /// (`CSVDialect`).
  case csv
  /// Tab-separated values: CSV with a tab between fields.
  case tsv
}

/// The one place a format becomes a record reader.
@_spi(Internals) public enum RecordReaders {
  /// The reader of `format`'s records in `source`: a JSON array at a key path, NDJSON lines,
  /// XML elements at an element path, or CSV rows in `dialect` (the format's default when nil).
  public static func make(
    format: RecordFormat, recordPath: [String], source: any ByteSource, dialect: CSVDialect? = nil,
    xmlNaming: XMLRecordReader.Naming = .local
  ) -> any RecordReader {
    switch format {
    case .json: return JSONRecordReader(source: source, layout: .array(path: recordPath))
    case .ndjson: return JSONRecordReader(source: source, layout: .lines)
    case .xml: return XMLRecordReader(source: source, path: recordPath, naming: xmlNaming)
    case .csv: return CSVRecordReader(source: source, dialect: dialect ?? .csv)
    case .tsv: return CSVRecordReader(source: source, dialect: dialect ?? .tsv)
    }
  }
}
