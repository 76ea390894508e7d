import Foundation
import SluicePostgreSQL
import SluicePostgreSQLTestSupport
import SluiceSQLite
@_spi(Internals) import SluiceTestSupport
import Testing

@_spi(Internals) @testable import SluiceCore

/// The history nights of `HistoryTableTests` (SQLite) on PostgreSQL: the versions made in bulk by
/// the same two statements answer "as of" each night with that night's dump.
@Suite(
  "PostgreSQL: history tables (SCD type 2)",
  .enabled(if: PostgreSQLServer.isAvailable, "no PostgreSQL server: set SLUICE_TEST_POSTGRES_URL"))
struct PostgreSQLHistoryTableTests {
  let nights = HistoryNights()

  @Test func thirtyNightlySnapshotsAnswerAsOfEachNightWithThatNightsDump() throws {
    let schema = PostgreSQLSchema()
    try HistoryStoreChecks(nights: nights, schema: schema).checkEveryNightAndAReImport()
  }
}

/// The same on a Citus cluster (`.ci/with-citus`), into tables laid out as
/// `sluice schema --dialect citus` prints them: members and their versions distributed by `id`,
/// colocated, so both statements run on each shard.
@Suite(
  "Citus: history tables (SCD type 2)", .serialized, .enabled(if: CitusCluster.isAvailable, CitusCluster.skipReason))
struct CitusHistoryTableTests {
  let nights = HistoryNights()

  @Test func thirtyNightlySnapshotsAnswerAsOfEachNightOnDistributedTables() throws {
    let schema = CitusCluster.schema()
    let directory = try TemporaryDirectory()
    let dataset = try HistoryNights.dataset(in: directory)
    var script = dataset.schema.migrations(dialect: PostgreSQLDialect()).map { $0.sql + ";" }
    script += CitusLayout().statements(
      for: dataset.schema, named: "members", among: [dataset.schema], dialect: PostgreSQLDialect())
    let applied = try CitusCluster.psql(script.joined(separator: "\n"), in: schema)
    try #require(applied.status == 0, "\(applied.stderr)")
    let layout = try CitusCluster.layout(
      of: ["members", "sluice_history_members", "member_addresses", "sluice_history_member_addresses"], in: schema)
    #expect(layout["sluice_history_members"] == "distributed by 'id' colocated with members", "\(layout)")
    #expect(layout["sluice_history_member_addresses"] == "distributed by 'id' colocated with members", "\(layout)")
    try HistoryStoreChecks(nights: nights, schema: schema).checkEveryNightAndAReImport()
  }
}

/// What both suites check in a schema of their own.
struct HistoryStoreChecks {
  let nights: HistoryNights
  let schema: PostgreSQLSchema

  func checkEveryNightAndAReImport() throws {
    let directory = try TemporaryDirectory()
    let dataset = try HistoryNights.dataset(in: directory)
    let starts = try nights.loadEveryNight(
      dataset, in: directory, aim: schema.aim, open: { try schema.connect() })
    let store = try schema.connect()
    for n in [12] + Array(nights.nights.indices) {
      let query = HistoryNights.asOf("'\(starts[n])'::timestamptz")
      let expected = nights.rows(n)
      #expect(try store.lines(query.members, columns: 3) == expected.members, "night \(n)")
      #expect(try store.lines(query.addresses, columns: 3) == expected.addresses, "night \(n)")
    }
    #expect(
      try store.lines(
        "SELECT count(*) FROM sluice_history_members h JOIN sluice_runs r ON r.run_id = h.sluice_run_id AND r.started_at = h.sluice_valid_from",
        columns: 1) == store.lines("SELECT count(*) FROM sluice_history_members", columns: 1))
    let versions =
      "SELECT (SELECT count(*) FROM sluice_history_members), (SELECT count(*) FROM sluice_history_member_addresses)"
    let before = try store.lines(versions, columns: 2)
    let last = nights.nights.count - 1
    let again = try dataset.run(nights.configuration(last, in: directory, aim: schema.aim))
    #expect(again.status == .succeeded, "\(again.failure?.message ?? "")")
    #expect(try store.lines(versions, columns: 2) == before)
  }
}
