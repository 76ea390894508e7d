/// A CSV or TSV input's dialect as a spec writes it:
/// `"dialect": {"delimiter": ";", "quote": "'", "header": false, "columns": ["id", "name"],
/// "empty": "null", "encoding": "windows-1252"}`, every key optional, each falling back to the
/// format's default.
extension SpecDocument {
  static let knownDialectKeys = DialectDocument.CodingKeys.allCases.map(\.rawValue).joined(separator: ", ")

  struct DialectDocument: Decodable {
    var delimiter: String?
    var quote: String?
    /// Whether the first row names the columns: true by default, false when `columns` are given.
    var header: Bool?
    var columns: [String]?
    /// `text` (the default) or `null`: what an empty unquoted field reads as.
    var empty: String?
    /// A single-byte encoding iconv knows (`windows-1252`), a multi-byte CJK one (`big5`,
    /// `shift_jis`) or UTF-16 (`utf-16le`); UTF-8 when absent.
    var encoding: String?
    /// Lines before the header that are not part of the table (an export's title lines).
    var skipLines: Int?
    /// Rows at the end that are not part of the table (notes, sources).
    var footerLines: Int?

    enum CodingKeys: String, CodingKey, CaseIterable {
      case delimiter, quote, header, columns, empty, encoding, skipLines, footerLines
    }
  }
}

extension PipelineSpec {
  /// The dialect `document` declares for an input of `format`, checked; nil when it declares
  /// none (the format's default applies). `key` names it in errors (`inputs[1].dialect`).
  static func dialect(
    _ document: SpecDocument.DialectDocument?, format: PipelineConfiguration.Format, key: String, path: String
  ) throws(SpecError) -> CSVDialect? {
    guard let document else { return nil }
    guard format == .csv || format == .tsv else {
      throw SpecError(path: path, message: "'\(key)' applies to format csv or tsv, not \(format)")
    }
    var dialect = format == .tsv ? CSVDialect.tsv : CSVDialect.csv
    if let text = document.delimiter {
      guard let byte = CSVDialect.byte(named: text) else {
        throw SpecError(path: path, message: "'\(key).delimiter' must be one ASCII character or \"tab\"")
      }
      dialect.delimiter = byte
    }
    if let text = document.quote {
      guard let byte = CSVDialect.byte(named: text) else {
        throw SpecError(path: path, message: "'\(key).quote' must be one ASCII character")
      }
      dialect.quote = byte
    }
    if let problem = CSVDialect.problem(delimiter: dialect.delimiter, quote: dialect.quote) {
      throw SpecError(path: path, message: "'\(key)': \(problem)")
    }
    if let columns = document.columns {
      guard !columns.isEmpty else { throw SpecError(path: path, message: "'\(key).columns' is empty") }
      dialect.columns = columns
    }
    dialect.hasHeader = document.header ?? (document.columns == nil)
    if !dialect.hasHeader && dialect.columns == nil {
      throw SpecError(path: path, message: "'\(key).header' is false: name the columns in '\(key).columns'")
    }
    if let name = document.encoding, !["utf-8", "utf8"].contains(name.lowercased()) {
      do {
        dialect.encoding = try CSVEncoding(name: name)
      } catch {
        throw SpecError(path: path, message: "'\(key).encoding': \(error.message)")
      }
    }
    for (name, value) in [("skipLines", document.skipLines), ("footerLines", document.footerLines)] {
      guard let value else { continue }
      guard (0...CSVDialect.maxRegionLines).contains(value) else {
        throw SpecError(path: path, message: "'\(key).\(name)' must be from 0 to \(CSVDialect.maxRegionLines)")
      }
    }
    dialect.skipLines = document.skipLines ?? 0
    dialect.footerLines = document.footerLines ?? 0
    if let encoding = dialect.encoding, encoding.isMultiByte,
      dialect.delimiter >= CSVEncoding.lowestTrailByte || dialect.quote >= CSVEncoding.lowestTrailByte
    {
      throw SpecError(
        path: path,
        message: "'\(key)': a delimiter or quote from '@' up can be part of a \(encoding.name) character; "
          + "convert the file to UTF-8 first")
    }
    switch document.empty {
    case nil, "text": dialect.emptyIsNull = false
    case "null": dialect.emptyIsNull = true
    case let other?:
      throw SpecError(path: path, message: "'\(key).empty' is '\(other)', expected one of: text, null")
    }
    return dialect
  }
}
