import Foundation
@_spi(Internals) import SluiceCore

/// Nightly full dumps of members with their addresses (a child table), generated from a seed:
/// each night some members change a value or their addresses, some leave the dump, some come
/// back and a few are new. Loaded as `--snapshot` runs into a dataset whose `members` table keeps
/// its history (`"history": "scd2"`), on any store, by `HistoryNights.load`.
public struct HistoryNights {
  /// One member as night `n` has it.
  public struct Member: Hashable {
    public var id: String
    public var name: String
    public var tier: Int64?
    public var cities: [String]
  }

  public let nights: [[Member]]

  /// `count` nights from `seed`: about 120 members, a few changed, gone and back each night.
  public init(count: Int = 30, seed: UInt64 = 59) {
    var random = SeededRandom(seed)
    var all: [String: Member] = [:]
    var present: Set<String> = []
    var nextID = 0
    func newMember() -> Member {
      defer { nextID += 1 }
      return Member(id: "m\(nextID)", name: "name \(nextID)", tier: Int64(nextID % 3), cities: ["c\(nextID % 7)"])
    }
    for _ in 0..<120 {
      let member = newMember()
      all[member.id] = member
      present.insert(member.id)
    }
    var nights: [[Member]] = []
    for night in 0..<count {
      if night > 0 {
        for id in present.sorted() {
          switch random.next(100) {
          case 0..<3: present.remove(id)  // left the dump
          case 3..<6: all[id]?.name = "name \(id) night \(night)"
          case 6..<8: all[id]?.tier = random.next(2) == 0 ? nil : Int64(random.next(5))
          case 8..<10: all[id]?.cities.append("c\(random.next(9))")
          case 10..<11: all[id]?.cities = []
          default: break
          }
        }
        // Some that left come back, some as they were, some changed.
        for id in Set(all.keys).subtracting(present).sorted() where random.next(4) == 0 {
          present.insert(id)
          if random.next(2) == 0 { all[id]?.name = "back \(id) night \(night)" }
        }
        for _ in 0..<random.next(4) {
          let member = newMember()
          all[member.id] = member
          present.insert(member.id)
        }
      }
      nights.append(present.sorted().compactMap { all[$0] })
    }
    self.nights = nights
  }

  /// Night `n`'s dump as NDJSON.
  public func dump(_ n: Int) -> String {
    nights[n].map { member in
      let tier = member.tier.map(String.init) ?? "null"
      let cities = member.cities.map { #"{"city":"\#($0)"}"# }.joined(separator: ",")
      return #"{"id":"\#(member.id)","name":"\#(member.name)","tier":\#(tier),"addresses":[\#(cities)]}"#
    }.joined(separator: "\n") + "\n"
  }

  /// Night `n`'s rows as the "as of" query reads them back: `members` as `id|name|tier`, and
  /// `member_addresses` as `id|position|city`.
  public func rows(_ n: Int) -> (members: [String], addresses: [String]) {
    let members = nights[n].map { "\($0.id)|\($0.name)|\($0.tier.map(String.init) ?? "NULL")" }
    let addresses = nights[n].flatMap { member in
      member.cities.enumerated().map { "\(member.id)|\($0.offset)|\($0.element)" }
    }
    return (members.sorted(), addresses.sorted())
  }

  /// The dataset file: members keyed by id, their addresses a child table, history kept.
  public static let datasetFile = """
    {
      "name": "members",
      "fields": [
        { "name": "id", "type": "text" },
        { "name": "name", "type": "text" },
        { "name": "tier", "type": "integer", "nullable": true },
        {
          "name": "addresses", "type": "array",
          "items": { "type": "object", "fields": [{ "name": "city", "type": "text" }] }
        }
      ],
      "tables": [
        {
          "name": "members", "key": ["id"], "history": "scd2",
          "columns": [
            { "name": "id", "field": "id" },
            { "name": "name", "field": "name" },
            { "name": "tier", "field": "tier" }
          ]
        },
        {
          "name": "member_addresses", "parent": "members", "field": "addresses", "position": "position",
          "columns": [{ "name": "city", "field": "city" }]
        }
      ]
    }
    """

  /// The "as of" queries of docs/operations.md for members and their addresses at `time`, a
  /// timestamp literal in the store's syntax, each row as the `rows(_:)` strings.
  public static func asOf(_ time: String) -> (members: String, addresses: String) {
    let valid = "sluice_valid_from <= \(time) AND (sluice_valid_to IS NULL OR sluice_valid_to > \(time))"
    return (
      "SELECT id, name, tier FROM sluice_history_members WHERE \(valid)",
      "SELECT id, position, city FROM sluice_history_member_addresses WHERE \(valid)"
    )
  }
}

/// A small deterministic generator (SplitMix64), so that a seed gives the same nights anywhere.
public struct SeededRandom {
  private var state: UInt64

  public init(_ seed: UInt64) { state = seed }

  /// A number in `0..<bound`.
  public mutating func next(_ bound: Int) -> Int {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    z ^= z >> 31
    return Int(z % UInt64(bound))
  }
}

extension Store {
  /// Every row of `sql`'s result, its `columns` values joined by `|` (NULL as `NULL`), sorted.
  package func lines(_ sql: String, columns: Int) throws -> [String] {
    let statement = try prepare(sql)
    var rows: [String] = []
    while try statement.step() {
      rows.append(
        (0..<columns).map { column -> String in
          switch statement.columnValue(Int32(column)) {
          case nil: return "NULL"
          case .integer(let number)?: return String(number)
          case .real(let number)?: return "\(number)"
          case .text(let text)?: return text
          case .blob(let bytes)?: return bytes.map { String(format: "%02x", $0) }.joined()
          }
        }.joined(separator: "|"))
    }
    return rows.sorted()
  }
}

extension HistoryNights {
  /// The members dataset, from `datasetFile` written into `directory`.
  public static func dataset(in directory: TemporaryDirectory) throws -> AnyDataset {
    try DatasetFile.load(directory.write("members.dataset.json", datasetFile))
  }

  /// A strict snapshot run of night `n` (guard at 20 %: a night loses a few members) into the
  /// store `aim` points the configuration at.
  public func configuration(
    _ n: Int, in directory: TemporaryDirectory, aim: (PipelineConfiguration) -> PipelineConfiguration
  ) throws -> PipelineConfiguration {
    let input = try directory.write("night-\(n).ndjson", dump(n))
    var configuration = PipelineConfiguration(
      name: "members", input: input, format: .ndjson, database: .sqlite(directory.file("members.sqlite")))
    configuration.inputs[0].isSnapshot = true
    configuration.snapshot.maxDeleteRate = 0.2
    return aim(configuration)
  }

  /// Loads every night in turn and returns each night's run start, as `sluice_runs` has it.
  public func loadEveryNight(
    _ dataset: AnyDataset, in directory: TemporaryDirectory,
    aim: (PipelineConfiguration) -> PipelineConfiguration, open: () throws -> any Store
  ) throws -> [String] {
    var starts: [String] = []
    for n in nights.indices {
      let report = try dataset.run(configuration(n, in: directory, aim: aim))
      guard report.status == .succeeded else {
        throw HistoryNightsError(message: "night \(n): \(report.failure?.message ?? "")")
      }
      let store = try open()
      let start = try store.lines("SELECT started_at FROM sluice_runs ORDER BY run_id DESC LIMIT 1", columns: 1)
      starts += start
    }
    return starts
  }
}

public struct HistoryNightsError: Error, CustomStringConvertible {
  public var message: String
  public var description: String { message }
}
