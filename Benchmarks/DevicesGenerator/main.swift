// Deterministic device, alert, profile and profile-patch feeds for the reference look-up
// benchmark:
//
//   swift run -c release devices-generator --devices N --alerts M --profiles P --patches Q
//                                          [--seed S] --out DIRECTORY
//
// writes, in DIRECTORY, gzip NDJSON as the catalog's datasets read it:
//
// - devices.ndjson.gz — N devices `dev-0000001`…, names with some non-ASCII, latitude and
//   longitude in range;
// - alerts.ndjson.gz — M alerts, each naming a device drawn uniformly from all N, so that with
//   100k devices no 65,536-key cache holds every device an alert names; createdAt before expire,
//   code 0…9999;
// - profiles.ndjson.gz — P whole profiles `p-0000001`…, a tenth without an introduction (`null`)
//   and a tenth with none given;
// - patches.ndjson.gz — Q valid patches of profiles drawn uniformly from all P (so a profile may
//   be patched several times, in order): 40 % set the nickname, 30 % set the introduction, 20 %
//   clear it (`null`), 10 % set both;
//
// the rows the floors import, as Sluice stores them: alerts.csv (the `alerts` table) and
// patches.csv (`seq,profile_id,nickname,introduction_change,introduction`: an empty nickname is
// none given, introduction_change is `set`, `clear` or empty); and expected.json — the rows to
// expect and the state the patches leave: profiles without an introduction, the patches that
// change their row (the rows a run counts as written), and a few sample profiles' final values.
//
// The device feeds and the profile feeds draw from two sequences of their own, so either pair
// is the same whatever the other's counts (0 writes empty feeds). The same arguments always give
// the same bytes. Memory does not grow with the feeds, only with N and P: a bit per device and
// 17 bytes per profile (hashes of its current nickname and introduction), to know which patch
// changes its row.
import Foundation
import GzipOutput
import OrderSamples
@_spi(Internals) import SluiceCore

let arguments = Array(CommandLine.arguments.dropFirst())
func value(_ name: String) -> String? {
  arguments.firstIndex(of: name).flatMap { $0 + 1 < arguments.count ? arguments[$0 + 1] : nil }
}
func count(_ name: String) -> Int? { value(name).flatMap(Int.init).flatMap { $0 >= 0 ? $0 : nil } }
guard let deviceCount = count("--devices"), let alertCount = count("--alerts"),
  let profileCount = count("--profiles"), let patchCount = count("--patches"), let out = value("--out"),
  alertCount == 0 || deviceCount > 0, patchCount == 0 || profileCount > 0
else {
  FileHandle.standardError.write(
    Data(
      """
      usage: devices-generator --devices N --alerts M --profiles P --patches Q [--seed S] --out DIRECTORY
      (alerts need at least one device, patches at least one profile; 0 writes an empty feed)

      """.utf8))
  exit(64)
}
let seed = value("--seed").flatMap(UInt64.init) ?? 1
try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
func path(_ name: String) -> String { (out as NSString).appendingPathComponent(name) }

// MARK: - Text

let places = [
  "Pump station", "Weir gate", "Reservoir level sensor", "Sluice gate", "Flow meter", "Schleuse", "Pegel Süd",
  "Écluse", "Barrage de la Rivière", "水門", "Dique", "Kanał Żerański", "Sensor Ålesund", "Stauwehr Köln",
]
let sides = ["north", "south", "east", "west", "upper", "lower", "Nord", "Süd", "amont", "aval"]
let titles = [
  "Water level high", "Battery low", "Gate stuck", "Pressure drop", "Sensor offline", "Flow above limit",
  "Température élevée", "Wasserstand kritisch", "通信断", "Door open", "Firmware update failed", "Ice on the weir",
]
let words = [
  "level", "above", "the", "warning", "mark", "for", "minutes", "replace", "within", "a", "week", "gate", "did",
  "not", "reach", "its", "position", "pressure", "fell", "below", "threshold", "café", "Zoë", "naïve", "über",
  "été", "日本", "check", "on", "site", "before", "noon", "👍", "reset", "by", "operator", "again", "after",
]
let firstNames = [
  "Ada", "Grace", "Ken", "Zoë", "Ëmil", "Søren", "José", "Chloé", "Łukasz", "Mei", "太郎", "Ana", "Björn",
  "Noor", "Olu", "Priya", "Rūta", "Tomás", "Yuki", "İlker",
]
/// 2026-01-01T00:00:00Z.
let epoch = 1_767_225_600

/// The generator's dice: one seeded sequence per pair of feeds.
struct Dice {
  var random: SeededGenerator

