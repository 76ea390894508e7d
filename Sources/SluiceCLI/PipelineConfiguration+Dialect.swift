@_spi(Internals) import SluiceCore

extension PipelineConfiguration {
  /// The command line's dialect options applied to every CSV and TSV input, over the spec's
  /// `dialect` (an export's files are written alike); an error when no input is CSV or TSV.
  func applyingDialect(_ values: [String: String], flags: Set<String>) throws(UsageError) -> PipelineConfiguration {
    let given =
      ["delimiter", "quote", "columns", "empty", "encoding"].filter { values[$0] != nil }
      + (flags.contains("no-header") ? ["no-header"] : [])
    guard let first = given.first else { return self }
    var configuration = self
    var applied = false
    for index in configuration.inputs.indices {
      let format = configuration.inputs[index].format
      guard format == .csv || format == .tsv else { continue }
      var dialect = configuration.inputs[index].dialect ?? (format == .tsv ? .tsv : .csv)
      if let text = values["delimiter"] {
        guard let byte = CSVDialect.byte(named: text) else {
          throw UsageError("--delimiter must be one ASCII character or tab, not '\(text)'")
        }
        dialect.delimiter = byte
      }
      if let text = values["quote"] {
        guard let byte = CSVDialect.byte(named: text) else {
          throw UsageError("--quote must be one ASCII character, not '\(text)'")
        }
        dialect.quote = byte
      }
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
      configuration.inputs[index].dialect = dialect
      applied = true
    }
    guard applied else { throw UsageError("--\(first) applies to CSV and TSV inputs (--format csv or tsv)") }
    return configuration
  }
}
