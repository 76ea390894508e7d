// Fuzz target `decoder`: SluiceDecoder on arbitrary bytes as one record, into the orders DTO,
// the fruits DTO and a probe DTO that reaches the decoder's other paths (every integer width,
// floats, Decimal, URL, dates, Patch, dictionaries, nested and unkeyed containers, the
// polymorphic "read `type` then decode the subtype from the same decoder" pattern). A successful
// orders or fruits decode goes on through the dataset's validate and map.
//
// Input: one control byte, then the record.
//   bit  0    legacyScalars
//   bit  1    reportsUnknownFields
//   bits 2-4  date formats (see `dateFormatSets`)
//   bit  7    validate the record with JSONRecordReader (.document) first, as the pipeline
//             does, and skip it if the reader rejects it; otherwise the raw bytes go straight to
//             the decoder (its tape builder is documented to throw, never trap, on malformed JSON)
//
// Invariants checked: a decoding error's byte offset lies inside the record; the decoder only
// throws RecordDecodingError (typed throws).
import Foundation
import FuzzSupport
import SluiceCatalog
@_spi(Internals) import SluiceCore

private let dateFormatSets: [[DateFormat]] = [
  [.iso8601],
  [.epochSeconds],
  [.epochMilliseconds],
  [.pattern("yyyy-MM-dd HH:mm:ss")],
  [.pattern("dd/MM/yyyy")],
  [.iso8601, .epochSeconds, .pattern("yyyy-MM-dd HH:mm:ss")],
  [.epochMilliseconds, .iso8601],
  [],
]

/// One decoder per option combination, built once: decoders reuse their tape and formatters.
nonisolated(unsafe) private var decoders: [SluiceDecoder?] = Array(repeating: nil, count: 32)

private func decoder(for control: UInt8) -> SluiceDecoder {
  let index = Int(control & 0x1f)
  if let decoder = decoders[index] { return decoder }
  let decoder = SluiceDecoder(
    options: .init(
      legacyScalars: control & 1 != 0, dateFormats: dateFormatSets[Int(control >> 2) & 7],
      reportsUnknownFields: control & 2 != 0))
  decoders[index] = decoder
  return decoder
}

// MARK: - The probe DTO

enum Shade: String, Decodable { case red, green, blue }

struct Probe: Decodable {
  var i8: Int8?
  var i16: Int16?
  var i32: Int32?
  var i64: Int64?
  var int: Int?
  var u8: UInt8?
  var u16: UInt16?
  var u32: UInt32?
  var u64: UInt64?
  var uint: UInt?
  var double: Double?
  var float: Float?
  var decimal: Decimal?
  var bool: Bool?
  var string: String?
  var url: URL?
  var date: Date?
  var shade: Shade?
  var patch: Patch<String>
  var patchNumber: Patch<Int>
  var map: [String: Int]?
  var list: [Int?]?
  var matrix: [[Double]]?
  var children: [Probe]?
  var shape: Shape?

  enum CodingKeys: String, CodingKey {
    case i8, i16, i32, i64, int, u8, u16, u32, u64, uint, double, float, decimal, bool, string
    case url, date, shade, patch, patchNumber, map, list, matrix, children, shape
  }
}

/// The polymorphic pattern: read `type`, then decode the subtype from the same decoder.
enum Shape: Decodable {
  case circle(Circle)
  case polygon(Polygon)
  case pair(Int, String)

  struct Circle: Decodable {
    var type: String
    var radius: Double
  }

  struct Polygon: Decodable {
    var type: String
    var points: [[Int]]
  }

  enum Keys: String, CodingKey { case type, first, second, nested }

  init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: Keys.self)
    switch try container.decode(String.self, forKey: .type) {
    case "circle": self = .circle(try Circle(from: decoder))
    case "polygon": self = .polygon(try Polygon(from: decoder))
    default:
      // Nested keyed and unkeyed containers and a super decoder.
      let nested = try container.nestedContainer(keyedBy: Keys.self, forKey: .nested)
      var list = try container.nestedUnkeyedContainer(forKey: .first)
      var number = 0
      while !list.isAtEnd {
        if try list.decodeNil() { continue }
        number &+= try list.decode(Int.self)
      }
      let second = try Int(from: try container.superDecoder(forKey: .second))
      self = .pair(number &+ second, try nested.decodeIfPresent(String.self, forKey: .type) ?? "")
    }
  }
}