  mutating func chance(_ percent: Int) -> Bool { number(0...99) < percent }
  mutating func number(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &random) }
  mutating func pick<T>(_ items: [T]) -> T { items[Int.random(in: 0..<items.count, using: &random)] }

  mutating func sentence(_ lengths: ClosedRange<Int>) -> String {
    var text = (0..<number(lengths)).map { _ in pick(words) }.joined(separator: " ")
    // Now and then characters JSON escapes and CSV quotes.
    if chance(2) { text += ", \"quoted\"\tand\\escaped\nline" }
    return text
  }

  mutating func nickname() -> String {
    "\(pick(firstNames)) \(Character(Unicode.Scalar(UInt8(ascii: "A") + UInt8(number(0...25)))))."
  }

  /// Micro-degrees in -limit…limit, as JSON number text with six decimals.
  mutating func degrees(_ limit: Int) -> String {
    let micro = number(-limit * 1_000_000...limit * 1_000_000)
    let fraction = String(abs(micro) % 1_000_000)
    return
      "\(micro < 0 ? "-" : "")\(abs(micro) / 1_000_000).\(String(repeating: "0", count: 6 - fraction.count))\(fraction)"
  }
}

/// A CSV field as sqlite3's `.import` reads it: quoted, quotes doubled.
func csv(_ text: String) -> String { "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }

/// A natural key: the prefix and the number, zero-padded to at least `width` digits.
func key(_ prefix: String, _ number: Int, width: Int) -> String {
  let digits = String(number)
  return prefix + String(repeating: "0", count: max(0, width - digits.count)) + digits
}

/// ISO 8601 in whole seconds, as a feed carries it (`2026-01-01T00:15:00Z`), and as Sluice
/// stores it (`2026-01-01T00:15:00.000Z`).
func timestamps(_ seconds: Int) -> (feed: String, stored: String) {
  let stored = TimestampText.text(Date(timeIntervalSince1970: Double(seconds)))
  return (stored.replacingOccurrences(of: ".000Z", with: "Z"), stored)
}

/// FNV-1a over a text's UTF-8, never 0 (0 stands for no introduction).
func fingerprint(_ text: String?) -> UInt64 {
  guard let text else { return 0 }
  var hash: UInt64 = 0xCBF2_9CE4_8422_2325
  for byte in text.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01B3 }
  return hash | 1
}

var expected: [String: Any] = [
  "devices": deviceCount, "alerts": alertCount, "profiles": profileCount, "patches": patchCount,
]

// MARK: - Devices and alerts

var devicesDice = Dice(random: SeededGenerator(seed: seed))
let deviceWidth = max(7, String(deviceCount).count)
let devices = try OutputFile(path("devices.ndjson.gz"), gzip: true)
for number in 1..<deviceCount + 1 {
  var name = "\(devicesDice.pick(places)) \(devicesDice.pick(sides)) \(number)"
  if devicesDice.chance(5) { name += " (\"spare\")" }
  let latitude = devicesDice.degrees(89)
  let longitude = devicesDice.degrees(179)
  try devices.write(
    #"{"id": "\#(key("dev-", number, width: deviceWidth))", "name": \#(DumpValue.jsonString(name)), "latitude": \#(latitude), "longitude": \#(longitude)}"#
      + "\n")
}
try devices.close()

let alerts = try OutputFile(path("alerts.ndjson.gz"), gzip: true)
let alertsCSV = try OutputFile(path("alerts.csv"), gzip: false)
try alertsCSV.write("alert_id,device_id,title,body,created_at,expires_at,code\n")
let alertWidth = max(8, String(alertCount).count)
var named = [Bool](repeating: false, count: deviceCount)
for number in 1..<alertCount + 1 {
  let device = devicesDice.number(1...deviceCount)
  named[device - 1] = true
  let id = key("alert-", number, width: alertWidth)
  let deviceID = key("dev-", device, width: deviceWidth)
  let title = devicesDice.pick(titles)
  let body = devicesDice.sentence(4...24) + " (\(devicesDice.number(1...99)) %)"
  let created = epoch + number * 20 + devicesDice.number(0...19)
  let (createdAt, createdStored) = timestamps(created)
  let (expire, expireStored) = timestamps(created + devicesDice.number(3_600...7 * 86_400))
  let code = devicesDice.number(0...9999)
  try alerts.write(
    #"{"id": "\#(id)", "deviceId": "\#(deviceID)", "title": \#(DumpValue.jsonString(title)), "body": \#(DumpValue.jsonString(body)), "createdAt": "\#(createdAt)", "expire": "\#(expire)", "code": \#(code)}"#
      + "\n")
  try alertsCSV.write("\(id),\(deviceID),\(csv(title)),\(csv(body)),\(createdStored),\(expireStored),\(code)\n")
}
try alerts.close()
try alertsCSV.close()
expected["devicesWithAlerts"] = named.lazy.filter { $0 }.count

// MARK: - Profiles and patches

