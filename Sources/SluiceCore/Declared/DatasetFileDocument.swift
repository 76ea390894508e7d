/// A dataset file as written (docs/reference/dataset-files.md), decoded by Sluice's own decoder
/// so that an unknown key or a wrong type is refused at its JSON path. `DatasetFile` checks what
/// the types cannot say and builds the dataset.
struct DatasetFileDocument: Decodable {
  var name: String
  var summary: String?
  /// How the schema follows new fields in the dumps (`DatasetEvolution`): freeze, evolve, discard.
  var evolution: String?
  var fields: [FieldDocument]
  var rules: [RuleDocument]?
  var lookups: [LookupDocument]?
  var tables: [TableDocument]

  /// A field, or an array's elements (`items`, without a name). A class: it nests itself.
  final class FieldDocument: Decodable {
    var name: String?
    var type: String
    var optional: Bool?
    var nullable: Bool?
    var scale: Int?
    var formats: [String]?
    var values: [String]?
    var lookup: String?
    var fields: [FieldDocument]?
    var items: FieldDocument?
  }

  struct RuleDocument: Decodable {
    var name: String
    var field: String
    var check: String
    var min: Double?
    var max: Double?
    var pattern: String?
    var values: [String]?
    var message: String
    var code: String?
  }

  struct LookupDocument: Decodable {
    var table: String
    var columns: [LookupColumnDocument]?
    var values: [LookupValueDocument]
  }

  struct LookupColumnDocument: Decodable {
    var name: String
    var type: String
    var nullable: Bool?
  }

  struct LookupValueDocument: Decodable {
    var name: String
    var id: Int64
    var columns: [String: ScalarDocument]?
  }

  /// A JSON scalar: a lookup value's column.
  enum ScalarDocument: Decodable {
    case null
    case boolean(Bool)
    case integer(Int64)
    case real(Double)
    case text(String)

    init(from decoder: any Decoder) throws {
      let container = try decoder.singleValueContainer()
      if container.decodeNil() {
        self = .null
      } else if let value = try? container.decode(Bool.self) {
        self = .boolean(value)
      } else if let value = try? container.decode(Int64.self) {
        self = .integer(value)
      } else if let value = try? container.decode(Double.self) {
        self = .real(value)
      } else {
        self = .text(try container.decode(String.self))
      }
    }
  }

  struct TableDocument: Decodable {
    var name: String
    var key: [String]?
    var columns: [ColumnDocument]
    var onConflict: String?
    var history: String?
    var optional: Bool?
    var parent: String?
    var field: String?
    var position: String?
    var firstPosition: Int64?
    var indexes: [IndexDocument]?
  }

  struct ColumnDocument: Decodable {
    var name: String
    var field: String?
    var type: String?
    var nullable: Bool?
    var checks: [CheckDocument]?
    var lookup: String?
    var references: ReferenceDocument?
    var orphans: String?
    var onDelete: String?
  }

  struct CheckDocument: Decodable {
    var atLeast: Int64?
    var atMost: Int64?
    var length: Int?
    var notEmpty: Bool?
    var oneOf: [String]?
  }

  /// A table of this file by name, or another dataset's: `{"dataset": …, "table": …}`.
  struct ReferenceDocument: Decodable {
    var dataset: String?
    var table: String

    private enum Keys: String, CodingKey { case dataset, table }

    init(from decoder: any Decoder) throws {
      if let name = try? decoder.singleValueContainer().decode(String.self) {
        table = name
        return
      }
      let container = try decoder.container(keyedBy: Keys.self)
      dataset = try container.decode(String.self, forKey: .dataset)
      table = try container.decode(String.self, forKey: .table)
    }
  }

  struct IndexDocument: Decodable {
    var name: String
    var columns: [String]
    var deferrable: Bool?
  }
}
