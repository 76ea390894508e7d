/// How a CSV or TSV file is written: what separates fields, what quotes them, where the column
/// names come from and what an empty field means.
///
/// Declared here, beside the reader, so that the reader depends on nothing above it; a spec's
/// `dialect` and the command line's `--delimiter` and its kin set it.
public struct CSVDialect: Sendable, Hashable {
  /// The byte between fields: `,` for CSV, a tab for TSV, `;` for many European exports.
  public var delimiter: UInt8
  /// The byte that quotes a field holding delimiters, quotes or line breaks (doubled inside).
  public var quote: UInt8
  /// Whether the first row names the columns. When `columns` are given too, it is skipped.
  public var hasHeader: Bool
  /// The column names, when the file has no header (or its header is to be replaced).
  public var columns: [String]?
  /// Whether an empty unquoted field is null; a quoted empty field (`""`) stays empty text, as in
  /// PostgreSQL's CSV. When false, every empty field is empty text.
  public var emptyIsNull: Bool
  /// The encoding the file is written in (single-byte, or UTF-16); nil for UTF-8 (a byte order
  /// mark skipped) or UTF-16 by its byte order mark.
  public var encoding: CSVEncoding?
  /// Lines before the header (or the first row, without one) that are not part of the table: an
  /// export's title, its filters, a blank line. Counted as the file's lines, whatever they hold.
  public var skipLines: Int
  /// Rows at the end that are not part of the table — notes, sources, a copyright line — left
  /// out when their number of fields is not the header's (a last row of the table's shape is
  /// data). At most this many; blank lines are no rows and are not counted.
  public var footerLines: Int

  /// The most lines `skipLines` and `footerLines` may each name: the reader holds the footer's
  /// rows until it knows they are the last.
  public static let maxRegionLines = 1_000

  public init(
    delimiter: UInt8 = UInt8(ascii: ","), quote: UInt8 = UInt8(ascii: "\""), hasHeader: Bool = true,
    columns: [String]? = nil, emptyIsNull: Bool = false, encoding: CSVEncoding? = nil, skipLines: Int = 0,
    footerLines: Int = 0
  ) {
    self.delimiter = delimiter
    self.quote = quote
    self.hasHeader = hasHeader
    self.columns = columns
    self.emptyIsNull = emptyIsNull
    self.encoding = encoding
    self.skipLines = skipLines
    self.footerLines = footerLines
  }

  /// RFC 4180's: comma, double quote, a header row, empty fields as empty text.
  public static let csv = CSVDialect()
  /// Tab-separated values, otherwise as CSV.
  public static let tsv = CSVDialect(delimiter: UInt8(ascii: "\t"))

  /// Why `byte` cannot separate or quote fields, or nil when it can: line breaks end rows, and
  /// non-ASCII bytes are parts of characters.
  public static func problem(delimiter: UInt8, quote: UInt8) -> String? {
    for (name, byte) in [("delimiter", delimiter), ("quote", quote)] {
      if byte == 0x0A || byte == 0x0D { return "the \(name) cannot be a line break" }
      if byte >= 0x80 { return "the \(name) must be one ASCII character" }
    }
    return delimiter == quote ? "the delimiter and the quote must differ" : nil
  }
}

extension CSVDialect {
  /// The byte a spec or an option names as a delimiter or quote: one ASCII character, or `tab`
  /// (a tab is awkward to type on a command line); nil for anything else.
  public static func byte(named text: String) -> UInt8? {
    if text == "tab" || text == "\\t" { return UInt8(ascii: "\t") }
    guard text.utf8.count == 1, let byte = text.utf8.first, byte < 0x80 else { return nil }
    return byte
  }
}
