import Foundation
import SluicePostgreSQLTestSupport
@_spi(Internals) import SluiceTestSupport
import Testing

/// `--metrics` of a run into PostgreSQL: what `promtool check metrics` (Debian's `prometheus`,
/// through `.ci/with-monitoring`) accepts, with the rows the server was written.
@Suite(
  "Metrics of a PostgreSQL run",
  .enabled(
    if: PostgreSQLServer.isAvailable,
    "no PostgreSQL server: set SLUICE_TEST_POSTGRES_URL or run the tests through .ci/with-postgres"),
  .enabled(if: MonitoringPrograms.isAvailable, MonitoringPrograms.skipReason))
struct PostgreSQLMetricsTests {
  @Test func promtoolAcceptsTheMetricsOfARunIntoPostgreSQL() throws {
    let schema = PostgreSQLSchema()
    let scratch = try TemporaryDirectory()
    let metrics = scratch.file("fruits.prom")
    let result = try SluiceCommand.run([
      "run", "Pipelines/fruits.json", "--db", schema.url, "--db-schema", schema.name, "--report",
      scratch.file("report.json"), "--metrics", metrics,
    ])
    #expect(result.status == 0, "\(result.stderr)")
    let text = try String(contentsOfFile: metrics, encoding: .utf8)
    #expect(text.contains("sluice_rows_written_total{pipeline=\"fruits\",mode=\"run\",table=\"fruits\"} 48\n"))
    #expect(text.contains("sluice_run_success{pipeline=\"fruits\",mode=\"run\"} 1\n"))
    let checked = try MonitoringPrograms.checkMetrics(text)
    #expect(checked.status == 0)
    #expect(checked.output == "")
  }
}
