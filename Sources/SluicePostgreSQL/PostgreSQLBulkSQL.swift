@_spi(Internals) import SluiceCore

/// The SQL of the PostgreSQL bulk writer, derived from the table declarations as `TableSQL`
/// derives the row writer's: for a top-level table and its children, the statements that apply a
/// batch's staged rows under the table's conflict policy, with what each statement's result says
/// about the rows written (so the bulk writer counts exactly what `RowWriter` would).
struct PostgreSQLBulkSQL {
  let dialect: any SQLDialect
  /// The server has `MERGE` (PostgreSQL 15) and the options do not ask for the older statements.
  let usesMerge: Bool
  /// The server is a Citus coordinator: `MERGE` into a reference table is refused ("Reference
  /// table as target is not allowed in MERGE command"), and so is an `UPDATE` of one joined with a
  /// staging table ("relation … is not distributed"; Citus 13.2 takes that `UPDATE` of a
  /// distributed table, planning the staging table apart); `INSERT … ON CONFLICT` works on both.
  var isCitus = false

  /// A statement of a batch's apply, and what its result says.
  struct Step {
    enum Effect {
      case none
      /// A count of the plan's rows written, as its one row.
      case count(Int)
      /// Its changed rows are the plan's rows written.
      case changes(Int)
      /// The plan's picked rows (ordinal, entry), as it returns them: each is a row written.
      case picked(Int)
    }
    var sql: String
    var effect: Effect = .none

    init(_ sql: String, _ effect: Effect = .none) {
      self.sql = sql
      self.effect = effect
    }
  }

