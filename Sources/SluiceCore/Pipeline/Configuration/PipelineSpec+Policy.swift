// The spec's `policy`: a preset's name, or a preset with overrides, checked.
extension PipelineSpec {
  static func policy(_ value: SpecDocument.PolicyValue?, path: String) throws(SpecError) -> Policy {
    guard let value else { return .strict }
    let name: String
    let overrides: SpecDocument.PolicyOverrides?
    switch value {
    case .preset(let text):
      name = text
      overrides = nil
    case .detailed(let detailed):
      name = detailed.preset
      overrides = detailed
    }
    guard let preset = Policy.Preset(rawValue: name) else {
      throw SpecError(path: path, message: "'policy' is '\(name)', expected one of: strict, lenient")
    }
    var policy = Policy(preset: preset)
    if let overrides {
      policy.maxRejects = overrides.maxRejects
      policy.maxRejectRate = overrides.maxRejectRate
      policy.legacyScalars = overrides.legacyScalars ?? false
      if let unknown = overrides.unknownFields {
        guard let action = Policy.UnknownFieldAction(rawValue: unknown) else {
          throw SpecError(
            path: path, message: "'policy.unknownFields' is '\(unknown)', expected one of: ignore, warn, reject")
        }
        policy.unknownFields = action
      }
      if let dates = overrides.dates {
        policy.dateFormats = []
        for (index, name) in dates.enumerated() {
          do {
            policy.dateFormats.append(try DateFormat(specName: name))
          } catch {
            throw SpecError(path: path, message: "'policy.dates[\(index)]': \(error)")
          }
        }
      }
      policy.allowsNothingLoaded = overrides.allowNothingLoaded ?? false
      policy.lenientArrays = overrides.lenientArrays ?? false
      if let duplicates = overrides.duplicateKeys {
        guard let action = Policy.DuplicateKeyAction(rawValue: duplicates) else {
          throw SpecError(
            path: path, message: "'policy.duplicateKeys' is '\(duplicates)', expected one of: warn, reject, ignore")
        }
        policy.duplicateKeys = action
      }
    }
    if let problem = policy.inconsistency {
      throw SpecError(path: path, message: "'policy': \(problem)")
    }
    return policy
  }
}
