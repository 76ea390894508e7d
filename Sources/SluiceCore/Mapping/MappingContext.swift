/// What the map stage knows about a record besides its DTO: where it came from, and the
/// policy's say on the elements of a polymorphic list.
///
/// A dataset whose mapping needs it implements `map(_:context:)`: an export whose conversation
/// is the folder a day file sits in (Slack) reads `folder`; one whose records sit inside an
/// enclosing object (a Telegram chat's messages) reads that object's scalar fields in `fields`;
/// one whose lists hold kinds it may not know calls `drop(at:code:_:)` for each.
public struct MappingContext: Sendable {
  /// Scalar fields of the objects that enclose the record, as text, innermost winning: for
  /// records at `chats.list[].messages`, the chat's `id`, `name` and `type` (those written
  /// before its records; a stream cannot look ahead — those after them reach
  /// `Dataset.rowsAfterRecords`, with these, at the input's end). An object member's own
  /// scalars are kept one level deep as `key.member` (a DiscordChatExporter file's
  /// `channel.id`, `guild.name`).
  public let fields: [String: String]
  /// The input file the record was read from, as the run names it.
  public let inputPath: String
  /// The input's name (`PipelineInput.name`: its path below the spec's folder, else its path):
  /// with `position`, a key for records without an id that no other input's records share —
  /// positions restart at 0 in every input, so a key of position alone would let a second input
  /// replace the first's rows.
  public let inputName: String
  /// The record's 0-based place in its array (JSON), or among its input's records: a stable
  /// key for exports whose records have no id of their own.
  public let position: Int
  /// The name of the folder the input file sits in (`general` for `general/2016-01-14.json`).
  public var folder: String {
    let parent = inputPath.split(separator: "/", omittingEmptySubsequences: true).dropLast().last
    return parent.map(String.init) ?? ""
  }
  /// The policy's `lenientArrays`: `drop` drops instead of rejecting the record.
  public let lenientArrays: Bool
  /// The elements dropped so far, with their paths.
  public private(set) var drops: [MappingError] = []
  /// What the dataset noted about a record it still maps, with their paths.
  public private(set) var notes: [MappingError] = []
  /// The document's members that hold no text (null, an object, an unpaired surrogate), by
  /// name: at the input's end, for `Dataset.rowsAfterRecords`; read them with `text(of:)`.
  public let unreadableFields: [String: UnreadableField]
  /// The fields `text(of:)` was asked for that hold no text: each is an `invalidValue` issue
  /// at the field's name and place, and rejects what the dataset made of the document.
  public private(set) var invalidFields: [(name: String, field: UnreadableField)] = []

  public init(
    fields: [String: String] = [:], inputPath: String = "", inputName: String? = nil, position: Int = 0,
    lenientArrays: Bool = false, unreadableFields: [String: UnreadableField] = [:]
  ) {
    self.fields = fields
    self.unreadableFields = unreadableFields
    self.inputPath = inputPath
    self.inputName = inputName ?? inputPath
    self.position = position
    self.lenientArrays = lenientArrays
  }

  /// An element of a polymorphic list that the dataset does not know (`attachments[2].type`).
  /// Under the strict default it rejects the record, with this code at this path; with
  /// `lenientArrays` the caller leaves the element out, and the engine reports the drop as a
  /// warning and counts it.
  public mutating func drop(
    at path: String, code: IssueCode = .unsupportedEnumValue, _ message: String, value: String? = nil
  ) throws(MappingError) {
    let error = MappingError(code: code, path: path, message: message, value: value)
    guard lenientArrays else { throw error }
    drops.append(error)
  }

  /// Something a person should know about a record that still loads, under any policy: the
  /// engine reports it as a map-stage warning with this code at this path (an export that
  /// repeats a message in another file, say, and where the import keeps it). No record value
  /// belongs in `message`.
  public mutating func note(at path: String, code: IssueCode, _ message: String) {
    notes.append(MappingError(code: code, path: path, message: message))
  }

  /// The text of the document field `name`, or nil when it is absent — or present but holding
  /// no text, which is then an `invalidValue` issue at its place (`invalidFields`): a
  /// document-level field is judged as a record's would be, never silently taken as absent.
  public mutating func text(of name: String) -> String? {
    if let value = fields[name] { return value }
    if let field = unreadableFields[name], !invalidFields.contains(where: { $0.name == name }) {
      invalidFields.append((name, field))
    }
    return nil
  }
}

extension MappingError {
  /// A record the dataset skips by design (an export's metadata line: Mattermost's `version`,
  /// `team`, `emoji`): neither loaded nor rejected, counted by `reason` and reported as such.
  public static func skipped(_ reason: String) -> MappingError {
    MappingError(code: .skippedByDesign, path: "", message: reason)
  }

  public var isSkip: Bool { code == .skippedByDesign }
}
