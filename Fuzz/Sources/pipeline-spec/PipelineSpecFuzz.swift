// Fuzz target `pipeline-spec`: the pipeline spec parser on arbitrary bytes, through its public
// in-memory entry point `PipelineSpec(data:path:)` (what `init(contentsOf:)` calls after reading
// the file). An accepted spec is taken on to everything `sluice run` derives from it: its name,
// its policy's summary and consistency, and its run configuration (which resolves every path
// against the spec's directory).
//
// Invariants checked: a parsed spec has a non-empty dataset, input and database; its policy is
// consistent; the resolved paths are absolute (or `-` for stdin), a database file's too.
import Foundation
import FuzzSupport
@_spi(Internals) import SluiceCore
import SluicePostgreSQL
import SluiceSQLite

/// The drivers the `sluice` executable registers: a spec's database is named among them.
private let drivers = StoreDrivers([SQLiteDriver(), PostgreSQLDriver()])

private let specPaths = ["/work/fuzz/Pipelines/spec.json", "Pipelines/spec.json"]

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPipelineSpec(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
  let data = Data(fuzzBytes(start, count))
  // The spec's own path only anchors relative paths; both kinds are tried, alternating by length.
  let path = specPaths[count & 1]
  do {
    let spec = try PipelineSpec(data: data, path: path)
    fuzzCheck(
      !spec.dataset.isEmpty && !spec.input.isEmpty && spec.database?.isEmpty != true,
      "a spec with an empty dataset, input or database was accepted")
    fuzzCheck(spec.policy.inconsistency == nil, "an inconsistent policy was accepted: \(spec.policy)")
    let configuration: PipelineConfiguration
    do throws(SpecError) {
      configuration = try spec.configuration(drivers: drivers)
    } catch {
      // A database no driver takes, or whose settings do not suit it: a spec error, said.
      observe(error.message)
      return 0
    }
    let database = configuration.database
    if !database.driver.connectsToServer {
      fuzzCheck(
        database.location.hasPrefix("/"), "the database file '\(database.location)' did not resolve to an absolute path"
      )
    }
    observe(database.description)
    for resolved in [configuration.input]
      + [configuration.reportPath, configuration.junitPath, configuration.htmlPath, configuration.rejectsPath]
      .compactMap({ $0 })
    {
      fuzzCheck(
        resolved == "-" || resolved.hasPrefix("/"), "path '\(resolved)' did not resolve to an absolute path")
      observe(resolved)
    }
    observe(spec.name)
    observe(spec.policy.summary)
    observe(spec.recordPath.count)
    observe(spec.format.rawValue)
    observe(spec.onConflict.rawValue)
  } catch {
    observe(error.message)
  }
  return 0
}
