/// The column names of a CSV input, and the order in which a row's fields are written into its
/// tape: a name with dots (`customer.id`) is a field of a nested object, so that a wide export
/// fills a nested DTO.
///
/// An object's members must be contiguous in a tape, so the fields of one object are written
/// together, in the order their object first appears; a flat header keeps the columns' order
/// (and so the tape's source offsets only grow, as `RawRecord.location(at:)` prefers).
struct CSVHeader {
  enum Step {
    /// A key and an object under it; `column` is its first field's, for its position.
    case open(name: [UInt8], column: Int)
    case field(name: [UInt8], column: Int)
    case close
  }

  /// Deepest nesting a name may spell (`a.b.c` is 3): the tape's own limit is far above it.
  static let maxDepth = 64
  /// The most columns a header may name: 32 times SQLite's default limit on a table's columns
  /// (2,000; PostgreSQL's is 1,600), so no table a run loads comes near it. What bounds it is
  /// memory: the header's names, steps and look-up, and a row's fields, take about 300 bytes a
  /// column, built once — 20 MiB at the limit, within the memory budget, where a header of a
  /// million columns took 300 MiB.
  static let maxColumns = 65_536

  let names: [String]
  let steps: [Step]
  /// Each name's 0-based column: what an issue at a field path says its column is.
  let columns: [String: Int]

  /// Why the names cannot make records: an empty name or component, a name twice, or a name
  /// that is both a field and an object (`a` and `a.b`).
  struct Problem: Error {
    var message: String
    var column: Int
  }

  /// A header row's names made distinct, so that every column is read: a blank name becomes
  /// `column_N` (N its column, from 1), a repeated one `name_2`, `name_3`… (a name already
  /// taken is skipped), and each such column is listed.
  static func distinct(_ written: [String]) -> (names: [String], renamed: [CSVRenamedColumn]) {
    var taken = Set(written.filter { !$0.allSatisfy(\.isWhitespace) })
    var seen = Set<String>()
    var names: [String] = []
    var renamed: [CSVRenamedColumn] = []
    names.reserveCapacity(written.count)
    for (index, name) in written.enumerated() {
      if name.allSatisfy(\.isWhitespace) {
        var candidate = "column_\(index + 1)"
        var suffix = 2
        while taken.contains(candidate) {
          candidate = "column_\(index + 1)_\(suffix)"
          suffix += 1
        }
        taken.insert(candidate)
        names.append(candidate)
        renamed.append(CSVRenamedColumn(column: index + 1, written: name, name: candidate))
      } else if !seen.insert(name).inserted {
        var suffix = 2
        while taken.contains("\(name)_\(suffix)") { suffix += 1 }
        let candidate = "\(name)_\(suffix)"
        taken.insert(candidate)
        names.append(candidate)
        renamed.append(CSVRenamedColumn(column: index + 1, written: name, name: candidate))
      } else {
        names.append(name)
      }
    }
    return (names, renamed)
  }

  init(names: [String]) throws(Problem) {
    guard names.count <= Self.maxColumns else {
      throw Problem(
        message: "the header names \(names.count) columns, more than the \(Self.maxColumns) a CSV input may have",
        column: Self.maxColumns)
    }
    self.names = names
    // Names are unique once checked below; until then the first column of a name is kept.
    self.columns = Dictionary(names.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
    if !names.contains(where: { $0.utf8.contains(UInt8(ascii: ".")) }) {
      // Flat, the common case: the columns in order, each name once.
      var seen = Set<String>(minimumCapacity: names.count)
      for (column, name) in names.enumerated() {
        guard !name.isEmpty else { throw Problem(message: "column \(column + 1) has no name", column: column) }
        guard seen.insert(name).inserted else {
          throw Problem(message: "column \(column + 1) repeats a name", column: column)
        }
      }
      steps = names.enumerated().map { .field(name: Array($1.utf8), column: $0) }
      return
    }
    // A tree of the names' components, children in the order they first appear.
    final class Node {
      var children: [(name: String, node: Node)] = []
      var byName: [String: Node] = [:]
      var column: Int?
      var firstColumn: Int
      init(firstColumn: Int) { self.firstColumn = firstColumn }
    }
    let root = Node(firstColumn: 0)
    for (column, name) in names.enumerated() {
      let components = name.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
      guard !components.contains(where: \.isEmpty) else {
        throw Problem(
          message: name.isEmpty ? "column \(column + 1) has no name" : "column \(column + 1)'s name has an empty part",
          column: column)
      }
      guard components.count <= Self.maxDepth else {
        throw Problem(message: "column \(column + 1)'s name nests deeper than \(Self.maxDepth) levels", column: column)
      }
      var node = root
      for (depth, component) in components.enumerated() {
        let isLast = depth == components.count - 1
        if let child = node.byName[component] {
          guard !isLast, child.column == nil else {
            throw Problem(
              message: "column \(column + 1) repeats a name, or names a field that is also an object", column: column)
          }
          node = child
          continue
        }
        let child = Node(firstColumn: column)
        if isLast { child.column = column }
        node.children.append((component, child))
        node.byName[component] = child
        node = child
      }
    }
    var steps: [Step] = []
    func emit(_ node: Node) {
      for (name, child) in node.children {
        if let column = child.column {
          steps.append(.field(name: Array(name.utf8), column: column))
        } else {
          steps.append(.open(name: Array(name.utf8), column: child.firstColumn))
          emit(child)
          steps.append(.close)
        }
      }
    }
    emit(root)
    self.steps = steps
  }
}

/// A column whose name in the header row is blank or repeats an earlier one, and the name it is
/// read under (`name_2`, `column_7`).
public struct CSVRenamedColumn: Sendable, Hashable {
  /// From 1.
  public var column: Int
  /// The name as the header row writes it.
  public var written: String
  public var name: String

  public init(column: Int, written: String, name: String) {
    self.column = column
    self.written = written
    self.name = name
  }

  /// `the header repeats "Name" (column 9, read as Name_2), leaves column 7 blank (read as
  /// column_7)`, for a warning and for inspect.
  public static func summary(_ renamed: [CSVRenamedColumn]) -> String {
    let parts = renamed.map { column in
      column.written.allSatisfy(\.isWhitespace)
        ? "column \(column.column) is blank (read as \(column.name))"
        : "column \(column.column) repeats \"\(column.written)\" (read as \(column.name))"
    }
    return "the header's names are not distinct: " + parts.joined(separator: ", ")
  }
}