private func fold(_ probe: Probe) {
  observe(Int(probe.i8 ?? 0) &+ Int(probe.i16 ?? 0) &+ Int(probe.i32 ?? 0))
  observe(probe.i64 ?? 0)
  observe(probe.int ?? 0)
  observe(UInt64(probe.u8 ?? 0) &+ UInt64(probe.u16 ?? 0) &+ UInt64(probe.u32 ?? 0))
  observe(probe.u64 ?? 0)
  observe(UInt64(probe.uint ?? 0))
  observe((probe.double ?? 0).bitPattern)
  observe(UInt64((probe.float ?? 0).bitPattern))
  if let decimal = probe.decimal { observe(decimal.description) }
  observe(probe.bool == true ? 1 : 0)
  observe(probe.string ?? "")
  if let url = probe.url { observe(url.absoluteString) }
  if let date = probe.date { observe(date.timeIntervalSince1970.bitPattern) }
  observe(probe.shade?.rawValue ?? "")
  if case .set(let text) = probe.patch { observe(text) }
  if case .set(let number) = probe.patchNumber { observe(number) }
  observe(probe.map?.count ?? 0)
  observe(probe.list?.count ?? 0)
  observe(probe.matrix?.count ?? 0)
  for child in probe.children ?? [] { fold(child) }
  switch probe.shape {
  case .circle(let circle): observe(circle.radius.bitPattern)
  case .polygon(let polygon): observe(polygon.points.count)
  case .pair(let number, let text):
    observe(number)
    observe(text)
  case nil: break
  }
}

// MARK: - Entry point

private func decode<T: Decodable>(
  _ type: T.Type, _ record: RawRecord, with decoder: SluiceDecoder, then use: (T) -> Void
) {
  var diagnostics = DecodeDiagnostics()
  do {
    let value = try decoder.decode(type, from: record, diagnostics: &diagnostics)
    for finding in diagnostics.unknownFields {
      fuzzCheck(
        finding.byteOffset >= 0 && finding.byteOffset <= record.bytes.count,
        "unknown field \(finding.path) at byte \(finding.byteOffset) of a \(record.bytes.count)-byte record")
      observe(record.location(at: finding.byteOffset).line)
      observe(finding.path)
    }
    observe(diagnostics.coercions)
    use(value)
  } catch {
    if let offset = error.byteOffset {
      fuzzCheck(
        offset >= 0 && offset <= record.bytes.count,
        "\(T.self): error at byte \(offset) of a \(record.bytes.count)-byte record: \(error)")
    }
    observe(record.location(at: error.byteOffset).line)
    observe(error.code.rawValue)
    observe(error.path)
    observe(error.message)
  }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDecoder(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
  let input = fuzzBytes(start, count)
  guard let control = input.first else { return 0 }
  var record = RawRecord(
    location: RecordLocation(ordinal: 1, byteOffset: 0, line: 1), bytes: Array(input.dropFirst()))
  if control & 0x80 != 0 {
    // Only what the record reader lets through, with the reader's own capture of it.
    let reader = JSONRecordReader(source: MemoryByteSource(record.bytes), layout: .document)
    guard let checked = try? reader.next() else { return -1 }  // -1: not added to the corpus
    record = checked
  }
  let decoder = decoder(for: control)

  decode(OrderDTO.self, record, with: decoder) { order in
    let dataset = OrdersDataset()
    var validation = Validation()
    dataset.validate(order, into: &validation)
    observe(validation.failures.count)
    do throws(MappingError) {
      let mapped = try dataset.map(order)
      observe(mapped.createdAt.text)
      observe(mapped.items.count)
      var rows = RecordRows()
      dataset.rows(for: mapped, into: &rows)
      observe(rows.count)
    } catch {
      observe(error.code.rawValue)
    }
  }
  decode(FruitDTO.self, record, with: decoder) { fruit in
    let dataset = FruitsDataset()
    var validation = Validation()
    dataset.validate(fruit, into: &validation)
    observe(validation.failures.count)
    do throws(MappingError) {
      let mapped = try dataset.map(fruit)
      observe(mapped.id)
      observe(mapped.recipes.count)
      var rows = RecordRows()
      dataset.rows(for: mapped, into: &rows)
      observe(rows.count)
    } catch {
      observe(error.code.rawValue)
    }
  }
  decode(Probe.self, record, with: decoder) { fold($0) }
  return 0
}
