// Decoder micro-benchmark: the same order-like records decoded by Sluice's decoder and by
// Foundation's JSONDecoder, interleaved, several rounds, medians and their ratio.
//
//   swift run -c release decoder-benchmark [records] [rounds]
//
// Not part of `swift test`: timings belong in release builds, side by side in one run.
import Foundation
import OrderSamples
@_spi(Internals) import SluiceCore

struct OrderDTO: Decodable {
  let identifier: String
  let amountInCent: Int64
  let currency: String
  let status: String
  let createdAt: Date
  let customer: CustomerDTO
  let items: [ItemDTO]

  enum CodingKeys: String, CodingKey {
    case identifier = "orderId"
    case amountInCent = "amount"
    case currency, status, createdAt, customer, items
  }
}

struct CustomerDTO: Decodable {
  let id: Int64
  let name: String
}

struct ItemDTO: Decodable {
  let sku: String
  let qty: Int
  let priceMinor: Int64
}

/// Deterministic order records in the shape of the orders dataset (the benchmark generator's).
func makeRecords(_ count: Int) -> [RawRecord] {
  var sampler = OrderSampler(seed: 42, customers: max(count / 4, 1))
  var records: [RawRecord] = []
  var offset: Int64 = 0
  for index in 0..<count {
    let bytes = Array(sampler.next().order.json.utf8)
    records.append(
      RawRecord(location: RecordLocation(ordinal: index + 1, byteOffset: offset, line: index + 1), bytes: bytes))
    offset += Int64(bytes.count + 1)
  }
  return records
}

func seconds(_ body: () throws -> Int) rethrows -> (Double, Int) {
  let start = DispatchTime.now().uptimeNanoseconds
  let checksum = try body()
  return (Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9, checksum)
}

let arguments = CommandLine.arguments.dropFirst().compactMap { Int($0) }
/// `--sluice-only` skips JSONDecoder, for profiling Sluice's decoder alone.
let sluiceOnly = CommandLine.arguments.contains("--sluice-only")
let count = arguments.first ?? 200_000
let rounds = arguments.dropFirst().first ?? 5
let records = makeRecords(count)
let megabytes = Double(records.reduce(0) { $0 + $1.bytes.count }) / 1e6
print(
  "decoder benchmark: \(count) order records (\(String(format: "%.1f", megabytes)) MB), \(rounds) rounds, interleaved")

let sluice = SluiceDecoder()
let foundation = JSONDecoder()
foundation.dateDecodingStrategy = .iso8601
var sluiceTimes: [Double] = []
var foundationTimes: [Double] = []
for round in 1...rounds {
  let (sluiceTime, sluiceSum) = try seconds {
    var diagnostics = DecodeDiagnostics()
    var sum = 0
    for record in records {
      let order = try sluice.decode(OrderDTO.self, from: record, diagnostics: &diagnostics)
      sum &+= Int(order.amountInCent) &+ order.items.count
    }
    return sum
  }
  let (foundationTime, foundationSum) = try seconds {
    var sum = 0
    if sluiceOnly { return sluiceSum }
    for record in records {
      let order = try foundation.decode(OrderDTO.self, from: Data(record.bytes))
      sum &+= Int(order.amountInCent) &+ order.items.count
    }
    return sum
  }
  precondition(sluiceSum == foundationSum, "the decoders disagree")
  sluiceTimes.append(sluiceTime)
  foundationTimes.append(foundationTime)
  print(String(format: "  round %d: sluice %.3fs, JSONDecoder %.3fs", round, sluiceTime, foundationTime))
}
let sluiceMedian = sluiceTimes.sorted()[rounds / 2]
let foundationMedian = foundationTimes.sorted()[rounds / 2]
print(
  String(
    format: "sluice:      %8.0f records/s  %6.1f MB/s  (median %.3fs)", Double(count) / sluiceMedian,
    megabytes / sluiceMedian, sluiceMedian))
print(
  String(
    format: "JSONDecoder: %8.0f records/s  %6.1f MB/s  (median %.3fs)", Double(count) / foundationMedian,
    megabytes / foundationMedian, foundationMedian))
print(String(format: "ratio: Sluice's decoder is %.2f× JSONDecoder", foundationMedian / sluiceMedian))
