import Foundation
@_spi(Internals) import SluiceCore

/// Schema evolution around one `run` or `plan` (docs/reference/dataset-files.md#evolution): the
/// survey of the inputs of each dataset file that evolves, before the run; after a committed run,
/// the evolved file written in place of the old one, which is kept beside it.
///
/// The file must never disagree silently with the database. So before the run the evolved file
/// is written beside the old one as `<file>.evolving` (first line: the changes' migration
/// identifiers), and only after the commit does it replace the file. A run killed before its
/// commit leaves a `.evolving` file whose migrations the database does not record: the next run
/// removes it. One killed after the commit leaves one whose migrations it does record: the next
/// run finishes the rewrite before anything else (`recover`).
struct SchemaEvolutionStep {
  /// The files that change, with their changes.
  var evolved: [EvolvedDataset]

  /// The surveys of the dataset files among `datasets` (one per input) whose mode is `evolve`,
  /// or all of them with `--evolve`; each reads the inputs of its own file.
  init(inputs: [PipelineInput], datasets: [AnyDataset], forced: Bool, remote: RemoteAccess) throws {
    evolved = []
    var files: [String] = []
    for dataset in datasets {
      guard let file = dataset.files.first, !files.contains(file) else { continue }
      files.append(file)
    }
    for file in files {
      let mode = forced ? EvolutionMode.evolve : try DatasetEvolution.mode(ofFileAt: file)
      guard mode == .evolve else { continue }
      let own = zip(inputs, datasets).filter { $0.1.files.first == file }.map(\.0)
      let result = try DatasetEvolution.survey(fileAt: file, mode: mode, inputs: own, remote: remote)
      if !result.changes.isEmpty { evolved.append(result) }
    }
  }

  /// Where a file's evolved text waits for the run's commit.
  static func pendingPath(of file: String) -> String { file + ".evolving" }

  /// Writes each evolved file beside its file, before the run.
  func prepare() throws {
    for dataset in evolved {
      let identifiers = dataset.changes.map { DocumentJSON.string($0.description) }
      let text = DocumentJSON.array(identifiers).text + dataset.text
      try Self.write(text, to: Self.pendingPath(of: dataset.path))
    }
  }

  /// After the run: a committed one's files replace the old ones (kept as `.previous-…`); any
  /// other's are removed. Returns the lines to print.
  func finish(committed: Bool) throws -> [String] {
    var lines: [String] = []
    for dataset in evolved {
      let pending = Self.pendingPath(of: dataset.path)
      guard committed else {
        unlink(pending)
        continue
      }
      let kept = try Self.promote(pending, to: dataset.path, text: dataset.text)
      let name = FilePaths.lastComponent(of: dataset.path)
      lines.append(
        "sluice: \(name) evolved: \(dataset.changes.map(\.description).joined(separator: "; ")); the file was rewritten, the previous one kept as \(FilePaths.lastComponent(of: kept))"
      )
    }
    return lines
  }

  /// The lines `sluice plan` prints: what the run would change in the schema.
  var planLines: [String] {
    evolved.flatMap { dataset in
      dataset.changes.map { "sluice: plan: \(FilePaths.lastComponent(of: dataset.path)) would \($0.description)" }
    }
  }

  /// Finishes or drops what an interrupted evolving run left (see the type's note): for each
  /// dataset file with a `.evolving` file, the database says whether that run committed.
  /// Returns the lines to print.
  static func recover(files: [String], database: DatabaseTarget, busyTimeoutMilliseconds: Int32) throws -> [String] {
    var lines: [String] = []
    for file in files {
      let pending = pendingPath(of: file)
      guard let data = FileManager.default.contents(atPath: pending) else { continue }
      let text = String(decoding: data, as: UTF8.self)
      guard let newline = text.firstIndex(of: "\n") else {
        unlink(pending)
        continue
      }
      let identifiers = Self.identifiers(String(text[..<newline]))
      let document = String(text[text.index(after: newline)...])
      let store = try database.driver.openForRun(database, busyTimeoutMilliseconds: busyTimeoutMilliseconds)
      let missing = try Migrator.pending(store, identifiers.map { Migration($0, sql: "") })
      let name = FilePaths.lastComponent(of: file)
      if missing.isEmpty && !identifiers.isEmpty {
        let kept = try promote(pending, to: file, text: document)
        lines.append(
          "sluice: \(name): an earlier run committed its schema changes (\(identifiers.joined(separator: "; "))) but was stopped before rewriting the file: rewritten now, the previous one kept as \(FilePaths.lastComponent(of: kept))"
        )
      } else {
        unlink(pending)
        lines.append(
          "sluice: \(name): an earlier run that would have evolved it was stopped before its commit: its changes were never applied; dropped \(FilePaths.lastComponent(of: pending))"
        )
      }
    }
    return lines
  }

  /// The identifiers on a pending file's first line (a JSON array of strings).
  private static func identifiers(_ line: String) -> [String] {
    guard let array = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String] else { return [] }
    return array
  }

  /// The old file copied to `<file>.previous-<time>`, then the evolved text renamed over it,
  /// then the pending file removed: at every moment the file is the old one or the new one.
  private static func promote(_ pending: String, to file: String, text: String) throws -> String {
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = TimeZone(identifier: "UTC")
    formatter.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
    let stamp = formatter.string(from: Date())
    var kept = "\(file).previous-\(stamp)"
    var suffix = 2
    while FileManager.default.fileExists(atPath: kept) {
      kept = "\(file).previous-\(stamp)-\(suffix)"
      suffix += 1
    }
    do {
      try FileManager.default.copyItem(atPath: file, toPath: kept)
    } catch {
      throw OutputError(kind: .cannotCreate, message: "cannot keep the previous dataset file as \(kept): \(error)")
    }
    try write(text, to: file)
    unlink(pending)
    return kept
  }

  /// Writes `text` to `path` atomically (a temporary file in its folder, renamed over it).
  private static func write(_ text: String, to path: String) throws {
    do {
      try Data(text.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
    } catch {
      throw OutputError(kind: .cannotCreate, message: "cannot write \(path): \(error)")
    }
  }
}
