import Foundation
@_spi(Internals) import SluiceCore

extension Inspection {
  /// The inspection as a JSON document for scripts, keys sorted; `inspectVersion` changes only
  /// when a key changes meaning or goes away. docs/guides/inspect.md lists the keys.
  public func json() -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    guard let data = try? encoder.encode(Document(self)) else { return "{}" }
    return String(decoding: data, as: UTF8.self)
  }

  /// The version of the JSON document's keys.
  public static let jsonVersion = 1

  struct Document: Encodable {
    struct InputSection: Encodable {
      var path: String
      var bytes: Int64
      var gzip: Bool
      var decompressedBytes: Int64?
    }

    struct Candidate: Encodable {
      var path: String
      var keys: [String]
      var records: Int
      var exact: Bool
      var longest: Int
      var otherElements: Int
      var missingInElements: Int
      var selected: Bool
    }

    struct Range: Encodable {
      var min: Int
      var max: Int
    }

    struct Text: Encodable {
      var count: Int
      var empty: Int
      var length: Range
      var looksLike: String?
    }

    struct Dialect: Encodable {
      var delimiter: String
      var delimiterSniffed: Bool
      var quote: String
      var header: Bool
      var headerSniffed: Bool
      var columns: [String]?
      var columnsNamed: Bool
      var empty: String
      var encoding: String
      var encodingConfidence: String
      var encodingReason: String
      /// Why the first row is no header, when sniffed so.
      var noHeaderReason: String?
      /// The data region, when the table does not fill the file.
      var skipLines: Int?
      var footerLines: Int?
    }

    struct ColumnType: Encodable {
      var type: String
      var scale: Int?
      var format: String?
      var valueCount: Int?
      var values: [String]?
      var leadingZeros: Bool
      var ambiguousDates: Bool
    }

    struct Field: Encodable {
      var path: String
      var holders: Int
      var present: Int
      var null: Int
      var types: [String: Int]
      var text: Text?
      var elements: Range?
      var examples: [String]?
      var columnType: ColumnType?
    }

    struct Skipped: Encodable {
      var count: Int
      var first: String
    }

    var inspectVersion = Inspection.jsonVersion
    var input: InputSection
    var format: String
    var formatDetected: Bool
    var recordPath: String
    var recordPathKeys: [String]
    var sample: Int?
    var records: Int
    var moreRecords: Bool
    var recordTypes: [String: Int]
    var candidatesComplete: Bool
    var candidates: [Candidate]
    var fields: [Field]
    var skippedRecords: Skipped?
    var notes: [String]
    var dialect: Dialect?

    init(_ inspection: Inspection) {
      input = InputSection(
        path: inspection.path, bytes: inspection.fileBytes, gzip: inspection.isGzip,
        decompressedBytes: inspection.decompressedBytes)
      format = inspection.format.rawValue
      formatDetected = inspection.formatWasDetected
      recordPath = inspection.recordPath.joined(separator: ".")
      recordPathKeys = inspection.recordPath
      sample = inspection.sampleSize
      records = inspection.records
      moreRecords = inspection.hasMoreRecords
      recordTypes = Self.types(inspection.record.kinds)
      candidatesComplete = inspection.candidatesAreComplete
      candidates = inspection.candidates.map { candidate in
        Candidate(
          path: candidate.keys.joined(separator: "."), keys: candidate.keys, records: candidate.records,
          exact: candidate.isExact, longest: candidate.longest, otherElements: candidate.otherElements,
          missingInElements: candidate.missingInElements, selected: candidate.keys == inspection.recordPath)
      }
      fields = inspection.fields.map { field in
        Field(
          path: field.path, holders: field.holders, present: field.present, null: field.kinds.null,
          types: Self.types(field.kinds),
          text: field.text.count == 0
            ? nil
            : Text(
              count: field.text.count, empty: field.text.empty,
              length: Range(min: field.text.minLength, max: field.text.maxLength), looksLike: field.text.looksLike),
          elements: field.kinds.array == 0 ? nil : Range(min: field.minElements, max: field.maxElements),
          examples: inspection.showsValues ? field.examples : nil,
          columnType: Self.columnType(field, showsValues: inspection.showsValues))
      }
      dialect = inspection.csv.map(Self.dialect)
      skippedRecords = inspection.firstSkippedRecord.map {
        Skipped(count: inspection.skippedRecords, first: $0.description)
      }
      notes = inspection.notes
    }

    static func dialect(_ sniff: CSVSniff) -> Dialect {
      let dialect = sniff.dialect
      return Dialect(
        delimiter: dialect.delimiter == 0x09 ? "tab" : String(UnicodeScalar(dialect.delimiter)),
        delimiterSniffed: sniff.delimiterWasSniffed, quote: String(UnicodeScalar(dialect.quote)),
        header: dialect.hasHeader, headerSniffed: sniff.headerWasSniffed, columns: dialect.columns,
        columnsNamed: sniff.columnsWereNamed, empty: dialect.emptyIsNull ? "null" : "text",
        encoding: sniff.encodingName, encodingConfidence: sniff.encodingConfidence.rawValue,
        encodingReason: sniff.encodingReason, noHeaderReason: sniff.noHeaderReason,
        skipLines: dialect.skipLines > 0 ? dialect.skipLines : nil,
        footerLines: dialect.footerLines > 0 ? dialect.footerLines : nil)
    }

    /// A CSV column's inferred type: an enum's values only with `showsValues`.
    static func columnType(_ field: FieldShape, showsValues: Bool) -> ColumnType? {
      guard let type = field.columnType, let column = field.column else { return nil }
      var result = ColumnType(
        type: "text", leadingZeros: type == .text && column.hasLeadingZeros,
        ambiguousDates: type == .text && column.isAmbiguousDate)
      switch type {
      case .integer: result.type = "integer"
      case .decimal(let scale):
        result.type = "decimal"
        result.scale = scale
      case .boolean: result.type = "boolean"
      case .timestamp(let format):
        result.type = "timestamp"
        result.format = format.specName
      case .enumeration(let values):
        result.type = "enum"
        result.valueCount = values.count
        if showsValues { result.values = values }
      case .text: break
      }
      return result
    }

    /// Non-zero kind counts, null included.
    static func types(_ kinds: FieldShape.Kinds) -> [String: Int] {
      var types = Dictionary(uniqueKeysWithValues: kinds.nonNull.map { ($0.name, $0.count) })
      if kinds.null > 0 { types["null"] = kinds.null }
      return types
    }
  }
}
