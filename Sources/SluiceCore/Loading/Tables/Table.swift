import Synchronization

/// Numbers tables as they are declared, so rows can name their table with an integer.
private let tableSerials = Atomic<Int32>(0)

/// A table a dataset writes, declared: its columns, its natural key, its parent if it is a child
/// table, its indexes. The engine derives the DDL, the migration and every statement from it.
///
/// A child table may have children of its own, at any depth (an order's line items' tax lines):
/// a grandchild row is keyed by its parent row's key (the top-level key and the parent's
/// position) and its own position, whose column needs a name of its own.
///
/// Declare tables once, as `static let`s of the dataset, and hand them to `RecordRows` when a
/// record becomes rows: a `Table` is a reference, so the writer finds its plan by identity.
///
/// ```swift
/// static let fruits = Table("fruits", key: ["fruit_id"], columns: [.text("fruit_id"), .text("name")])
/// static let recipes = Table(
///   "recipes", childOf: fruits, position: "position", field: "recipes",
///   columns: [.text("title"), .text("description")])
/// ```
public final class Table: Sendable {
  public let name: String
  /// The table's own columns, in order. A child table's parent key and position columns come
  /// before these and are not listed here: the engine fills them in.
  public let columns: [Column]
  /// The natural key's columns. For a child table: the parent's key and the position.
  public let key: [String]
  /// The parent, for a child or extension table: rows of this table belong to the parent's row
  /// written last in the same record and are replaced with it.
  public let parent: ParentLink?
  /// The conflict policy for this table; `nil` follows the run's (`--conflict`). A table of
  /// rows that many records share — customers, senders — says `.upsert`: the last one wins.
  public let onConflict: ConflictPolicy?
  public let indexes: [Index]
  /// Whether the table keeps every version of its rows (`HistoryTable`); a child table follows
  /// its top-level table's.
  public let history: TableHistory?
  /// Every column in table order: a child's parent key and position, then its own.
  public let allColumns: [Column]
  /// How many of `allColumns` come before the table's own: a child's parent key and position.
  let inheritedCount: Int
  /// For a child: where each parent key column is among the parent's `allColumns` (its own
  /// columns for a top-level parent, after the inherited ones for a child parent).
  let parentKeySources: [Int]
  /// The parent's `inheritedCount`: a parent key source below it is itself inherited.
  let parentInheritedCount: Int
  /// How many tables are above this one: 0 for a top-level table, 1 for a child, 2 for a
  /// grandchild…
  package let depth: Int
  /// Whether each own column is part of the key.
  let isKeyColumn: [Bool]
  /// Each own column's type: what `RecordRows` checks every value against, without copying the
  /// columns (and retaining their names) per row.
  let columnTypes: [ColumnType]
  /// A bit per own column that is part of the key, and per own column that may not be NULL.
  let keyMask: UInt64
  let notNullMask: UInt64
  /// A child's first position (0 for a top-level table).
  let firstPosition: Int64
  /// The single key column among the own columns, for a top-level table with a one-column key.
  let singleKeyColumn: Int?
  /// The own columns that reference another table's rows, with that table.
  let references: [(column: Int, target: Table, orphans: OrphanPolicy)]
  /// The parent's serial, for a child table; -1 otherwise. With `ownColumnCount` and
  /// `hasReferences`, what `RecordRows` reads per row without touching arrays or references.
  let parentSerial: Int32
  /// An extension of its parent (no position): at most one row per parent row.
  let isExtension: Bool
  let ownColumnCount: Int
  let hasReferences: Bool
  /// This table's number in the process: what a row in `RecordRows` names it by.
  package let serial = tableSerials.wrappingAdd(1, ordering: .relaxed).oldValue

  /// A child's link to its parent.
  public struct ParentLink: Sendable {
    public let table: Table
    /// The column numbering the children of one parent, or nil for at most one child row per
    /// parent (an extension of the parent's row).
    public let position: String?
    /// The first position: 0, or 1 for `line` numbers.
    public let firstPosition: Int64
    /// The field of the parent's record the children come from (`items`), so an issue about
    /// child `n` points at `items[n].sku`.
    public let field: String
  }

