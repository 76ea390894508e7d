// Deterministic chat-message dumps in Sluice's own message format, for the benchmark:
//
//   swift run -c release messages-generator --count N [--seed S] [--unknown-rate R] --out DIRECTORY
//
// writes DIRECTORY/messages.ndjson.gz — N messages in ~N/1000 conversations (at most 1,000) from
// ~N/100 senders: text 70 %, image 12 %, file 9 %, system 9 % of the known kinds, and a share R
// (default 0.01) of messages of kinds Sluice does not know (`sticker`, `poll`, `voice`, `story`)
// with fields of their own; 8 % of text messages carry 1–3 attachments, 1 % of which are of an
// unknown kind (`location`) — and DIRECTORY/expected.json, the rows Pipelines/messages-lenient.json
// must write per table and what it must skip and drop. The same N, seed and rate always give the
// same bytes.
import Foundation
import GzipOutput
import OrderSamples
@_spi(Internals) import SluiceCore

let arguments = Array(CommandLine.arguments.dropFirst())
func value(_ name: String) -> String? {
  arguments.firstIndex(of: name).flatMap { $0 + 1 < arguments.count ? arguments[$0 + 1] : nil }
}
guard let count = value("--count").flatMap(Int.init), count > 0, let out = value("--out"),
  let unknownRate = Double(value("--unknown-rate") ?? "0.01"), (0...1).contains(unknownRate)
else {
  FileHandle.standardError.write(
    Data("usage: messages-generator --count N [--seed S] [--unknown-rate 0.01] --out DIRECTORY\n".utf8))
  exit(64)
}
let seed = value("--seed").flatMap(UInt64.init) ?? 1
try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)

let words = [
  "the", "meeting", "moved", "to", "Thursday", "café", "lunch", "deploy", "is", "green", "again", "review", "please",
  "thanks", "naïve", "question", "about", "the", "budget", "Zoë", "shipped", "it", "tomorrow", "morning", "works",
  "for", "me", "👍", "a", "quick", "sync", "after", "standup", "日本", "ok", "done", "merged", "see", "notes",
]
let unknownKinds = ["sticker", "poll", "voice", "story"]
let events = ["join", "leave", "pin", "rename", "call"]
let extensions = [
  ("pdf", "application/pdf"), ("txt", "text/plain"), ("zip", "application/zip"), ("md", "text/markdown"),
]
/// 2024-01-01T00:00:00Z.
let epoch = 1_704_067_200.0

/// The generator's dice: one seeded sequence for the whole dump.
struct Dice {
  var random: SeededGenerator

  mutating func chance(_ percent: Int) -> Bool { number(0...99) < percent }
  mutating func number(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &random) }
  mutating func pick<T>(_ items: [T]) -> T { items[Int.random(in: 0..<items.count, using: &random)] }

  mutating func sentence() -> String {
    var text = (0..<number(3...30)).map { _ in pick(words) }.joined(separator: " ")
    if chance(3) { text += " \"quoted\"\tand\\escaped\nline" }
    return text
  }
}

var dice = Dice(random: SeededGenerator(seed: seed))

let conversations = max(min(count / 1000, 1000), 1)
let senders = max(count / 100, 1)
var lastID = [Int](repeating: 0, count: conversations)
var expected: [String: Int] = [
  "messages": 0, "text_messages": 0, "image_messages": 0, "file_messages": 0, "system_messages": 0,
  "message_attachments": 0, "unknownKinds": 0, "droppedAttachments": 0,
]
var conversationsSeen = Set<Int>()
var sendersSeen = Set<Int>()

