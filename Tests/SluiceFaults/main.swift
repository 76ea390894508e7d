// `sluice-faults`: the `sluice` command line with one option more, `run --test-kill-at POINT`,
// for the tests that kill a run where it must survive a crash (checkpointed, staged and
// parallel runs, `sluice recover`). The shipped `sluice` knows no such option.
//
// POINT is one of `ChunkPoint`'s or `LaneCommitPoint`'s names:
// - `chunk-0` (a staged run made its side database), `chunk-N` (just after chunk N committed),
//   `committing-N` (chunk N's checkpoint written, before its commit), `resumed`, `publish`,
//   `finished` (committed, before the outputs are renamed into place);
// - `late-chunk-N`: waits 2 s before chunk N's commit, then commits and dies — a run killed with
//   its COMMIT on the wire, which the server carries out after the process is gone;
// - `prepared-K`, `decided`, `committed-K`: points of a `--jobs` run's two-phase commit.
// The process dies there with SIGKILL, as `kill -9` would.
import Foundation
import SluiceCLI
import SluiceCatalog
@_spi(Internals) import SluiceCore
import SluicePostgreSQL
import SluiceRemote
import SluiceSQLite

let killAt = ExtraRunOptions(names: ["test-kill-at"]) { values, configuration in
  guard let point = values["test-kill-at"] else { return }
  configuration.faults.laneCommit = { reached, _ in
    if reached.description == point { kill(getpid(), SIGKILL) }
  }
  configuration.faults.chunkCommit = { reached in
    if case .committing(let chunk) = reached, point == "late-chunk-\(chunk)" { usleep(2_000_000) }
    if reached.description == point || "late-\(reached)" == point && reached.description.hasPrefix("chunk-") {
      kill(getpid(), SIGKILL)
    }
  }
}

Sluice.main(
  datasets: Catalog.datasets, drivers: [SQLiteDriver(), PostgreSQLDriver()], remote: [CurlRemoteInputs()],
  extraRunOptions: killAt)