  /// A table with a natural key of its own.
  public init(
    _ name: String, key: [String], columns: [Column], onConflict: ConflictPolicy? = nil, indexes: [Index] = [],
    history: TableHistory? = nil
  ) {
    self.name = name
    self.columns = columns
    self.key = key
    self.parent = nil
    self.onConflict = onConflict
    self.indexes = indexes
    self.history = history
    self.allColumns = columns
    self.inheritedCount = 0
    self.parentKeySources = []
    self.parentInheritedCount = 0
    self.depth = 0
    self.isKeyColumn = columns.map { key.contains($0.name) }
    self.columnTypes = columns.map(\.type)
    self.keyMask = Self.mask(isKeyColumn)
    self.notNullMask = Self.mask(columns.map { !$0.isNullable })
    self.firstPosition = 0
    self.singleKeyColumn = key.count == 1 ? columns.firstIndex { $0.name == key[0] } : nil
    self.references = Self.references(columns)
    self.parentSerial = -1
    self.isExtension = false
    self.ownColumnCount = columns.count
    self.hasReferences = !references.isEmpty
    for column in key {
      precondition(columns.contains { $0.name == column }, "\(name): key column \(column) is not declared")
    }
    Self.checkColumns(name, columns)
  }

  /// A child table: rows keyed by their parent's key and their position among its children.
  /// With `position` nil, an extension (see `init(_:extending:field:columns:indexes:)`).
  ///
  /// The parent may itself be a child table: its rows' children are keyed by the parent's whole
  /// key (`order_id, line`) and their own position (`tax_line`), deleted and written again with
  /// the top-level row they belong to. `field` is relative to the parent's element.
  public init(
    _ name: String, childOf parent: Table, position: String?, startingAt firstPosition: Int64 = 0,
    field: String, columns: [Column], indexes: [Index] = []
  ) {
    if let position {
      precondition(
        !parent.key.contains(position),
        "\(name): its position column \(position) is a key column of its parent \(parent.name) already; name it otherwise"
      )
    }
    self.name = name
    self.columns = columns
    self.key = parent.key + (position.map { [$0] } ?? [])
    self.parent = ParentLink(table: parent, position: position, firstPosition: firstPosition, field: field)
    self.onConflict = nil
    self.indexes = indexes
    self.history = parent.history
    // A table's key columns are declared (its initializer checks that), so each is found.
    let inherited = parent.key.map { name in
      guard let column = parent.allColumns.first(where: { $0.name == name }) else {
        preconditionFailure("\(name): the key column \(name) of the parent \(parent.name) is not declared")
      }
      return Column(name, column.type, field: "")
    }
    let numbering = position.map { [Column($0, .integer, field: "", checks: [.atLeast(firstPosition)])] } ?? []
    self.allColumns = inherited + numbering + columns
    self.inheritedCount = inherited.count + numbering.count
    self.parentKeySources = parent.key.map { key in
      guard let index = parent.allColumns.firstIndex(where: { $0.name == key }) else {
        preconditionFailure("\(name): the key column \(key) of the parent \(parent.name) is not declared")
      }
      return index
    }
    self.parentInheritedCount = parent.inheritedCount
    self.depth = parent.depth + 1
    self.isKeyColumn = columns.map { _ in false }
    self.columnTypes = columns.map(\.type)
    self.keyMask = 0
    self.notNullMask = Self.mask(columns.map { !$0.isNullable })
    self.firstPosition = firstPosition
    self.singleKeyColumn = nil
    self.references = Self.references(columns)
    self.parentSerial = parent.serial
    self.isExtension = position == nil
    self.ownColumnCount = columns.count
    self.hasReferences = !references.isEmpty
    Self.checkColumns(name, allColumns)
  }

