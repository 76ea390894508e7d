@_spi(Internals) import SluiceCore

/// The `profiles` table (seed 002, section 4), written by two feeds: a full import
/// (`ProfilesDataset`), where every record is the whole profile, and a patch import
/// (`ProfilePatchesDataset`), where a record carries only what changed — a missing field leaves
/// its column unchanged, `null` clears it, a value sets it.
public enum Profiles {
  public static let profiles = Table(
    "profiles", key: ["profile_id"],
    columns: [
      .text("profile_id", field: "id", checks: [.notEmpty]),
      .text("nickname", checks: [.notEmpty]),
      .text("introduction", nullable: true),
    ])

  static let idNotBlank = ValidationRule(
    "profile ids are not blank", message: "must not be blank", constraints: [.notBlank(at: "id")])
  static let nicknameNotBlank = ValidationRule(
    "nicknames are not blank", message: "must not be blank", constraints: [.notBlank(at: "nickname")])
}

/// A whole profile, as the full export carries it. A missing or `null` introduction is none.
public struct ProfileDTO: Decodable, Sendable {
  public let id: String
  public let nickname: String
  public let introduction: String?
}

/// A change to a profile (seed 002's `ProfilePatchDTO`): `id` names the profile; each other
/// field is missing (unchanged), `null` (cleared) or a value (set).
public struct ProfilePatchDTO: Decodable, Sendable {
  public let id: String
  public let nickname: Patch<String>
  public let introduction: Patch<String>
}

/// A profile in the domain.
public struct Profile: Sendable, Hashable {
  public var id: String
  public var nickname: String
  public var introduction: String?
}

/// A change to a profile in the domain.
public struct ProfilePatch: Sendable, Hashable {
  public var id: String
  public var nickname: Patch<String>
  public var introduction: Patch<String>
}
