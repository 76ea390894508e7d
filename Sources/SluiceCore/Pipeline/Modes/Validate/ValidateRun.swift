/// A validate run: every input through every stage but the writes, with what it checks besides
/// the contract — references and keys against a database it only reads (`--db`), and the
/// input's drift from a saved inspection (`--baseline`). It writes nothing, and opens no database
/// but that read-only one.
struct ValidateRun: RunStrategy {
  let services: RunServices
  let options: Execution.ValidateOptions
  /// What the checks against the database looked up (`validate --db`), once they have.
  private var lookups: LoadTotals?
  /// How the input differs from the baseline (`--baseline`), once compared.
  private var baselineChanges: [BaselineChange]?

  init(services: RunServices, options: Execution.ValidateOptions) {
    self.services = services
    self.options = options
  }

  private var configuration: PipelineConfiguration { services.configuration }
  private var inputs: [PipelineRunner.Source] { services.inputs }

  mutating func execute(
    outputs: RunOutputs, state: inout RunState, opened: inout PipelineRunner.Opened
  ) throws -> RunOutcome {
    // `validate --db`: one read-only connection for the run's checks, never `opened.store` (a
    // failed run records itself there, and this one may not write).
    let check = try options.checksDatabase ? openForChecks() : nil
    for (index, source) in inputs.enumerated() where !services.missingInputs.contains(index) {
      try services.read(source, index: index, state: &state) { reader, loop, state in
        try loop.validate(reader, check: check, state: &state)
        return [:]
      }
    }
    if let check {
      var totals = LoadTotals()
      totals.add(check.lookups)
      lookups = totals
    }
    if let baseline = options.baselinePath {
      baselineChanges = try compare(with: baseline) + Self.newEnumValues(state.ledger.drift.summary)
    }
    let breaking = baselineChanges?.filter { $0.impact == .breaking } ?? []
    let drift =
      breaking.isEmpty
      ? nil
      : "the input drifted from the baseline in \(breaking.count) breaking way(s): \(breaking.prefix(3).map(\.description).joined(separator: "; "))\(breaking.count > 3 ? "; …" : "")"
    do {
      try state.finishDryRun(failsOnWarnings: options.failsOnWarnings)
    } catch var abort as RunAbort {
      if let drift { abort.failure.message += "; \(drift)" }
      throw abort
    }
    if let drift { throw RunAbort(failure: .init(kind: .data, message: drift)) }
    return .checked
  }

  func complete(_ report: inout RunReport) {
    lookups?.fill(&report)
    report.baselineChanges = baselineChanges
  }

  /// The input, inspected whole in its format and record path, against the baseline at `path`:
  /// by the configuration's `BaselineComparison` (the inspector is SluiceInspect's, not the
  /// engine's).
  func compare(with path: String) throws -> [BaselineChange] {
    guard let comparison = options.baselineComparison else {
      throw RunAbort(
        failure: .init(
          kind: .configuration,
          message:
            "a baseline needs a comparison to find the changes: set the configuration's baselineComparison (SluiceInspect's .inspection)"
        ))
    }
    do {
      return try comparison.changes(path, inputs[0].input)
    } catch let failure as BaselineComparison.Failure {
      throw RunAbort(failure: .init(kind: .data, message: failure.message))
    }
  }

  /// A value the dataset's enum does not list, met by the run's decoder or mapper, is breaking
  /// drift whatever the baseline says (an inspection lists no values; a contract's `enum` is the
  /// dataset's): one change per field path, never the value itself.
  static func newEnumValues(_ drift: DriftSummary) -> [BaselineChange] {
    var byPath: [String: (values: Int, records: Int, first: Int)] = [:]
    for entry in drift.unsupportedEnumValues {
      var seen = byPath[entry.path] ?? (0, 0, entry.firstRecord)
      seen.values += 1
      seen.records += entry.count
      seen.first = min(seen.first, entry.firstRecord)
      byPath[entry.path] = seen
    }
    return byPath.sorted { $0.key < $1.key }.map { path, seen in
      BaselineChange(
        impact: .breaking, kind: "newEnumValue", path: path,
        message:
          "\(seen.values) value(s) the dataset's enum does not list, in \(seen.records) record(s) (first: record \(seen.first))"
      )
    }
  }

  /// The reference checks of `validate --db`, over a connection that only reads.
  func openForChecks() throws -> ReferenceCheck {
    let store: any Store
    do {
      store = try configuration.database.driver.openForReading(
        configuration.database, busyTimeoutMilliseconds: configuration.busyTimeoutMilliseconds)
    } catch let error as StoreOpenError {
      let kind: RunReport.Failure.Kind = error.kind == .missing ? .inputMissing : .io
      throw RunAbort(failure: .init(kind: kind, message: error.message))
    }
    return try ReferenceCheck(
      store: store, schema: services.schema, conflict: configuration.conflict, limits: configuration.keyRegistryLimits,
      makeSpill: configuration.keySpill, budget: configuration.memoryBudget)
  }
}
