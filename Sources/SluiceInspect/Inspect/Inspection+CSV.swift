@_spi(Internals) import SluiceCore

/// How `inspect` describes a CSV or TSV file's dialect and its columns' inferred types.
extension Inspection {
  /// `';' (sniffed), quote '"', a header row (sniffed), encoding windows-1252 (a guess: …),
  /// empty fields null`.
  static func dialectDescription(_ sniff: CSVSniff) -> String {
    let dialect = sniff.dialect
    var parts = ["delimiter \(byteName(dialect.delimiter))\(sniff.delimiterWasSniffed ? " (sniffed)" : "")"]
    if dialect.quote != UInt8(ascii: "\"") { parts.append("quote \(byteName(dialect.quote))") }
    if dialect.hasHeader {
      parts.append("a header row\(sniff.headerWasSniffed ? " (sniffed)" : "")")
    } else if sniff.columnsWereNamed {
      let why = sniff.noHeaderReason.map { ": \($0)" } ?? (sniff.headerWasSniffed ? "" : ": --no-header given")
      parts.append("no header row\(sniff.headerWasSniffed ? " (sniffed\(why))" : why): columns named column1…")
    } else {
      parts.append("no header row: columns given")
    }
    if let region = regionDescription(sniff) { parts.append(region) }
    parts.append("encoding \(sniff.encodingName) (\(encodingConfidence(sniff)))")
    parts.append("empty fields \(dialect.emptyIsNull ? "null" : "text")")
    return parts.joined(separator: ", ")
  }

  /// `header on line 5 (4 lines before it skipped), data lines 6–1387, 4 rows of notes after
  /// it`; nil when the table fills the file.
  static func regionDescription(_ sniff: CSVSniff) -> String? {
    let dialect = sniff.dialect
    guard dialect.skipLines > 0 || dialect.footerLines > 0 else { return nil }
    let first = sniff.tableLine + (dialect.hasHeader ? 1 : 0)
    var parts = [
      dialect.hasHeader
        ? "header on line \(sniff.tableLine) (\(dialect.skipLines) line(s) before it skipped: skipLines)"
        : "table from line \(sniff.tableLine) (\(dialect.skipLines) line(s) before it skipped: skipLines)"
    ]
    parts.append("data lines \(first)–\(sniff.lastDataLine.map(String.init) ?? "…")")
    if dialect.footerLines > 0 {
      parts.append("\(dialect.footerLines) row(s) of notes after it, left out: footerLines")
    }
    return parts.joined(separator: ", ")
  }

  /// `certain: valid UTF-8`, `a guess: …`, `given`.
  package static func encodingConfidence(_ sniff: CSVSniff) -> String {
    switch sniff.encodingConfidence {
    case .given: "given"
    case .certain: "certain: \(sniff.encodingReason)"
    case .guess: "a guess: \(sniff.encodingReason)"
    case .unknown: "unknown: \(sniff.encodingReason)"
    }
  }

  /// `';'`, `tab`.
  static func byteName(_ byte: UInt8) -> String {
    byte == 0x09 ? "tab" : "'\(Character(UnicodeScalar(byte)))'"
  }

  /// A column's inferred type, with why a date-like one is text; `-` for a field that is not a
  /// column's text (never seen, always null).
  static func columnType(_ field: FieldShape) -> String {
    guard let type = field.columnType, let column = field.column else { return field.kinds.null > 0 ? "null" : "-" }
    if type == .text && column.hasLeadingZeros { return "text (leading zeros)" }
    if type == .text && column.isAmbiguousDate { return "text (ambiguous dates)" }
    return type.summary
  }
}
