import Foundation
@_spi(Internals) import SluiceCore
import SluicePostgreSQL
import SluicePostgreSQLTestSupport
import SluiceSQLite
@_spi(Internals) import SluiceTestSupport
import Testing

/// The Citus layouts of docs/postgresql.md ("Past one server: Citus"), checked on plain PostgreSQL:
/// each `-- citus layout: DATASET` block is what `sluice schema DATASET --dialect citus` prints
/// after the DDL, and runs after `sluice schema DATASET --dialect postgresql`, against stand-ins
/// for `create_reference_table` and `create_distributed_table` that record the layout; then the
/// rules Citus enforces are checked on the catalog, and the dataset's pipeline loads into the
/// result twice.
///
/// That the real Citus accepts the calls, shards the data and runs Sluice's statements on
/// distributed tables is `CitusClusterLayoutTests`' and `CitusPipelineTests`' part, on the cluster
/// `.ci/with-citus` starts; this checker runs wherever a plain PostgreSQL server does.
@Suite(
  "Citus layouts from docs/postgresql.md, on plain PostgreSQL",
  .enabled(
    if: PostgreSQLServer.isAvailable,
    "no PostgreSQL server: set SLUICE_TEST_POSTGRES_URL or run the tests through .ci/with-postgres"))
struct CitusLayoutTests {
  /// The `sql` blocks of the Citus section of docs/postgresql.md that start `-- citus layout: DATASET`.
  static func layouts() throws -> [String: String] {
    let readme = try String(contentsOfFile: Repository.path("docs/postgresql.md"), encoding: .utf8)
    let start = try #require(readme.range(of: "## Past one server: Citus"))
    let section = readme[start.upperBound...].prefix { _ in true }
    let end = section.range(of: "\n## ")?.lowerBound ?? section.range(of: "\n# ")?.lowerBound ?? section.endIndex
    var layouts: [String: String] = [:]
    for block in section[..<end].components(separatedBy: "```sql\n").dropFirst() {
      let sql = block.components(separatedBy: "```").first ?? ""
      guard let first = sql.split(separator: "\n").first, first.hasPrefix("-- citus layout: ") else { continue }
      layouts[String(first.dropFirst("-- citus layout: ".count))] = sql
    }
    return layouts
  }

  /// Stand-ins with Citus's names and parameters (`colocate_with => …` works as with Citus),
  /// recording each call in order.
  static func shim(_ schema: String) -> String {
    """
    CREATE SCHEMA "\(schema)";
    CREATE TABLE "\(schema)".citus_layout (
      sequence serial, table_name regclass PRIMARY KEY, kind text NOT NULL, distribution_column name,
      colocate_with text);
    CREATE FUNCTION "\(schema)".create_reference_table(table_name regclass) RETURNS void LANGUAGE sql
      AS $$ INSERT INTO "\(schema)".citus_layout (table_name, kind) VALUES (table_name, 'reference') $$;
    CREATE FUNCTION "\(schema)".create_distributed_table(
      table_name regclass, distribution_column text, distribution_type text DEFAULT 'hash',
      colocate_with text DEFAULT 'default') RETURNS void LANGUAGE sql
      AS $$ INSERT INTO "\(schema)".citus_layout (table_name, kind, distribution_column, colocate_with)
            VALUES (table_name, 'distributed', distribution_column, colocate_with) $$;
    """
  }

