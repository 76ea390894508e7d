/// How a run treats invalid records, unknown fields, legacy scalars and dates.
///
/// Two presets (docs/design.md, "Policies") with per-pipeline overrides:
///
/// | knob | strict | lenient |
/// |---|---|---|
/// | invalid record | fail the run, roll back | skip and report |
/// | error budget | 0 | `maxRejects` and/or `maxRejectRate`; exceeded → fail, roll back |
/// | unknown fields | warn (or reject) | warn |
/// | `legacyScalars` | off | opt-in |
/// | dates | one format | a list of accepted formats |
/// | `lenientArrays` | off | opt-in: an unknown element of a polymorphic list is dropped, reported |
/// | `duplicateKeys` | warn (or reject) | warn (or reject) |
public struct Policy: Sendable, Hashable {
  public enum Preset: String, Sendable, Hashable, Codable, CaseIterable {
    case strict, lenient
  }

  public enum InvalidRecordAction: String, Sendable, Hashable, Codable {
    case fail, skip
  }

  public enum UnknownFieldAction: String, Sendable, Hashable, Codable, CaseIterable {
    /// Not looked for.
    case ignore
    /// Reported as warnings; the record is kept.
    case warn
    /// Reported as errors; the record is rejected.
    case reject
  }

  /// What a natural key written twice in one run does (`KeyRegistry` says which keys count).
  public enum DuplicateKeyAction: String, Sendable, Hashable, Codable, CaseIterable {
    /// A warning at the key's path; the later record is loaded by the conflict policy (under
    /// `upsert` and `replace` it wins).
    case warn
    /// An error: the later record is rejected (a strict run fails, a lenient one skips it).
    case reject
    /// No check: for inputs whose keys are known to be unique, the registry's cost saved (a few
    /// percent of a 1M-order import's CPU); a repeated key then collapses in silence.
    case ignore
  }

  public var preset: Preset
  public var invalidRecord: InvalidRecordAction
  /// The most records a lenient run may reject before it fails and rolls back.
  public var maxRejects: Int?
  /// The largest fraction (0…1) of records read that a lenient run may reject; checked at the end.
  public var maxRejectRate: Double?
  public var unknownFields: UnknownFieldAction
  /// Lenient only: `"12"` → 12, `"true"` → true, `12` → `"12"`, each conversion counted.
  public var legacyScalars: Bool
  /// Accepted date formats, in order; strict allows exactly one.
  public var dateFormats: [DateFormat]
  /// A lenient run that rejects every record of a non-empty input succeeds instead of failing
  /// (for inputs that are expected to be all bad, such as a contract's negative samples).
  public var allowsNothingLoaded: Bool
  /// Lenient only: an element of a polymorphic list (attachments, reactions) that the dataset
  /// does not know is dropped and reported as a warning at its path; the record is kept.
  public var lenientArrays: Bool
  /// A natural key that an earlier record of the run wrote: a warning (the default) or an error.
  public var duplicateKeys: DuplicateKeyAction

  public init(preset: Preset) {
    self.preset = preset
    invalidRecord = preset == .strict ? .fail : .skip
    maxRejects = nil
    maxRejectRate = nil
    unknownFields = .warn
    legacyScalars = false
    dateFormats = [.iso8601]
    allowsNothingLoaded = false
    lenientArrays = false
    duplicateKeys = .warn
  }

  public static let strict = Policy(preset: .strict)
  public static let lenient = Policy(preset: .lenient)

  /// Why this combination of knobs is not allowed, or nil when it is.
  public var inconsistency: String? {
    guard preset == .strict else {
      if let maxRejects, maxRejects < 0 { return "maxRejects must be 0 or more" }
      if let maxRejectRate, !(0...1).contains(maxRejectRate) { return "maxRejectRate must be between 0 and 1" }
      if dateFormats.isEmpty { return "dates must list at least one format" }
      return nil
    }
    if legacyScalars { return "legacyScalars needs the lenient preset" }
    if lenientArrays { return "lenientArrays needs the lenient preset" }
    if allowsNothingLoaded {
      return "allowNothingLoaded needs the lenient preset (a strict run fails at its first rejected record)"
    }
    if maxRejects != nil || maxRejectRate != nil {
      return "the strict preset has an error budget of 0; maxRejects and maxRejectRate need the lenient preset"
    }
    if dateFormats.count != 1 { return "the strict preset takes exactly one date format" }
    return nil
  }

  /// One line for reports: `lenient (maxRejects 100, legacyScalars)`.
  public var summary: String {
    var knobs: [String] = []
    if let maxRejects { knobs.append("maxRejects \(maxRejects)") }
    if let maxRejectRate { knobs.append("maxRejectRate \(maxRejectRate)") }
    if unknownFields != .warn { knobs.append("unknownFields \(unknownFields.rawValue)") }
    if legacyScalars { knobs.append("legacyScalars") }
    if allowsNothingLoaded { knobs.append("allowNothingLoaded") }
    if lenientArrays { knobs.append("lenientArrays") }
    if duplicateKeys != .warn { knobs.append("duplicateKeys \(duplicateKeys.rawValue)") }
    if dateFormats != [.iso8601] { knobs.append("dates \(dateFormats.map(\.specName).joined(separator: " | "))") }
    return knobs.isEmpty ? preset.rawValue : "\(preset.rawValue) (\(knobs.joined(separator: ", ")))"
  }
}
