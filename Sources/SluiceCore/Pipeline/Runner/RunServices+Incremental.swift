import Foundation

/// Incremental loads: an input whose content the database already holds is not read again.
///
/// The input ledger (`sluice_inputs`) records every input a committed run read, with the
/// SHA-256 of its bytes. Before an incremental input is read, the run decides, exactly, inside
/// its own transaction, which excludes every other incremental or snapshot run (SQLite's write
/// lock; PostgreSQL's `Store.lockAgainstConcurrentRuns`), so two runs never both load a file:
///
/// 1. The very file the ledger last recorded under this path — same device, inode, size,
///    modification and change times (`FileFingerprint`) — is skipped without being read; with
///    `incremental.verifiesContent` (`--verify-content`), only once its SHA-256 is the one recorded, for a
///    file rewritten in place through a shared writable mapping keeps its times on some file
///    systems (and within their granularity on all), so its fingerprint says nothing.
/// 2. Otherwise its first 64 KiB are hashed. Only when some input loaded as the same dataset,
///    in the ledger or earlier in this run, has its size and those first bytes is the whole file
///    hashed; if that content was loaded, the file is skipped, whatever its name.
/// 3. A path the ledger knows with other content is refused (exit 65, naming the run that
///    loaded it) unless the run reloads changed inputs (`--reload-changed`).
/// 4. Anything else is new, and loads (hashed as it is read).
///
/// So a file is read in full to decide only when it is probably a copy of one already loaded,
/// and then it is not read again, unless it differs after all (the same size and first 64 KiB).
extension RunServices {
  /// Decides whether the incremental input at `index` is held already: if so records the skip
  /// and returns true; false when it must be loaded. Throws the refusal of a changed input.
  func skipIfHeld(_ source: Source, index: Int, store: some Store, state: inout RunState) throws -> Bool {
    if RemoteURL.isURL(source.input.location) {
      return try skipIfHeldRemotely(source, index: index, store: store, state: &state)
    }
    let path = source.input.path
    guard path != "-", let fingerprint = FileFingerprint(path: path) else { return false }
    let dataset = source.dataset.name
    let hasLedger = try store.columns(of: InputLedger.table) != nil
    let known = hasLedger ? try InputLedger.latest(path: path, dataset: dataset, in: store) : nil

    func skip(_ reason: RunReport.SkippedInput.Reason, sha256: String, head: String, run: Int64?, as other: String?)
      -> Bool
    {
      state.skip(
        inputAt: index, .init(reason: reason, loadedByRunId: run, loadedAs: other),
        entry: InputLedgerEntry(
          position: index, path: path, dataset: dataset, status: .skipped, size: fingerprint.size,
          modifiedAt: fingerprint.modified, fingerprint: fingerprint.text, sha256: sha256, headSHA256: head,
          sameAsRun: run))
      return true
    }

    if let known, known.fingerprint == fingerprint.text {
      guard configuration.incremental.verifiesContent else {
        return skip(.unchanged, sha256: known.sha256, head: known.headSHA256, run: known.loadedBy, as: nil)
      }
      let digest = try hashing(path) { try InputDigest.of(file: path) }
      if digest.sha256 == known.sha256, digest.bytes == fingerprint.size {
        return skip(.unchanged, sha256: known.sha256, head: known.headSHA256, run: known.loadedBy, as: nil)
      }
    }
    let head = try hashing(path) { try InputDigest.head(of: path) }
    let thisRun =
      state.loadedContent[.init(dataset: dataset, size: fingerprint.size, headSHA256: head)] ?? []
    let inLedger =
      try hasLedger
      && InputLedger.hasCandidates(size: fingerprint.size, headSHA256: head, dataset: dataset, in: store)
    if !thisRun.isEmpty || inLedger {
      let digest = try hashing(path) { try InputDigest.of(file: path) }
      if digest.bytes == fingerprint.size, FileFingerprint(path: path) == fingerprint {
        if let earlier = thisRun.first(where: { $0.sha256 == digest.sha256 }) {
          return skip(.sameContent, sha256: digest.sha256, head: head, run: nil, as: earlier.path)
        }
        if inLedger,
          let loaded = try InputLedger.loaded(
            sha256: digest.sha256, size: fingerprint.size, dataset: dataset, in: store)
        {
          return skip(.sameContent, sha256: digest.sha256, head: head, run: loaded.runID, as: loaded.path)
        }
      }
    }
    if let known {
      guard configuration.incremental.reloadsChanged else {
        throw RunAbort(
          failure: .init(
            kind: .data,
            message:
              "\(path) was loaded by run \(known.loadedBy) with other content (its SHA-256 then was \(known.sha256.prefix(16))…); an incremental run does not load a changed file again unless --reload-changed is given; nothing was written"
          ))
      }
      state.reload(inputAt: index, changedSince: known.loadedBy)
    }
    return false
  }

  /// A remote input is held when the ledger's latest row under its URL has the object's ETag
  /// and size (its `Last-Modified` time, from a server that sends no ETag) — the listing's, or a
  /// `HEAD`'s — and is skipped without a byte of it downloaded.
  /// Another ETag or size under a URL the ledger knows is other content: refused unless the run
  /// reloads changed inputs (deciding by the bytes would download the object twice). A URL the
  /// ledger does not know loads.
  private func skipIfHeldRemotely(_ source: Source, index: Int, store: some Store, state: inout RunState) throws
    -> Bool
  {
    let path = source.input.path
    let dataset = source.dataset.name
    guard try store.columns(of: InputLedger.table) != nil,
      let known = try InputLedger.latest(path: path, dataset: dataset, in: store)
    else { return false }
    let object =
      try source.input.remoteObject
      ?? hashing(path) {
        try configuration.remote.transport(for: source.input.location).head(
          source.input.location, options: configuration.remote.options)
      }
    let held = RemoteObject(url: path, etag: known.etag, size: known.size, lastModified: known.lastModified)
    if object.isSameObject(as: held) {
      state.skip(
        inputAt: index, .init(reason: .unchanged, loadedByRunId: known.loadedBy, loadedAs: nil),
        entry: InputLedgerEntry(
          position: index, path: path, dataset: dataset, status: .skipped, size: object.size, modifiedAt: nil,
          fingerprint: nil, sha256: known.sha256, headSHA256: known.headSHA256, sameAsRun: known.loadedBy,
          etag: object.etag, lastModified: object.lastModified))
      return true
    }
    guard configuration.incremental.reloadsChanged else {
      throw RunAbort(
        failure: .init(
          kind: .data,
          message:
            "\(path) was loaded by run \(known.loadedBy) as another object (ETag \(known.etag ?? "none"), \(known.size.map { "\($0) bytes" } ?? "size unknown"); now ETag \(object.etag ?? "none"), \(object.size.map { "\($0) bytes" } ?? "size unknown")); an incremental run does not load a changed object again unless --reload-changed is given; nothing was written"
        ))
    }
    state.reload(inputAt: index, changedSince: known.loadedBy)
    return false
  }

  /// An input that cannot be read to decide about it is missing or unreadable (exit 66).
  private func hashing<T>(_ path: String, _ body: () throws -> T) throws -> T {
    do {
      return try body()
    } catch let error as InputError {
      throw RunAbort(failure: .init(kind: error.failureKind(opening: true), message: error.description))
    }
  }
}
