import Foundation
@_spi(Internals) import SluiceCore

extension Inspection {
  /// The report for a person: a header (file, size, gzip, format, records), the record paths,
  /// then one aligned row per field path. Values appear only when the inspection kept them.
  public func text() -> String {
    var lines: [String] = []
    var size = "\(fileBytes) bytes"
    if isGzip { size += decompressedBytes.map { ", gzip (\($0) bytes decompressed)" } ?? ", gzip" }
    lines.append(
      contentsOf: aligned(
        [
          ["file", path],
          ["size", size],
          ["format", formatDescription],
        ] + (csv.map { [["dialect", Self.dialectDescription($0)]] } ?? []) + [
          ["records", recordsDescription]
        ], indent: ""))
    lines.append("")

    if format == .ndjson {
      lines.append("Record paths: none; NDJSON's records are its lines.")
    } else if csv != nil {
      lines.append("Record paths: none; \(format == .tsv ? "TSV" : "CSV")'s records are its rows.")
    } else {
      let kind = format == .xml ? "elements under one parent" : "arrays of objects, or objects keyed by id"
      lines.append("Record paths (\(kind); --record-path takes them as written, * marks the one below):")
      var rows = [["", "PATH", "RECORDS", "LONGEST", ""]]
      for candidate in candidates {
        var remark = candidate.keys.isEmpty && format == .json ? "the top-level array" : ""
        if candidate.otherElements > 0 {
          remark += (remark.isEmpty ? "" : "; ") + "\(candidate.otherElements) element(s) are not objects"
        }
        if !candidate.isReadable {
          remark +=
            (remark.isEmpty ? "" : "; ")
            + "missing in \(candidate.missingInElements) element(s) it steps through: sluice run needs it in each"
        }
        rows.append([
          candidate.keys == recordPath ? "*" : "", candidate.text,
          (candidate.isExact ? "" : "≥ ") + "\(candidate.records)",
          "\(candidate.longest)", remark,
        ])
      }
      if candidates.isEmpty { rows.append(["", "(none)", "", "", ""]) }
      lines.append(contentsOf: aligned(rows, rightAligned: [2, 3]))
      if !candidates.contains(where: { $0.keys == recordPath }) {
        lines.append("  the records below are at \(recordPathText), given with --record-path")
      }
    }
    lines.append("")

    let place =
      format == .ndjson
      ? "NDJSON lines" : csv != nil ? "rows (TYPE: what every value reads as)" : "records at \(recordPathText)"
    lines.append("Fields of the \(records) \(place):")
    lines.append(
      "(present and null: out of the objects that can hold the field — the records, or the object or array above it)")
    var rows = [["FIELD", "TYPES", "PRESENT", "", "NULL", "LENGTH"]]
    if csv != nil { rows[0].insert("TYPE", at: 1) }
    if showsValues { rows[0].append("EXAMPLES") }
    for field in fields {
      var row = [field.path, Self.types(field)]
      if csv != nil { row.insert(Self.columnType(field), at: 1) }
      if field.isElement {
        row += ["\(field.present)", "elements"]
      } else {
        row += ["\(field.present)/\(field.holders)", Self.percent(field.present, of: field.holders)]
      }
      let base = field.isElement ? field.present : field.holders
      row.append(field.kinds.null == 0 ? "0" : "\(field.kinds.null)  \(Self.percent(field.kinds.null, of: base))")
      row.append(Self.lengths(field))
      if showsValues { row.append(field.examples.joined(separator: ", ")) }
      rows.append(row)
    }
    if fields.isEmpty { rows.append(["(none)", "", "", "", "", ""]) }
    lines.append(contentsOf: aligned(rows, rightAligned: csv != nil ? [3, 4] : [2, 3]))

    if skippedRecords > 0, let first = firstSkippedRecord {
      lines.append("")
      lines.append("skipped: \(skippedRecords) record(s) could not be read; the first at \(first)")
    }
    if !notes.isEmpty {
      lines.append("")
      for note in notes { lines.append("note: \(note)") }
    }
    // Field paths and keys come from the data: no escape sequence or newline of theirs reaches
    // the terminal (cells are escaped before they are aligned, the rest here).
    return TerminalText.lines(lines)
  }

  var formatDescription: String {
    var text: String
    switch format {
    case .json:
      if recordPath.isEmpty {
        text = "JSON, a top-level array of records"
      } else if let last = recordPath.last, KeyedCollection(last) != nil {
        text = "JSON, records as the members of an object, keyed by id"
      } else {
        text = "JSON, records in an array at a key path"
      }
    case .ndjson: text = "NDJSON, one record per line"
    case .xml: text = "XML, records are elements"
    case .csv, .tsv: text = "\(format == .csv ? "CSV" : "TSV"), one record per row"
    }
    text += formatWasDetected ? " (detected)" : " (--format)"
    return text
  }

  var recordsDescription: String {
    let place = format == .ndjson || csv != nil ? "" : " at \(recordPathText)"
    if hasMoreRecords, let sampleSize {
      return "\(records) read\(place): a sample of --sample \(sampleSize), more follow (--all reads them all)"
    }
    var description = "\(records)\(place), all of them"
    // No record, yet some were there: the reason belongs beside the 0.
    if records == 0, skippedRecords > 0, let first = firstSkippedRecord {
      description += "; \(skippedRecords) could not be read, the first at \(first)"
    }
    return description
  }

  /// `string`, `integer 700, number 300`; a string's look when every non-empty value has it.
  static func types(_ field: FieldShape) -> String {
    let kinds = field.kinds.nonNull
    if kinds.isEmpty { return field.kinds.null > 0 ? "null" : "-" }
    let looks = field.text.looksLike.map { " (\($0)-like)" } ?? ""
    if kinds.count == 1 { return kinds[0].name + (kinds[0].name == "string" ? looks : "") }
    return kinds.map { "\($0.name) \($0.count)" + ($0.name == "string" ? looks : "") }.joined(separator: ", ")
  }

  /// `12…80 chars`, `1…7 elements`, both for a field that was text and arrays.
  static func lengths(_ field: FieldShape) -> String {
    var parts: [String] = []
    if field.text.count > 0 { parts.append(range(field.text.minLength, field.text.maxLength) + " chars") }
    if field.kinds.array > 0 { parts.append(range(field.minElements, field.maxElements) + " elements") }
    return parts.joined(separator: ", ")
  }

  private static func range(_ low: Int, _ high: Int) -> String {
    low == high ? "\(low)" : "\(low)…\(high)"
  }

  /// `99.8 %`, one decimal.
  static func percent(_ count: Int, of total: Int) -> String {
    guard total > 0 else { return "-" }
    return String(format: "%.1f %%", Double(count) * 100 / Double(total))
  }

  /// Rows as columns padded to their widest cell (right-aligned where asked), two spaces apart,
  /// trailing blanks trimmed.
  private func aligned(_ rows: [[String]], rightAligned: Set<Int> = [], indent: String = "  ") -> [String] {
    let rows = rows.map { $0.map(TerminalText.escape) }
    let columns = rows.map(\.count).max() ?? 0
    var widths = [Int](repeating: 0, count: columns)
    for row in rows {
      for (index, cell) in row.enumerated() { widths[index] = max(widths[index], cell.count) }
    }
    return rows.map { row in
      var line = indent
      for (index, cell) in row.enumerated() {
        let padding = String(repeating: " ", count: widths[index] - cell.count)
        line += rightAligned.contains(index) ? padding + cell : cell + padding
        if index < row.count - 1 { line += "  " }
      }
      while line.hasSuffix(" ") { line.removeLast() }
      return line
    }
  }
}
