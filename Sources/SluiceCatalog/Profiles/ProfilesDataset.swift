@_spi(Internals) import SluiceCore

/// The full profile export → `profiles`: each record is the whole profile, so a re-imported
/// profile without an introduction loses the one it had.
public struct ProfilesDataset: Dataset {
  public init() {}

  public var name: String { "profiles" }
  public var summary: String { "whole profiles → profiles" }

  public var schema: Schema { Self.schema }
  static let schema = Schema([Profiles.profiles])

  public var rules: [ValidationRule] { [Profiles.idNotBlank, Profiles.nicknameNotBlank] }

  public func validate(_ profile: ProfileDTO, into validation: inout Validation) {
    validation.checkNotBlank(Profiles.idNotBlank, profile.id, at: "id")
    validation.checkNotBlank(Profiles.nicknameNotBlank, profile.nickname, at: "nickname")
  }

  public func map(_ profile: ProfileDTO, context _: inout MappingContext) throws(MappingError) -> Profile {
    Profile(id: profile.id, nickname: profile.nickname, introduction: profile.introduction)
  }

  public func rows(for profile: Profile, into rows: inout RecordRows) {
    rows.add(Profiles.profiles, profile.id, profile.nickname, profile.introduction)
  }
}
