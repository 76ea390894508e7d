@_spi(Internals) import SluiceCore
import SluiceInspect

/// What `sluice init` writes for a CSV or TSV dump besides the JSON routes' files: the spec's
/// `dialect`, so that `sluice run` needs no option, and the contract fixture as rows.
enum InitCSV {
  /// The spec's `dialect`: the delimiter and quote when not the format's own, the header or the
  /// columns, what an empty field is, the encoding when not UTF-8, and the data region when the
  /// table does not fill the file (`skipLines` title lines, `footerLines` notes).
  static func dialect(_ sniff: CSVSniff) -> ContractJSON {
    let dialect = sniff.dialect
    var members: [(key: String, value: ContractJSON)] = [
      ("delimiter", .string(dialect.delimiter == 0x09 ? "tab" : String(UnicodeScalar(dialect.delimiter))))
    ]
    if dialect.quote != UInt8(ascii: "\"") { members.append(("quote", .string(String(UnicodeScalar(dialect.quote))))) }
    members.append(("header", .bool(dialect.hasHeader)))
    if let columns = dialect.columns { members.append(("columns", .array(columns.map { .string($0) }))) }
    members.append(("empty", .string(dialect.emptyIsNull ? "null" : "text")))
    if let encoding = dialect.encoding { members.append(("encoding", .string(encoding.name))) }
    if dialect.skipLines > 0 { members.append(("skipLines", .number("\(dialect.skipLines)"))) }
    if dialect.footerLines > 0 { members.append(("footerLines", .number("\(dialect.footerLines)"))) }
    return .object(members)
  }

  /// The spec members after `format`: the dialect, for a CSV or TSV dump; nothing otherwise.
  static func specMembers(_ inspection: Inspection) -> [(String, ContractJSON)] {
    inspection.csv.map { [("dialect", dialect($0))] } ?? []
  }

  /// The contract fixture: the header row (when the file has one) and the first three rows as
  /// the file holds them, in UTF-8 (a rejects file's copy of a row is, too), so it is checked
  /// with `--encoding utf-8`.
  static func fixture(_ inspection: Inspection, dump: String, remote: RemoteAccess) throws -> InitPackage.Fixture? {
    guard let sniff = inspection.csv else { return nil }
    let reader = CSVRecordReader(source: try Input(path: dump, remote: remote), dialect: sniff.dialect)
    var rows: [String] = []
    while rows.count < 3 {
      do {
        guard let record = try reader.next() else { break }
        rows.append(String(decoding: record.bytes, as: UTF8.self))
      } catch let error as RecordReadError where error.isRecoverable {
        continue  // A row the run would reject is no contract fixture.
      }
    }
    guard !rows.isEmpty else { return nil }
    if sniff.dialect.hasHeader, let names = reader.columns.value {
      let delimiter = String(UnicodeScalar(sniff.dialect.delimiter))
      let quote = String(UnicodeScalar(sniff.dialect.quote))
      let header = names.map { name in
        name.contains(delimiter) || name.contains(quote) || name.contains(where: \.isNewline)
          ? quote + name.replacingOccurrences(of: quote, with: quote + quote) + quote : name
      }
      rows.insert(header.joined(separator: delimiter), at: 0)
    }
    return InitPackage.Fixture(
      text: rows.joined(separator: "\r\n") + "\r\n", fileExtension: inspection.format == .tsv ? "tsv" : "csv")
  }
}