let output = try OutputFile((out as NSString).appendingPathComponent("messages.ndjson.gz"), gzip: true)
for index in 0..<count {
  let conversation = dice.number(0...conversations - 1)
  lastID[conversation] += 1
  let id = lastID[conversation]
  let unknown = Double(dice.number(0...999_999)) < unknownRate * 1_000_000
  let roll = dice.number(0...99)
  let kind =
    unknown ? dice.pick(unknownKinds) : roll < 70 ? "text" : roll < 82 ? "image" : roll < 91 ? "file" : "system"
  let sender = kind == "system" && dice.chance(70) ? nil : dice.number(1...senders)
  let seconds = epoch + Double(index) * 3 + Double(dice.number(0...2999)) / 1000
  var fields = [
    #""id": "\#(id)""#, #""conversationId": "c\#(conversation)""#, #""type": \#(DumpValue.jsonString(kind))"#,
  ]
  if let sender { fields.append(#""sender": "u\#(sender)""#) }
  fields.append(#""sentAt": "\#(TimestampText.text(Date(timeIntervalSince1970: seconds)))""#)
  if dice.chance(5) { fields.append(#""conversationName": "Channel \#(conversation)""#) }
  if let sender, dice.chance(50) { fields.append(#""senderName": "User \#(sender)""#) }
  if id > 1 && dice.chance(10) { fields.append(#""replyTo": "\#(dice.number(1...id - 1))""#) }
  var attachments = 0
  switch kind {
  case "text":
    fields.append(#""text": \#(DumpValue.jsonString(dice.sentence()))"#)
    if dice.chance(8) {
      var elements: [String] = []
      for number in 0..<dice.number(1...3) {
        if dice.chance(1) {
          elements.append(#"{"type": "location", "latitude": 52.52, "longitude": 13.405}"#)
          expected["droppedAttachments", default: 0] += 1
        } else if dice.chance(60) {
          elements.append(
            #"{"type": "image", "url": "https://files.example.org/c\#(conversation)/\#(id)-\#(number).png", "width": 640, "height": 480}"#
          )
          attachments += 1
        } else {
          elements.append(
            #"{"type": "file", "name": "attachment-\#(number).txt", "mimeType": "text/plain", "sizeBytes": \#(dice.number(0...99_999))}"#
          )
          attachments += 1
        }
      }
      fields.append(#""attachments": [\#(elements.joined(separator: ", "))]"#)
    }
  case "image":
    fields.append(#""url": "https://files.example.org/c\#(conversation)/\#(id).jpg""#)
    if dice.chance(40) { fields.append(#""caption": \#(DumpValue.jsonString(dice.sentence()))"#) }
    if dice.chance(70) {
      fields.append(#""width": \#(dice.number(16...4096)), "height": \#(dice.number(16...4096))"#)
    }
  case "file":
    let (fileExtension, mimeType) = dice.pick(extensions)
    fields.append(#""name": "\#(dice.pick(words))-\#(id).\#(fileExtension)""#)
    if dice.chance(60) {
      fields.append(#""url": "https://files.example.org/c\#(conversation)/\#(id).\#(fileExtension)""#)
    }
    fields.append(#""mimeType": "\#(mimeType)""#)
    if dice.chance(80) { fields.append(#""sizeBytes": \#(dice.number(0...50_000_000))"#) }
  case "system":
    fields.append(#""event": "\#(dice.pick(events))""#)
    if dice.chance(80) { fields.append(#""text": \#(DumpValue.jsonString(dice.sentence()))"#) }
  default:
    // A kind from the future, with fields of its own.
    fields.append(#""payload": {"ref": "\#(kind)-\#(index)", "weight": \#(dice.number(1...100))}"#)
  }
  try output.write("{" + fields.joined(separator: ", ") + "}\n")
  if unknown {
    expected["unknownKinds", default: 0] += 1
    continue
  }
  expected["messages", default: 0] += 1
  expected["\(kind)_messages", default: 0] += 1
  expected["message_attachments", default: 0] += attachments
  conversationsSeen.insert(conversation)
  if let sender { sendersSeen.insert(sender) }
}
try output.close()
expected["conversations"] = conversationsSeen.count
expected["senders"] = sendersSeen.count
let summary = try JSONSerialization.data(withJSONObject: expected, options: [.sortedKeys, .prettyPrinted])
try summary.write(to: URL(fileURLWithPath: (out as NSString).appendingPathComponent("expected.json")))
print(
  "wrote \(count) messages (\(expected["unknownKinds"] ?? 0) of unknown kinds, \(expected["droppedAttachments"] ?? 0) unknown attachments) to \(out)"
)