  /// The statements that apply a top-level table's staged rows, then its children's; counts
  /// that need no result go straight into `counts`. `keysRepeat`: an upsert table without
  /// children has a key twice among its staged rows (with other values).
  func apply(
    _ index: Int, of plans: [PostgreSQLBulkWriter.Plan], staged: [Int], keysRepeat: Bool, counts: inout [Int]
  ) -> [Step] {
    let plan = plans[index]
    let table = plan.table
    let q = dialect.quote
    let keys = table.key.map(q)
    let keyList = keys.joined(separator: ", ")
    let columns = table.allColumns.map { q($0.name) }
    let columnList = columns.joined(separator: ", ")
    let others = table.allColumns.map(\.name).filter { !table.key.contains($0) }.map(q)
    let target = q(table.name)
    func match(_ a: String, _ b: String) -> String { keys.map { "\(a).\($0) = \(b).\($0)" }.joined(separator: " AND ") }
    let lastPerKey =
      "SELECT DISTINCT ON (\(keyList)) * FROM \(plan.stage) ORDER BY \(keyList), sluice_ord DESC, sluice_sub DESC"

    if plan.policy == .upsert && plan.children.isEmpty && !keysRepeat {
      // Each key once: the rows updated because they differ, and the keys inserted because the
      // table lacked them, are those the row writer counts. Unlike `INSERT … ON CONFLICT DO
      // UPDATE`, which locks (and so writes) every row it meets, a row that does not change is
      // only read — a customer named by a thousand orders is not rewritten a thousand times.
      return upsertEachKey(index, of: plans, from: plan.stage, given: others)
    }
    if plan.policy == .upsert && plan.children.isEmpty {
      // Counted as the row writer counts its one-statement upsert: each row that differs from
      // the one before it — the table's, for a key's first row of the batch.
      let row = { (alias: String) in "ROW(\(columns.map { "\(alias).\($0)" }.joined(separator: ", ")))" }
      var count = """
        SELECT count(*) FROM (
          SELECT \(row("s")) AS sluice_row, lag(\(row("s"))) OVER w AS sluice_previous, row_number() OVER w AS sluice_n,
            \(keys.map { "s.\($0)" }.joined(separator: ", "))
          FROM \(plan.stage) s WINDOW w AS (PARTITION BY \(keys.map { "s.\($0)" }.joined(separator: ", ")) ORDER BY s.sluice_ord, s.sluice_sub)
        ) q LEFT JOIN \(target) t ON \(match("t", "q"))
        WHERE CASE WHEN q.sluice_n = 1 THEN t.\(keys[0]) IS NULL OR \(row("t")) IS DISTINCT FROM q.sluice_row
          ELSE q.sluice_row IS DISTINCT FROM q.sluice_previous END
        """
      if isCitus {
        // The same count, column by column: Citus sends the staging table's rows of the
        // subquery to the workers as an intermediate result, which cannot carry a row value
        // ("input of anonymous composite types is not implemented"). Two rows are distinct
        // when one of their columns is.
        func differ(_ a: (String) -> String, _ b: (String) -> String) -> String {
          "(" + columns.map { "\(a($0)) IS DISTINCT FROM \(b($0))" }.joined(separator: " OR ") + ")"
        }
        let previous = columns.enumerated().map { "lag(s.\($0.element)) OVER w AS sluice_previous_\($0.offset)" }
        let position = Dictionary(uniqueKeysWithValues: columns.enumerated().map { ($0.element, $0.offset) })
        count = """
          SELECT count(*) FROM (
            SELECT \(columns.map { "s.\($0)" }.joined(separator: ", ")), \(previous.joined(separator: ", ")),
              row_number() OVER w AS sluice_n
            FROM \(plan.stage) s WINDOW w AS (PARTITION BY \(keys.map { "s.\($0)" }.joined(separator: ", ")) ORDER BY s.sluice_ord, s.sluice_sub)
          ) q LEFT JOIN \(target) t ON \(match("t", "q"))
          WHERE CASE WHEN q.sluice_n = 1 THEN t.\(keys[0]) IS NULL OR \(differ({ "t.\($0)" }, { "q.\($0)" }))
            ELSE \(differ({ "q.\($0)" }, { "q.sluice_previous_\(position[$0] ?? 0)" })) END
          """
      }
      let update = onConflict(updating: others, of: target)
      return [
        Step(count, .count(index)),
        Step(
          "INSERT INTO \(target) (\(columnList)) SELECT \(columnList) FROM (\(lastPerKey)) w ON CONFLICT (\(keyList)) \(update)"
        ),
      ]
    }

    // The children the table had for the batch's keys, whether or not the batch brings any —
    // under upsert, only those that are not, column for column, a child the batch brings again
    // for the row it writes: an unchanged child stays as it is (a re-run of the same orders
    // neither deletes nor inserts an item), and the insert below skips the ones that stayed.
    // The stage of a child table is keyed by the child's key (`PostgreSQLBulkWriter`), so the
    // check is a probe. Not on Citus, which refuses the correlated subquery over tables of the
    // coordinator in a statement on a distributed table ("relation … is not distributed").
    //
    // The tables below it at every depth (grandchildren too) are matched on the top-level key,
    // which starts their keys, the deepest first: a delete of a child that changed cascades to
    // its children, which the inserts below then write again.
    let keepsUnchangedChildren = plan.policy == .upsert && !isCitus
    let deleteChildren = plan.children.sorted { plans[$0].table.depth > plans[$1].table.depth }.map { child in
      let childTable = plans[child].table
      var delete =
        "DELETE FROM \(q(childTable.name)) c USING (SELECT DISTINCT \(keyList) FROM \(plan.stage)) s WHERE \(match("c", "s"))"
      if keepsUnchangedChildren {
        let all = childTable.allColumns.map { q($0.name) }
        delete += """

          AND NOT EXISTS (
            SELECT 1 FROM \(plans[child].stage) x JOIN \(plan.pick) p ON p.sluice_ord = x.sluice_ord AND p.sluice_sub = x.sluice_root
            WHERE \(childTable.key.map(q).map { "x.\($0) = c.\($0)" }.joined(separator: " AND "))
            AND ROW(\(all.map { "x.\($0)" }.joined(separator: ", "))) IS NOT DISTINCT FROM ROW(\(all.map { "c.\($0)" }.joined(separator: ", ")))
          )
          """
      }
      return Step(delete)
    }
    let insertPicked =
      "INSERT INTO \(target) (\(columnList)) SELECT \(columnList) FROM \(plan.stage) JOIN \(plan.pick) USING (sluice_ord, sluice_sub)"
    var steps: [Step]
    switch plan.policy {
    case .upsert:
      // Every row is written (inserted, or its row updated), and its children replaced. A row
      // whose columns are all the same is left as it is — counted, as the row writer counts it,
      // but not rewritten: a re-run of the same orders writes no new version of each order.
      let update = onConflict(updating: others, of: target)
      steps =
        [
          Step("INSERT INTO \(plan.pick) SELECT sluice_ord, sluice_sub FROM (\(lastPerKey)) w"),
          Step("\(insertPicked) ON CONFLICT (\(keyList)) \(update)"),
        ] + deleteChildren
      counts[index] += staged[index]
    case .replace:
      steps =
        [Step("INSERT INTO \(plan.pick) SELECT sluice_ord, sluice_sub FROM (\(lastPerKey)) w")] + deleteChildren + [
          Step(
            "DELETE FROM \(target) t USING (SELECT DISTINCT \(keyList) FROM \(plan.stage)) s WHERE \(match("t", "s"))"),
          Step(insertPicked),
        ]
      counts[index] += staged[index]
    case .ignore:
      // The first row of each key the table lacks; the others keep what is there.
      steps = [
        Step(
          """
          INSERT INTO \(plan.pick)
          SELECT sluice_ord, sluice_sub FROM (
            SELECT DISTINCT ON (\(keyList)) * FROM \(plan.stage) ORDER BY \(keyList), sluice_ord, sluice_sub
          ) f WHERE NOT EXISTS (SELECT 1 FROM \(target) t WHERE \(match("t", "f")))
          RETURNING sluice_ord, sluice_sub
          """, .picked(index)),
        Step(insertPicked),
      ]
    case .fail:
      steps = [Step("INSERT INTO \(plan.pick) SELECT sluice_ord, sluice_sub FROM \(plan.stage)"), Step(insertPicked)]
      counts[index] += staged[index]
    }
    for child in plan.children where staged[child] > 0 {
      let childPlan = plans[child]
      let childColumns = childPlan.table.allColumns.map { "c.\(q($0.name))" }.joined(separator: ", ")
      // Under upsert, a child left in place (by `deleteChildren`) is not inserted again.
      let unchangedLeft =
        keepsUnchangedChildren
        ? "\nWHERE NOT EXISTS (SELECT 1 FROM \(q(childPlan.table.name)) t WHERE \(childPlan.table.key.map { "t.\(q($0)) = c.\(q($0))" }.joined(separator: " AND ")))"
        : ""
      let insert = """
        INSERT INTO \(q(childPlan.table.name)) (\(childPlan.table.allColumns.map { q($0.name) }.joined(separator: ", ")))
        SELECT \(childColumns) FROM \(childPlan.stage) c
        JOIN \(plan.pick) p ON p.sluice_ord = c.sluice_ord AND p.sluice_sub = c.sluice_root\(unchangedLeft)
        """
      // The row writer inserts the children of every row it writes, also of rows a later record
      // of the batch replaces: all staged children count but those of kept rows.
      if plan.policy == .ignore {
        steps.append(Step(insert, .changes(child)))
      } else {
        steps.append(Step(insert))
        counts[child] += staged[child]
      }
    }
    return steps
  }

