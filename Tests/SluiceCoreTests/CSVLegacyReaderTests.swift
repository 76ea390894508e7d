@_spi(Internals) import SluiceCore
import Testing

/// The CSV reader on legacy exports (issue 58): a multi-byte CJK encoding read field by field
/// through iconv, title lines skipped and notes after the table left out as the dialect says,
/// blank and repeated header names read as distinct columns.
@Suite("CSV reader: legacy encodings, data region, odd header names")
struct CSVLegacyReaderTests {
  /// Each row as its tape's JSON, or the issue it raised: code, line, column, path and message.
  static func read(_ bytes: [UInt8], _ dialect: CSVDialect, chunk: Int = .max) -> [String] {
    let reader = CSVRecordReader(source: MemoryByteSource(bytes, chunk: chunk), dialect: dialect, bufferSize: 16)
    var entries: [String] = []
    while true {
      do {
        guard let record = try reader.next() else { break }
        entries.append(String(decoding: record.tape?.bytes ?? [], as: UTF8.self))
      } catch let error as RecordReadError {
        entries.append(
          "\(error.code) line \(error.location.line) column \(error.location.column.map(String.init) ?? "-") "
            + "\(error.path): \(error.message)")
        if !error.isRecoverable { break }
      } catch {
        entries.append("\(error)")
        break
      }
    }
    return entries
  }

  static func big5(_ text: String) -> [UInt8] {
    // 名稱 A6 57 BA D9, 台北 A5 78 A5 5F, 高雄 B0 AA B6 AF: written out, so that the test does
    // not read them with the code it tests.
    var bytes: [UInt8] = []
    for scalar in text.unicodeScalars {
      switch scalar {
      case "名": bytes += [0xA6, 0x57]
      case "稱": bytes += [0xBA, 0xD9]
      case "台": bytes += [0xA5, 0x78]
      case "北": bytes += [0xA5, 0x5F]
      case "高": bytes += [0xB0, 0xAA]
      case "雄": bytes += [0xB6, 0xAF]
      default: bytes += Array(String(scalar).utf8)
      }
    }
    return bytes
  }

  @Test func aBig5ExportIsReadFieldByFieldAndAnUndefinedSequenceIsAnIssueAtItsLineAndColumn() throws {
    var dialect = CSVDialect.csv
    dialect.encoding = try CSVEncoding(name: "big5")
    // Trail bytes 0x57 (W) and 0x5F (_) are ASCII: the scanner must not split there.
    let bytes = Self.big5("id,名稱\r\n1,台北\r\n2,高雄\r\n") + Array("3,".utf8) + [0xFF, 0xFE] + Array("\r\n".utf8)
    for chunk in [Int.max, 1, 3] {
      #expect(
        Self.read(bytes, dialect, chunk: chunk) == [
          #"{"id":"1","名稱":"台北"}"#, #"{"id":"2","名稱":"高雄"}"#,
          "syntax line 4 column 2 名稱: a byte big5 does not define, at byte 0 of the field",
        ])
    }
  }

  @Test func aDelimiterOrQuoteThatCanBeASecondByteIsRefusedWithAMultiByteEncoding() throws {
    var dialect = CSVDialect.csv
    dialect.encoding = try CSVEncoding(name: "shift_jis")
    dialect.delimiter = UInt8(ascii: "|")
    #expect(
      Self.read(Array("a|b\n1|2\n".utf8), dialect) == [
        "syntax line 1 column - : the delimiter '|' can be the second byte of a shift_jis character: "
          + "convert the file to UTF-8 first (iconv -f shift_jis -t UTF-8)"
      ])
  }

  @Test func titleLinesAreSkippedWhateverTheyHoldAndNotesAfterTheTableLeftOut() {
    var dialect = CSVDialect.csv
    dialect.skipLines = 3
    dialect.footerLines = 2
    // A title with an unbalanced quote, a blank line, CR-only line ends.
    let text = "\"Table 1: \"odd\r\rFilters: none\rid,v\r1,a\r2,b\r\r\"Source: somewhere, 2024\"\rnote\r"
    #expect(Self.read(Array(text.utf8), dialect) == [#"{"id":"1","v":"a"}"#, #"{"id":"2","v":"b"}"#])
    // Without its notes, no row is lost: a last row of the table's shape is data.
    #expect(
      Self.read(Array("\"T\"\r\r\rid,v\r1,a\r2,b\r".utf8), dialect) == [#"{"id":"1","v":"a"}"#, #"{"id":"2","v":"b"}"#])
    // A row of another shape inside the table is rejected as ever, at its line.
    #expect(
      Self.read(Array("t\n\n\nid,v\n1\n2,b\nnote\n".utf8), dialect) == [
        "fieldCount line 5 column - : a row of 1 fields; the header names 2 columns", #"{"id":"2","v":"b"}"#,
      ])
  }

  @Test func blankAndRepeatedHeaderNamesAreReadAsDistinctColumns() throws {
    let reader = CSVRecordReader(
      source: MemoryByteSource(Array("id,Distance,,Distance,Distance_2, \n1,5,x,6,7,y\n".utf8)), dialect: .csv)
    let record = try #require(try reader.next())
    #expect(
      String(decoding: record.tape?.bytes ?? [], as: UTF8.self)
        == #"{"id":"1","Distance":"5","column_3":"x","Distance_3":"6","Distance_2":"7","column_6":"y"}"#)
    #expect(
      reader.renamedColumns == [
        CSVRenamedColumn(column: 3, written: "", name: "column_3"),
        CSVRenamedColumn(column: 4, written: "Distance", name: "Distance_3"),
        CSVRenamedColumn(column: 6, written: " ", name: "column_6"),
      ])
  }
}
