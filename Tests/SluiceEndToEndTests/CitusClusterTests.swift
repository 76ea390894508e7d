import Foundation
import SluiceCatalog
@_spi(Internals) import SluiceCore
import SluicePostgreSQL
import SluicePostgreSQLTestSupport
@_spi(Internals) import SluiceTestSupport
import Testing

/// In CI the Citus tests must run: `.ci/run` runs the tests inside `.ci/with-citus`, and a missing
/// URL there would otherwise turn every Citus test into a quiet skip.
@Suite("Citus in CI")
struct CitusInCITests {
  @Test(
    .enabled(
      if: ProcessInfo.processInfo.environment["CI"] == "true",
      "only in CI (CI=true), where .ci/run runs the tests through .ci/with-citus"))
  func theTestsHaveACitusClusterInCI() {
    #expect(
      CitusCluster.isAvailable, "CI=true but SLUICE_TEST_CITUS_URL is not set: the Citus tests would be skipped")
  }
}

/// `sluice schema DATASET --dialect citus` on a real Citus cluster (`.ci/with-citus`: a
/// coordinator and two workers): what it prints applies with `psql -v ON_ERROR_STOP=1`, every
/// table ends distributed or a reference table, as the rules derive them, with shards on both
/// workers.
@Suite("Citus layouts on a real cluster", .serialized, .enabled(if: CitusCluster.isAvailable, CitusCluster.skipReason))
struct CitusClusterLayoutTests {
  /// The layouts the README's table states, as `pg_dist_partition` shows them. Citus puts tables
  /// distributed by columns of one type in one colocation group by default: comments share posts'
  /// group, though no foreign key joins them any more.
  static let expected: [String: [String: String]] = [
    "fruits": [
      "fruits": "distributed by 'fruit_id'", "recipes": "distributed by 'fruit_id' colocated with fruits",
    ],
    "orders": [
      "order_statuses": "reference", "customers": "reference", "orders": "distributed by 'order_id'",
      "order_items": "distributed by 'order_id' colocated with orders",
    ],
    "alerts": ["devices": "reference", "alerts": "distributed by 'alert_id'"],
    "devices": ["devices": "reference"],
    "profiles": ["profiles": "distributed by 'profile_id'"],
    "messages": [
      "message_kinds": "reference", "conversations": "reference", "senders": "reference",
      "messages": "distributed by 'message_id'",
      "text_messages": "distributed by 'message_id' colocated with messages",
      "message_attachments": "distributed by 'message_id' colocated with messages",
    ],
    "stackexchange-posthistory": [
      "users": "reference", "tags": "reference", "post_types": "reference", "vote_types": "reference",
      "posts": "distributed by 'post_id'", "post_tags": "distributed by 'post_id' colocated with posts",
      "comments": "distributed by 'comment_id' colocated with posts",
      "post_links": "distributed by 'post_link_id' colocated with posts",
    ],
  ]

  @Test(arguments: try PostgreSQLSchemaAndRunsTests.catalogDatasets())
  func theCitusSchemaOfEveryDatasetAppliesOnTheCluster(dataset: String) throws {
    let printed = try SluiceCommand.run(["schema", dataset, "--dialect", "citus"])
    try #require(printed.status == 0, "\(printed.stderr)")
    let schema = CitusCluster.schema()
    let applied = try CitusCluster.psql(printed.stdout, in: schema)
    #expect(applied.status == 0, "\(dataset): \(applied.stderr)")

    // Every table of the dataset is laid out: none is left a plain table on the coordinator.
    let tables = Catalog.dataset(named: dataset)?.schema.tableNames ?? []
    #expect(!tables.isEmpty)
    let layout = try CitusCluster.layout(of: tables, in: schema)
    #expect(layout.count == tables.count, "\(layout)")
    #expect(layout.values.allSatisfy { $0 == "reference" || $0.hasPrefix("distributed by ") }, "\(layout)")
    for (table, placement) in Self.expected[dataset] ?? [:] {
      #expect(layout[table] == placement, "\(dataset).\(table)")
    }
  }

  /// The orders layout of the README once failed at `order_items` (creating the reference tables
  /// turned the plain tables pointing at them into Citus local tables); the printed one goes
  /// through, and the shards of a distributed table sit on both workers.
  @Test func ordersAreLaidOutAndTheirShardsSitOnBothWorkers() throws {
    let printed = try SluiceCommand.run(["schema", "orders", "--dialect", "citus"])
    let schema = CitusCluster.schema()
    let applied = try CitusCluster.psql(printed.stdout, in: schema)
    try #require(applied.status == 0, "\(applied.stderr)")
    let store = try CitusCluster.connect()
    let nodes = try store.scalarInt(
      """
      SELECT count(DISTINCT nodeport) FROM citus_shards
      WHERE table_name = '"\(schema.name)".orders'::regclass
      """)
    #expect(nodes == 2)
  }
}