  /// What Citus would refuse, one line each; nothing when the layout is valid.
  static func violations(_ shim: String) -> String {
    """
    WITH RECURSIVE layout AS (
      SELECT l.*, c.relname::text AS name FROM "\(shim)".citus_layout l JOIN pg_class c ON c.oid = l.table_name),
    groups (table_name, root) AS (
      SELECT table_name, name FROM layout WHERE kind = 'distributed' AND colocate_with IN ('default', 'none')
      UNION ALL
      SELECT l.table_name, g.root FROM layout l JOIN layout p ON p.name = l.colocate_with
        JOIN groups g ON g.table_name = p.table_name),
    tables AS (
      SELECT c.oid, c.relname FROM pg_class c
      WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind = 'r' AND c.relname NOT LIKE 'sluice\\_%'),
    foreign_keys AS (
      SELECT k.conname, k.conrelid, k.confrelid, k.conkey, k.confkey FROM pg_constraint k
      JOIN tables t ON t.oid = k.conrelid WHERE k.contype = 'f')
    SELECT t.relname || ': neither distributed nor a reference table' FROM tables t
      WHERE NOT EXISTS (SELECT FROM layout l WHERE l.table_name = t.oid)
    UNION ALL
    SELECT l.name || ': distribution column ' || l.distribution_column || ' does not exist or may be NULL' FROM layout l
      WHERE l.kind = 'distributed' AND NOT EXISTS (
        SELECT FROM pg_attribute a WHERE a.attrelid = l.table_name AND a.attname = l.distribution_column AND a.attnotnull)
    UNION ALL
    SELECT l.name || ': colocated with ' || l.colocate_with || ', which is not distributed before it on a column of the same type'
      FROM layout l WHERE l.kind = 'distributed' AND l.colocate_with NOT IN ('default', 'none') AND NOT EXISTS (
        SELECT FROM layout p
        JOIN pg_attribute pa ON pa.attrelid = p.table_name AND pa.attname = p.distribution_column
        JOIN pg_attribute la ON la.attrelid = l.table_name AND la.attname = l.distribution_column
        WHERE p.name = l.colocate_with AND p.kind = 'distributed' AND p.sequence < l.sequence
          AND pa.atttypid = la.atttypid)
    UNION ALL
    SELECT l.name || ': unique index ' || i.indexrelid::regclass || ' lacks the distribution column ' || l.distribution_column
      FROM layout l JOIN pg_index i ON i.indrelid = l.table_name AND i.indisunique
      WHERE l.kind = 'distributed' AND NOT EXISTS (
        SELECT FROM pg_attribute a WHERE a.attrelid = l.table_name AND a.attname = l.distribution_column
          AND a.attnum = ANY (i.indkey::int2[]))
    UNION ALL
    SELECT f.conname || ': references ' || r.name || ', which is distributed or made a reference table after it'
      FROM foreign_keys f JOIN layout s ON s.table_name = f.conrelid JOIN layout r ON r.table_name = f.confrelid
      WHERE f.conrelid <> f.confrelid AND r.sequence > s.sequence
    UNION ALL
    SELECT f.conname || ': a reference table may not reference the distributed table ' || r.name
      FROM foreign_keys f JOIN layout s ON s.table_name = f.conrelid JOIN layout r ON r.table_name = f.confrelid
      WHERE s.kind = 'reference' AND r.kind = 'distributed'
    UNION ALL
    SELECT f.conname || ': between distributed tables, it must pair ' || s.distribution_column || ' with '
        || r.distribution_column || ' and the tables must be colocated'
      FROM foreign_keys f JOIN layout s ON s.table_name = f.conrelid JOIN layout r ON r.table_name = f.confrelid
      WHERE s.kind = 'distributed' AND r.kind = 'distributed' AND NOT (
        (SELECT root FROM groups WHERE table_name = s.table_name) = (SELECT root FROM groups WHERE table_name = r.table_name)
        AND EXISTS (
          SELECT FROM unnest(f.conkey, f.confkey) AS pair(source, target)
          JOIN pg_attribute sa ON sa.attrelid = f.conrelid AND sa.attnum = pair.source
          JOIN pg_attribute ra ON ra.attrelid = f.confrelid AND ra.attnum = pair.target
          WHERE sa.attname = s.distribution_column AND ra.attname = r.distribution_column))
    """
  }

  /// Each layout's dataset, the pipeline that loads it and the tables to compare.
  static let pipelines: [String: (pipeline: String, tables: [String])] = [
    "fruits": ("Pipelines/fruits.json", ["fruits", "recipes"]),
    "orders": ("Pipelines/orders.json", ["orders", "order_items", "customers", "order_statuses"]),
    "alerts": ("Pipelines/devices.json", ["devices", "alerts"]),
    "profiles": ("Pipelines/profiles.json", ["profiles"]),
    "messages": (
      "Pipelines/messages-lenient.json",
      ["messages", "conversations", "senders", "text_messages", "message_attachments"]
    ),
    "stackexchange-posthistory": (
      "Pipelines/stackexchange.json",
      ["users", "tags", "posts", "post_tags", "comments", "votes", "badges", "post_links", "post_history"]
    ),
  ]

  @Test func theREADMEHasALayoutForEveryCatalogFamily() throws {
    #expect(Set(try Self.layouts().keys) == Set(Self.pipelines.keys))
  }

  /// Nobody writes the README's layouts by hand: each block is the layout part of what
  /// `sluice schema DATASET --dialect citus` prints.
  @Test(arguments: ["fruits", "orders", "alerts", "profiles", "messages", "stackexchange-posthistory"])
  func theREADMELayoutIsWhatSluiceSchemaPrints(dataset: String) throws {
    let printed = try SluiceCommand.run(["schema", dataset, "--dialect", "citus"])
    try #require(printed.status == 0, "\(printed.stderr)")
    let start = try #require(printed.stdout.range(of: "-- citus layout: "))
    #expect(try Self.layouts()[dataset] == String(printed.stdout[start.lowerBound...]))
  }

