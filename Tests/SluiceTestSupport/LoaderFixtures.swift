@_spi(Internals) import SluiceCore
import Testing

// The load stage's workloads, shared by the engine's tests (SluiceCoreTests, on SQLite) and the
// PostgreSQL driver's (SluicePostgreSQLTests), which expect the same outcomes of both stores.

/// Boxes for the batch loader (`BatchLoader`): batches of records, one of them with a row that
/// breaks the weight check, and what becomes of each record in either store.
package enum BoxBatches {
  package static let boxes = Table(
    "boxes", key: ["box_id"],
    columns: [.integer("box_id"), .integer("weight", checks: [.atLeast(1)])])
  package static let schema = Schema([boxes])

  package static func box(_ id: Int, weight: Int) -> RecordRows {
    var rows = RecordRows()
    rows.add(boxes, Int64(id), Int64(weight))
    return rows
  }

  private static func location(_ ordinal: Int) -> RecordLocation {
    RecordLocation(ordinal: ordinal, byteOffset: Int64(ordinal * 10), line: ordinal)
  }

  /// What became of each record, as text: `written`, `kept` or the codes of its issues.
  package static func load(
    _ batches: [[RecordRows]], into store: any Store, conflict: ConflictPolicy = .upsert, rowByRow: Bool = false
  ) throws -> (outcomes: [String], loader: BatchLoader) {
    let loader = try BatchLoader(
      store: store, schema: schema, conflict: conflict, savepoints: try store.makeSavepoints())
    var outcomes: [String] = []
    var ordinal = 0
    for batch in batches {
      try loader.begin(batch, rowByRow: rowByRow)
      for rows in batch {
        ordinal += 1
        switch try loader.write(rows, at: location(ordinal)) {
        case .written(let kept, let warnings):
          #expect(warnings.isEmpty)
          outcomes.append(kept ? "kept" : "written")
        case .rejected(let issues):
          outcomes.append(issues.map { "\($0.code.rawValue) at \($0.location?.ordinal ?? 0)" }.joined(separator: ", "))
        }
      }
    }
    return (outcomes, loader)
  }

  package static let batches = [
    [box(1, weight: 5), box(2, weight: 7)],
    // A row breaks the weight check: the batch goes record by record, and only it is rejected.
    [box(3, weight: 2), box(4, weight: 0), box(5, weight: 9)],
    [box(1, weight: 6)],
  ]
  package static let expected = ["written", "written", "written", "constraint at 4", "written", "written"]

  package static func migrate(_ store: some Store) throws {
    _ = try Migrator.migrate(store, schema.migrations(dialect: store.dialect))
  }
}

/// Owners and their pets, for how the row writer upserts a row into a table with foreign keys.
package enum PetsAndOwners {
  package static let owners = Table(
    "owners", key: ["owner_id"], columns: [.integer("owner_id")], onConflict: .upsert)
  package static let pets = Table(
    "pets", key: ["pet_id"],
    columns: [.integer("pet_id"), .text("name"), .reference("owner_id", to: owners, field: "owner")])
  package static let schema = Schema([owners, pets])
}
