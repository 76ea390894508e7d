@_spi(Internals) import SluiceCore

/// The Swift types of CSV and TSV columns, from the type every value reads as.
extension SwiftDTOGenerator {
  /// The date patterns the DTO's `Date` columns are read with, in the order first met: the spec's
  /// `policy.dates` after `iso8601`. Of two patterns of one shape (`dd/MM/yyyy`, `MM/dd/yyyy`)
  /// only the first is taken, since the policy's formats are tried in order for every date: a
  /// column of the other is `String`.
  package var datePatterns: [String] {
    var patterns: [String] = []
    for field in inspection.fields {
      guard case .timestamp(.pattern(let pattern))? = field.columnType else { continue }
      guard !patterns.contains(where: { Self.sameShape($0, pattern) }) else { continue }
      patterns.append(pattern)
    }
    return patterns
  }

  /// Whether two patterns read text of the same shape (they differ in their fields' order).
  static func sameShape(_ one: String, _ other: String) -> Bool {
    func shape(_ pattern: String) -> String {
      String(pattern.map { $0.isLetter ? "9" : $0 })
    }
    return shape(one) == shape(other)
  }

  /// A column's Swift type, and a comment for the line that declares it.
  func swiftType(_ column: TextColumnType) -> (type: String, note: String?) {
    switch column {
    case .integer: return ("Int64", nil)
    case .decimal(let scale):
      return ("Double", "decimal, scale \(scale): a dataset file (init --declarative) stores it exactly")
    case .boolean: return ("Bool", nil)
    case .timestamp(.pattern(let pattern)):
      guard datePatterns.contains(pattern) else {
        return ("String", "dates as \(pattern), which the spec's policy.dates cannot add beside another order")
      }
      return ("Date", "dates as \(pattern) (the spec's policy.dates)")
    case .timestamp: return ("Date", nil)
    case .enumeration(let values): return ("String", "one of \(values.count) values in the rows read")
    case .text: return ("String", nil)
    }
  }
}
