@_spi(Internals) import SluiceCore
import SluiceInspect

extension PipelineConfiguration {
  /// The command line's dialect options applied to every CSV and TSV input, over the spec's
  /// `dialect` (an export's files are written alike); an error when no input is CSV or TSV.
  func applyingDialect(_ values: [String: String], flags: Set<String>) throws(UsageError) -> PipelineConfiguration {
    let given =
      ["delimiter", "quote", "columns", "empty", "encoding", "skip-lines", "footer-lines"].filter { values[$0] != nil }
      + (flags.contains("no-header") ? ["no-header"] : [])
    guard let first = given.first else { return self }
    var configuration = self
    var applied = false
    for index in configuration.inputs.indices {
      let format = configuration.inputs[index].format
      guard format == .csv || format == .tsv else { continue }
      var dialect = configuration.inputs[index].dialect ?? (format == .tsv ? .tsv : .csv)
      if let byte = try dialectByte("delimiter", in: values) { dialect.delimiter = byte }
      if let byte = try dialectByte("quote", in: values) { dialect.quote = byte }
      if let problem = CSVDialect.problem(delimiter: dialect.delimiter, quote: dialect.quote) {
        throw UsageError("--delimiter and --quote: \(problem)")
      }
      if let text = values["columns"] {
        let columns = text.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        guard !columns.contains(where: \.isEmpty) else {
          throw UsageError("--columns must name every column, separated by commas: id,name,price")
        }
        dialect.columns = columns
        dialect.hasHeader = false
      }
      if flags.contains("no-header") {
        dialect.hasHeader = false
        guard dialect.columns != nil else {
          throw UsageError("--no-header: name the columns with --columns (or the spec's dialect.columns)")
        }
      }
      if let name = values["encoding"] {
        if ["utf-8", "utf8"].contains(name.lowercased()) {
          dialect.encoding = nil
        } else {
          do {
            dialect.encoding = try CSVEncoding(name: name)
          } catch {
            throw UsageError("--encoding: \(error.message)")
          }
        }
      }
      switch values["empty"] {
      case nil: break
      case "text": dialect.emptyIsNull = false
      case "null": dialect.emptyIsNull = true
      case let other?: throw UsageError("--empty must be text or null, not '\(other)'")
      }
      if let lines = try regionLines("skip-lines", in: values) { dialect.skipLines = lines }
      if let lines = try regionLines("footer-lines", in: values) { dialect.footerLines = lines }
      configuration.inputs[index].dialect = dialect
      applied = true
    }
    guard applied else { throw UsageError("--\(first) applies to CSV and TSV inputs (--format csv or tsv)") }
    return configuration
  }
}

extension CSVDialectOptions {
  /// The dialect options `inspect` and `init` were given; what is not given is sniffed. Unlike
  /// `run`'s, `--no-header` needs no `--columns` (the columns are named column1, column2…).
  static func parse(_ values: [String: String], flags: Set<String>) throws(UsageError) -> CSVDialectOptions {
    var options = CSVDialectOptions()
    options.delimiter = try dialectByte("delimiter", in: values)
    options.quote = try dialectByte("quote", in: values)
    if let problem = CSVDialect.problem(
      delimiter: options.delimiter ?? UInt8(ascii: ","), quote: options.quote ?? UInt8(ascii: "\""))
    {
      throw UsageError("--delimiter and --quote: \(problem)")
    }
    if let text = values["columns"] {
      let columns = text.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
      guard !columns.contains(where: \.isEmpty) else {
        throw UsageError("--columns must name every column, separated by commas: id,name,price")
      }
      options.columns = columns
      options.hasHeader = false
    }
    if flags.contains("no-header") { options.hasHeader = false }
    if let name = values["encoding"] {
      if ["utf-8", "utf8"].contains(name.lowercased()) {
        options.encoding = .some(nil)
      } else {
        do {
          options.encoding = .some(try CSVEncoding(name: name))
        } catch {
          throw UsageError("--encoding: \(error.message)")
        }
      }
    }
    switch values["empty"] {
    case nil: break
    case "text": options.emptyIsNull = false
    case "null": options.emptyIsNull = true
    case let other?: throw UsageError("--empty must be text or null, not '\(other)'")
    }
    options.skipLines = try regionLines("skip-lines", in: values)
    options.footerLines = try regionLines("footer-lines", in: values)
    return options
  }
}