  /// An extension of the parent's rows: at most one row per parent row, keyed by the parent's
  /// key alone (a foreign key with ON DELETE CASCADE), written after the parent in the same
  /// record and replaced with it — a re-imported parent row that no longer has its extension
  /// loses it.
  ///
  /// For the part of a record that only some records have, such as a polymorphic record's
  /// kind-specific columns (`image_messages` extends `messages`). `field` is where the columns'
  /// fields sit in the parent's record: `""` for the record itself, so an issue about column
  /// `url` points at `url`; `"photo"` for a nested object, so it points at `photo.url`.
  public convenience init(
    _ name: String, extending parent: Table, field: String = "", columns: [Column], indexes: [Index] = []
  ) {
    self.init(name, childOf: parent, position: nil, field: field, columns: columns, indexes: indexes)
  }

  /// The top-level table above this one (itself, for a top-level table): every row of this
  /// table belongs to one of its rows, whose key starts this table's key.
  package var root: Table { parent?.table.root ?? self }

  private static func references(_ columns: [Column]) -> [(column: Int, target: Table, orphans: OrphanPolicy)] {
    columns.enumerated().compactMap { index, column in
      column.reference.map { (index, $0.table, $0.orphans) }
    }
  }

  private static func mask(_ bits: [Bool]) -> UInt64 {
    bits.prefix(64).enumerated().reduce(0) { $1.element ? $0 | 1 << UInt64($1.offset) : $0 }
  }

  private static func checkColumns(_ table: String, _ columns: [Column]) {
    var names = Set<String>()
    for column in columns {
      precondition(names.insert(column.name).inserted, "\(table): column \(column.name) is declared twice")
      if column.reference?.orphans == .setNull {
        precondition(column.isNullable, "\(table).\(column.name): a setNull reference must be nullable")
      }
    }
    precondition(columns.count <= 64, "\(table): at most 64 columns")
  }
}

/// A column: name, type, nullability, checks, and the record field it comes from.
public struct Column: Sendable {
  public let name: String
  public let type: ColumnType
  public let isNullable: Bool
  public let checks: [Check]
  /// The record's field this column holds (`customer.id`), relative to the child element for a
  /// child table; issues about the column point there. Defaults to the column's name.
  public let field: String
  /// The row of another table this column names by its natural key.
  public let reference: Reference?
  /// The enum-owned lookup table this column holds ids of.
  public let lookup: LookupDeclaration?

  public init(
    _ name: String, _ type: ColumnType, field: String? = nil, nullable: Bool = false, checks: [Check] = [],
    references reference: Reference? = nil
  ) {
    self.name = name
    self.type = type
    self.isNullable = nullable
    self.checks = checks
    self.field = field ?? name
    self.reference = reference
    self.lookup = nil
  }

  private init(lookup: LookupDeclaration, name: String, field: String?, nullable: Bool) {
    self.name = name
    self.type = .integer
    self.isNullable = nullable
    self.checks = []
    self.field = field ?? name
    self.reference = nil
    self.lookup = lookup
  }