  @Test(arguments: ["fruits", "orders", "alerts", "profiles", "messages", "stackexchange-posthistory"])
  func theLayoutKeepsCitusRulesAndTheRunsStillLoadAndRepeat(dataset: String) throws {
    let sql = try #require(try Self.layouts()[dataset], "no layout for \(dataset) in docs/postgresql.md")
    let (pipeline, tables) = try #require(Self.pipelines[dataset])
    let scratch = try TemporaryDirectory()
    let schema = PostgreSQLSchema()
    let found = try violations(dataset: dataset, layout: sql, in: schema)
    #expect(found.isEmpty, "\(dataset): \(found)")

    // The first load adopts the tables; a second is a no-op under upsert; a schema Sluice made
    // itself, with every foreign key, ends with the same rows (the engine resolves references by
    // natural key itself, so the keys the layout drops change no outcome).
    let target = ["--db", schema.url, "--db-schema", schema.name]
    let first = try SluiceCommand.run(["run", pipeline, "--report", scratch.file("1.json")] + target)
    #expect(first.status == 0, "\(first.stderr)")
    let loaded = try schema.rows(of: tables)
    let again = try SluiceCommand.run(["run", pipeline, "--report", scratch.file("2.json")] + target)
    #expect(again.status == 0, "\(again.stderr)")
    #expect(try schema.rows(of: tables) == loaded)
    let plain = PostgreSQLSchema()
    let reference = try SluiceCommand.run(
      ["run", pipeline, "--report", scratch.file("3.json"), "--db", plain.url, "--db-schema", plain.name])
    #expect(reference.status == 0, "\(reference.stderr)")
    #expect(try plain.rows(of: tables) == loaded)
    #expect(loaded.tables.count == tables.count)
    #expect(tables.allSatisfy { loaded.count($0) > 0 }, "\(loaded)")
  }

  /// Lays `dataset` out with `sql` in `schema` (a new one by default) on plain PostgreSQL and
  /// returns what the checker refuses.
  func violations(dataset: String, layout sql: String, in schema: PostgreSQLSchema = PostgreSQLSchema()) throws
    -> [String]
  {
    let shim = "citus_shim_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
    let admin = try PostgreSQLServer.connect()
    defer { _ = try? admin.execute("DROP SCHEMA IF EXISTS \"\(shim)\" CASCADE") }
    try admin.execute(Self.shim(shim) + "; CREATE SCHEMA \"\(schema.name)\"")
    let ddl = try SluiceCommand.run(["schema", dataset, "--dialect", "postgresql"])
    try #require(ddl.status == 0, "\(ddl.stderr)")
    let store = try schema.connect()
    try store.execute(ddl.stdout)
    try store.execute("SET search_path TO \"\(schema.name)\", \"\(shim)\"")
    try store.execute(sql)
    let check = try store.prepare(Self.violations(shim))
    defer { check.reset() }
    var violations: [String] = []
    while try check.step() {
      if case .text(let line)? = check.columnValue(0) { violations.append(line) }
    }
    return violations.sorted()
  }

  /// The rules' checker is not vacuous: the natural distribution of alerts, by device_id with
  /// devices, is what Citus refuses while alerts' key is alert_id alone.
  @Test func theCheckerRefusesAlertsColocatedWithDevicesUnderTheirOwnKey() throws {
    let found = try violations(
      dataset: "alerts",
      layout: """
        SELECT create_distributed_table('devices', 'device_id');
        SELECT create_distributed_table('alerts', 'device_id', colocate_with => 'devices');
        """)
    #expect(found == ["alerts: unique index alerts_pkey lacks the distribution column device_id"])
  }

  /// Without the README's four `DROP CONSTRAINT`s, the Stack Exchange layout breaks Citus's
  /// rule for foreign keys between distributed tables, once per dropped key.
  @Test func theStackExchangeLayoutNeedsItsDroppedForeignKeysDropped() throws {
    let layout = try #require(try Self.layouts()["stackexchange-posthistory"])
    let kept = layout.replacingOccurrences(
      of: #"ALTER TABLE [^;]*;"#, with: "", options: .regularExpression)
    let found = try violations(dataset: "stackexchange-posthistory", layout: kept)
    #expect(
      found.map { String($0.prefix { $0 != ":" }) } == [
        "comments_post_id_fkey", "post_history_post_id_fkey", "post_links_post_id_fkey",
        "post_links_related_post_id_fkey", "votes_post_id_fkey",
      ])
  }
}
