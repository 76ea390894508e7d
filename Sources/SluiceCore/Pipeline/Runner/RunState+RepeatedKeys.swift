extension RunState {
  /// The record `item` is, as the key registry names it: its input's place and its ordinal.
  func occurrence(of item: PipelineItem) -> KeyRegistry.Occurrence {
    KeyRegistry.Occurrence(
      input: Int32(clamping: inputs.last?.index ?? 0), ordinal: Int64(item.location?.ordinal ?? 0))
  }

  /// The `duplicateKey` issues of a record whose rows the decoding thread marked
  /// (`PipelineItem.repeatedKeys`): one per row whose key an earlier record of the run wrote
  /// and the run did not reject — at the key's field path, naming that record (and its input,
  /// in a run of several), never the key. Counted per table; warnings or errors as the policy's
  /// `duplicateKeys` says. Called in input order, on the loading thread.
  mutating func repeatedKeyIssues(
    of item: PipelineItem, _ rows: RecordRows, owned: KeyRegistry.OwnedTables
  ) throws -> [Issue] {
    let record = occurrence(of: item)
    let rejects = policy.duplicateKeys == .reject
    var issues: [Issue] = []
    for marked in item.repeatedKeys {
      let entry = Int(marked)
      guard let first = try keys.firstWriter(of: entry, in: rows, owned: owned, record: record),
        let table = owned.owned(rows.entries[entry].serial)
      else { continue }
      let writer: String
      if first == record {
        writer = "an earlier row of this record"
      } else {
        let input = Int(first.input)
        let name = namesInputs && inputPaths.indices.contains(input) ? " of \(inputPaths[input])" : ""
        writer = "record \(first.ordinal)\(name)"
      }
      let path = rows.path(entry, column: table.table.inheritedCount + table.keyColumns[0], in: table.table)
      issues.append(
        Issue(
          stage: .load, severity: rejects ? .error : .warning, code: .duplicateKey, location: item.location,
          path: path,
          message: "\(table.table.name): \(writer) wrote a row with this key earlier in the run"
            + (rejects ? "; rejected (duplicateKeys: reject)" : "")))
      ledger.duplicateKeys[table.table.name, default: 0] += 1
    }
    return issues
  }
}