  public static func text(_ name: String, field: String? = nil, nullable: Bool = false, checks: [Check] = []) -> Column
  {
    Column(name, .text, field: field, nullable: nullable, checks: checks)
  }
  public static func integer(_ name: String, field: String? = nil, nullable: Bool = false, checks: [Check] = [])
    -> Column
  {
    Column(name, .integer, field: field, nullable: nullable, checks: checks)
  }
  public static func real(_ name: String, field: String? = nil, nullable: Bool = false, checks: [Check] = []) -> Column
  {
    Column(name, .real, field: field, nullable: nullable, checks: checks)
  }
  public static func boolean(_ name: String, field: String? = nil, nullable: Bool = false) -> Column {
    Column(name, .boolean, field: field, nullable: nullable)
  }
  public static func timestamp(_ name: String, field: String? = nil, nullable: Bool = false) -> Column {
    Column(name, .timestamp, field: field, nullable: nullable)
  }
  public static func blob(_ name: String, field: String? = nil, nullable: Bool = false) -> Column {
    Column(name, .blob, field: field, nullable: nullable)
  }
  /// A column holding the natural key of a row of `table`, of the key's type. The table must
  /// have a single-column key and be declared before the tables that reference it.
  ///
  /// `nullable` allows a row to name no row at all (a system message has no sender); a `setNull`
  /// reference is always nullable. A NULL reference is never looked up.
  ///
  /// `onDelete` says what deleting the referenced row does to this one: by default the delete
  /// fails while a row names it; `.cascade` deletes the naming rows with it (an alert goes with
  /// its device when a `replace` run deletes the device).
  public static func reference(
    _ name: String, to table: Table, field: String? = nil, nullable: Bool = false, orphans: OrphanPolicy = .reject,
    onDelete: DeleteRule = .restrict
  ) -> Column {
    guard table.key.count == 1, table.parent == nil, let keyColumn = table.singleKeyColumn else {
      preconditionFailure("\(name): \(table.name) has no single-column natural key to reference")
    }
    let type = table.columns[keyColumn].type
    return Column(
      name, type, field: field, nullable: nullable || orphans == .setNull,
      references: Reference(table: table, orphans: orphans, onDelete: onDelete))
  }
  /// A column holding ids of a lookup table declared as data (a dataset file's `lookups`).
  static func lookup(_ name: String, _ lookup: LookupDeclaration, field: String?, nullable: Bool) -> Column {
    Column(lookup: lookup, name: name, field: field, nullable: nullable)
  }
  /// A column holding the id of a case of an enum that owns its lookup table.
  public static func lookup<E: LookupEnum>(_ name: String, _ type: E.Type, field: String? = nil, nullable: Bool = false)
    -> Column
  {
    Column(lookup: LookupDeclaration(type), name: name, field: field, nullable: nullable)
  }
}

/// A column's declared type; each dialect names it (`SQLDialect.typeName`): `TEXT`, `INTEGER`,
/// PostgreSQL's `timestamptz`, …
public enum ColumnType: String, Sendable, Hashable {
  case text, integer, real, boolean, timestamp, blob

  /// Whether a value of this kind can go into a column of this type: what the Swift types a row
  /// carries bind as (`Bool` as an integer, `Timestamp` as text, an integer where a real goes).
  func accepts(_ value: DatabaseValue) -> Bool {
    switch (self, value) {
    case (.text, .text), (.timestamp, .text), (.integer, .integer), (.boolean, .integer), (.real, .real),
      (.real, .integer), (.blob, .blob):
      true
    default:
      false
    }
  }
}

/// A condition every value of a column meets, enforced by the store (`CHECK`).
public enum Check: Sendable, Hashable {
  case atLeast(Int64)
  case atMost(Int64)
  /// Text of exactly this many characters.
  case length(Int)
  /// Text that is not empty.
  case notEmpty
  /// Text that is one of these.
  case oneOf([String])
}

/// A column naming a row of another table by its natural key.
public struct Reference: Sendable {
  public let table: Table
  public let orphans: OrphanPolicy
  public let onDelete: DeleteRule

  public init(table: Table, orphans: OrphanPolicy = .reject, onDelete: DeleteRule = .restrict) {
    self.table = table
    self.orphans = orphans
    self.onDelete = onDelete
  }
}

/// What deleting a referenced row does to the rows that name it, enforced by the store's
/// foreign key.
public enum DeleteRule: String, Sendable, Hashable, CaseIterable {
  /// The delete fails while a row names it (a `constraint` issue): nothing is lost silently.
  case restrict
  /// The rows that name it are deleted with it, as a child table's rows go with their parent.
  case cascade
}

/// What a reference to a row that does not exist means.
public enum OrphanPolicy: String, Sendable, Hashable, CaseIterable {
  /// The record is rejected with an `orphanReference` issue: a strict run fails, a lenient one
  /// skips the record.
  case reject
  /// The row is kept with the reference NULL, and a warning says so (legacy dumps reference
  /// deleted rows).
  case setNull
}

/// A secondary index.
public struct Index: Sendable {
  public let name: String
  public let columns: [String]
  /// May be built after a first load instead of before it: building an index once over loaded
  /// rows is a sort, maintaining it row by row is a random B-tree insert per row. Only for
  /// indexes no constraint depends on.
  public let isDeferrable: Bool

  public init(_ name: String, on columns: [String], deferrable: Bool = false) {
    self.name = name
    self.columns = columns
    self.isDeferrable = deferrable
  }
}
