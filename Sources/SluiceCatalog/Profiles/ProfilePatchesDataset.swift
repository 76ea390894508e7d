@_spi(Internals) import SluiceCore

/// Profile patches (seed 002, section 4) → `profiles`: each record updates exactly the columns
/// it carries. A missing field leaves its column as it is, `null` clears it, a value sets it.
///
/// A patch never inserts: one naming a profile that does not exist is an `orphanReference` at
/// `id`. `null` for `nickname`, which a profile must have, is a `nullValue` issue at `nickname`.
/// A patch that changes nothing writes nothing, so applying a file twice counts no rows the
/// second time.
public struct ProfilePatchesDataset: Dataset {
  public init() {}

  public var name: String { "profile-patches" }
  public var summary: String {
    "profile patches → profiles (missing: unchanged, null: cleared; an unknown profile is an orphan)"
  }

  public var schema: Schema { ProfilesDataset.schema }

  public var rules: [ValidationRule] { [Profiles.idNotBlank, Profiles.nicknameNotBlank] }

  /// A patch never inserts.
  public var recordConstraints: [FieldConstraint] {
    [.unexpressed("id names a row of profiles, which must exist (a patch never inserts one)", at: "id")]
  }

  public func validate(_ patch: ProfilePatchDTO, into validation: inout Validation) {
    validation.checkNotBlank(Profiles.idNotBlank, patch.id, at: "id")
    if case .set(let nickname) = patch.nickname {
      validation.checkNotBlank(Profiles.nicknameNotBlank, nickname, at: "nickname")
    }
  }

  public func map(_ patch: ProfilePatchDTO, context _: inout MappingContext) throws(MappingError) -> ProfilePatch {
    ProfilePatch(id: patch.id, nickname: patch.nickname, introduction: patch.introduction)
  }

  public func rows(for patch: ProfilePatch, into rows: inout RecordRows) {
    rows.patch(Profiles.profiles, patch.id, patch.nickname, patch.introduction)
  }
}