/// The dialect options' help, declared once for every command that takes them.
enum DialectOptions {
  /// The CSV and TSV dialect's options, as `run` and its kin list them — and `inspect` and
  /// `init`, which sniff what is not given (`sniffed`).
  static func entries(sniffed: Bool) -> [OptionEntry] {
    [
      OptionEntry(
        [.value("delimiter", "C"), .value("quote", "C")],
        sniffed
          ? """
          csv, tsv: the byte between fields (',', ';', tab or '|' sniffed
          when not given; 'tab' names a tab) and the one that quotes them ('"')
          """
          : """
          csv, tsv: the byte between fields (',' for csv, tab for tsv; ';'
          or 'tab' for instance) and the one that quotes them ('"')
          """),
      OptionEntry(
        [.flag("no-header"), .value("columns", "A,B,C")],
        sniffed
          ? """
          csv, tsv: the first row is data, not the column names (sniffed when
          not given; unnamed columns are column1, column2…); the columns' names
          """
          : """
          csv, tsv: the first row is data, not the column names; the
          columns' names (a dotted name fills a nested field: customer.id)
          """),
      OptionEntry(
        .value("encoding", "NAME"),
        sniffed
          ? """
          csv, tsv: the encoding (utf-8, utf-16, utf-16le, utf-16be, a
          single-byte one iconv -l knows: windows-1252, iso-8859-15, or a CJK
          one: big5, gb18030, shift_jis, euc-jp, euc-kr); sniffed when not
          given, with its confidence, or refused when it cannot be told
          """
          : """
          csv, tsv: the encoding the file is written in: a single-byte one
          (windows-1252, iso-8859-15, any iconv -l knows), a CJK one (big5,
          gbk, gb18030, shift_jis, euc-jp, euc-kr) or utf-16, utf-16le,
          utf-16be; UTF-8 by default, UTF-16 by its byte order mark
          """),
      OptionEntry(
        [.value("skip-lines", "N"), .value("footer-lines", "N")],
        sniffed
          ? """
          csv, tsv: the lines before the header (an export's title) and at
          most how many last rows of another shape are notes (sniffed when
          not given)
          """
          : """
          csv, tsv: the lines before the header (an export's title), skipped,
          and at most how many last rows of another shape are notes, left out
          """),
      OptionEntry(
        .value("empty", "text|null"),
        sniffed
          ? """
          csv, tsv: what an empty unquoted field reads as (a quoted one,
          "", is always empty text); null by default here
          """
          : """
          csv, tsv: what an empty unquoted field reads as (a quoted one,
          "", is always empty text); text by default
          """),
    ]
  }
}

/// The lines `--skip-lines` or `--footer-lines` names, when given: 0…`CSVDialect.maxRegionLines`.
private func regionLines(_ option: String, in values: [String: String]) throws(UsageError) -> Int? {
  guard let text = values[option] else { return nil }
  guard let lines = Int(text), (0...CSVDialect.maxRegionLines).contains(lines) else {
    throw UsageError("--\(option) must be a number of lines from 0 to \(CSVDialect.maxRegionLines), not '\(text)'")
  }
  return lines
}

/// The byte `--delimiter` or `--quote` names, when given: one ASCII character, or `tab`.
private func dialectByte(_ option: String, in values: [String: String]) throws(UsageError) -> UInt8? {
  guard let text = values[option] else { return nil }
  guard let byte = CSVDialect.byte(named: text) else {
    throw UsageError(
      option == "delimiter"
        ? "--delimiter must be one ASCII character or tab, not '\(text)'"
        : "--quote must be one ASCII character, not '\(text)'")
  }
  return byte
}
