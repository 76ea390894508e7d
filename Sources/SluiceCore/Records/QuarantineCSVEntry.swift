/// How a rejected CSV row is read again: its columns' names and its file's dialect, as a
/// quarantine entry keeps them. The reader's (`QuarantineReader`) to declare, the readers being
/// below the quarantine writer that fills it in.
package struct QuarantineCSVEntry: Codable {
  var columns: [String]
  var delimiter: String
  var quote: String
  var empty: String

  init(columns: [String], dialect: CSVDialect) {
    self.columns = columns
    delimiter = String(UnicodeScalar(dialect.delimiter))
    quote = String(UnicodeScalar(dialect.quote))
    empty = dialect.emptyIsNull ? "null" : "text"
  }

  /// The dialect of the row alone: no header, the columns named.
  var dialect: CSVDialect? {
    guard let delimiter = CSVDialect.byte(named: delimiter), let quote = CSVDialect.byte(named: quote) else {
      return nil
    }
    return CSVDialect(
      delimiter: delimiter, quote: quote, hasHeader: false, columns: columns, emptyIsNull: empty == "null")
  }
}