  /// The statements that write the rows of `source` — a table or a parenthesized query, each
  /// key at most once — into a plan's table, counted as the row writer counts its upsert of one
  /// row: a key the table lacks is inserted (every column, as `source` has it), a row whose
  /// `given` columns differ is updated in those and counted, a row whose `given` columns are the
  /// same is only read (but on Citus, where it is `INSERT … ON CONFLICT`, locked). Empty
  /// `given`: only the keys the table lacks are written.
  func upsertEachKey(_ index: Int, of plans: [PostgreSQLBulkWriter.Plan], from source: String, given: [String])
    -> [Step]
  {
    let table = plans[index].table
    let q = dialect.quote
    let keys = table.key.map(q)
    let columns = table.allColumns.map { q($0.name) }
    let columnList = columns.joined(separator: ", ")
    let target = q(table.name)
    let match = keys.map { "t.\($0) = s.\($0)" }.joined(separator: " AND ")
    let differs = given.map { "t.\($0) IS DISTINCT FROM s.\($0)" }.joined(separator: " OR ")
    let assignments = given.map { "\($0) = s.\($0)" }.joined(separator: ", ")
    if isCitus {
      // One statement Citus runs on reference and distributed tables alike. Its count is the
      // rows inserted and those updated because they differ, as MERGE's; unlike MERGE, it
      // locks the rows it meets unchanged until the run commits. The count is of the rows it
      // returns: Citus answers an `INSERT … SELECT` from a table of the coordinator (the
      // staging table) with the rows the SELECT produced, written or not — a re-run that
      // changed nothing counted each customer once per batch naming it, as many as the
      // batches, which follow the machine's load, happened to split.
      let update = onConflict(updating: given, of: target)
      return [
        Step(
          """
          WITH written AS (
            INSERT INTO \(target) (\(columnList)) SELECT \(columnList) FROM \(source) s
            ON CONFLICT (\(keys.joined(separator: ", "))) \(update) RETURNING 1
          ) SELECT count(*) FROM written
          """, .count(index))
      ]
    }
    if usesMerge {
      // One probe of the key per staged row (MERGE, PostgreSQL 15), where an UPDATE and an
      // anti-joined INSERT would take two.
      let changed = given.isEmpty ? "" : "WHEN MATCHED AND (\(differs)) THEN UPDATE SET \(assignments)\n"
      return [
        Step(
          """
          MERGE INTO \(target) t USING \(source) s ON \(match)
          \(changed)WHEN NOT MATCHED THEN INSERT (\(columnList)) VALUES (\(columns.map { "s.\($0)" }.joined(separator: ", ")))
          """, .changes(index))
      ]
    }
    var steps: [Step] = []
    if !given.isEmpty {
      steps.append(
        Step("UPDATE \(target) t SET \(assignments) FROM \(source) s WHERE \(match) AND (\(differs))", .changes(index)))
    }
    steps.append(
      Step(
        """
        INSERT INTO \(target) (\(columnList)) SELECT \(columnList) FROM \(source) s
        WHERE NOT EXISTS (SELECT 1 FROM \(target) t WHERE \(match))
        """, .changes(index)))
    return steps
  }

  /// The `ON CONFLICT` action that sets `columns` from the proposed row where one of them
  /// differs (so an unchanged row is not written), or does nothing when there are none.
  private func onConflict(updating columns: [String], of target: String) -> String {
    guard !columns.isEmpty else { return "DO NOTHING" }
    return "DO UPDATE SET \(columns.map { "\($0) = excluded.\($0)" }.joined(separator: ", ")) WHERE "
      + columns.map { "\(target).\($0) IS DISTINCT FROM excluded.\($0)" }.joined(separator: " OR ")
  }
}