var profilesDice = Dice(random: SeededGenerator(seed: seed ^ 0x5EED_0F_9A7C_4E55))
let profileWidth = max(7, String(profileCount).count)
// What the generator must remember of each profile to know which patch changes its row.
var nicknames = [UInt64](repeating: 0, count: profileCount)
var introductions = [UInt64](repeating: 0, count: profileCount)
var patchesPerProfile = [UInt8](repeating: 0, count: profileCount)
// A few profiles whose final values expected.json spells out, spread over the ids.
let sampleStride = max(profileCount / 12, 1)
var samples: [Int: (nickname: String, introduction: String?)] = [:]

let profiles = try OutputFile(path("profiles.ndjson.gz"), gzip: true)
for number in 1..<profileCount + 1 {
  let nickname = profilesDice.nickname()
  let roll = profilesDice.number(0...9)
  let introduction = roll < 2 ? nil : profilesDice.sentence(5...30)
  var fields = [
    #""id": "\#(key("p-", number, width: profileWidth))""#, #""nickname": \#(DumpValue.jsonString(nickname))"#,
  ]
  if roll == 0 {
    fields.append(#""introduction": null"#)
  } else if let introduction {
    fields.append(#""introduction": \#(DumpValue.jsonString(introduction))"#)
  }  // roll 1: none given
  try profiles.write("{" + fields.joined(separator: ", ") + "}\n")
  nicknames[number - 1] = fingerprint(nickname)
  introductions[number - 1] = fingerprint(introduction)
  if (number - 1) % sampleStride == 0 { samples[number] = (nickname, introduction) }
}
try profiles.close()
expected["profilesWithoutIntroductionBefore"] = introductions.lazy.filter { $0 == 0 }.count

let patches = try OutputFile(path("patches.ndjson.gz"), gzip: true)
let patchesCSV = try OutputFile(path("patches.csv"), gzip: false)
try patchesCSV.write("seq,profile_id,nickname,introduction_change,introduction\n")
var kinds = ["nickname": 0, "introduction": 0, "clearIntroduction": 0, "nicknameAndIntroduction": 0]
var changing = 0
for sequence in 1..<patchCount + 1 {
  let number = profilesDice.number(1...profileCount)
  let id = key("p-", number, width: profileWidth)
  let roll = profilesDice.number(0...99)
  let kind =
    roll < 40 ? "nickname" : roll < 70 ? "introduction" : roll < 90 ? "clearIntroduction" : "nicknameAndIntroduction"
  kinds[kind, default: 0] += 1
  let nickname = kind == "nickname" || kind == "nicknameAndIntroduction" ? profilesDice.nickname() : nil
  // .some(nil) clears the introduction; nil leaves it.
  let introduction: String?? =
    kind == "clearIntroduction" ? .some(nil) : kind == "nickname" ? nil : .some(profilesDice.sentence(5...30))
  var fields = [#""id": "\#(id)""#]
  var changes = false
  if let nickname {
    fields.append(#""nickname": \#(DumpValue.jsonString(nickname))"#)
    changes = changes || fingerprint(nickname) != nicknames[number - 1]
    nicknames[number - 1] = fingerprint(nickname)
  }
  if let introduction {
    fields.append(#""introduction": \#(introduction.map(DumpValue.jsonString) ?? "null")"#)
    changes = changes || fingerprint(introduction) != introductions[number - 1]
    introductions[number - 1] = fingerprint(introduction)
  }
  if changes { changing += 1 }
  if patchesPerProfile[number - 1] < .max { patchesPerProfile[number - 1] += 1 }
  if let sample = samples[number] {
    samples[number] = (nickname ?? sample.nickname, introduction ?? sample.introduction)
  }
  try patches.write("{" + fields.joined(separator: ", ") + "}\n")
  let change: String
  switch introduction {
  case nil: change = ""
  case .some(nil): change = "clear"
  case .some(.some): change = "set"
  }
  try patchesCSV.write(
    "\(sequence),\(id),\(nickname.map(csv) ?? ""),\(change),\((introduction ?? nil).map(csv) ?? "")\n")
}
try patches.close()
try patchesCSV.close()
expected["patchKinds"] = kinds
expected["patchesThatChange"] = changing
expected["patchedProfiles"] = patchesPerProfile.lazy.filter { $0 > 0 }.count
expected["profilesWithoutIntroduction"] = introductions.lazy.filter { $0 == 0 }.count
expected["samples"] = samples.sorted { $0.key < $1.key }.map { number, sample -> [String: Any] in
  [
    "id": key("p-", number, width: profileWidth), "nickname": sample.nickname,
    "introduction": sample.introduction ?? NSNull(), "patches": Int(patchesPerProfile[number - 1]),
  ]
}

let summary = try JSONSerialization.data(withJSONObject: expected, options: [.sortedKeys, .prettyPrinted])
try summary.write(to: URL(fileURLWithPath: path("expected.json")))
print(
  "wrote \(deviceCount) devices, \(alertCount) alerts, \(profileCount) profiles and \(patchCount) patches (\(changing) changing their profile) to \(out)"
)
