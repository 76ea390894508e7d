import Foundation
import SluiceSQLite
@_spi(Internals) import SluiceTestSupport
import Testing

@_spi(Internals) @testable import SluiceCore

/// The read stage on a thread of its own (`ReadAhead`): the same results in the same order as
/// the reader it runs, errors included, and a thread that stops when asked.
@Suite("Reading ahead on a thread of its own")
struct ReadAheadTests {
  /// What a reader delivered, record by record: a record's ordinal, line, offset and bytes, or
  /// an error's code, line and whether the reader went on after it.
  private enum Outcome: Equatable {
    case record(ordinal: Int, line: Int, offset: Int64, bytes: [UInt8])
    case error(code: IssueCode, line: Int, recoverable: Bool)
  }

  private func outcomes(of reader: any RecordReader, limit: Int = 100_000) -> [Outcome] {
    var outcomes: [Outcome] = []
    while outcomes.count < limit {
      do {
        guard let record = try reader.next() else { break }
        outcomes.append(
          .record(
            ordinal: record.location.ordinal, line: record.location.line, offset: record.location.byteOffset,
            bytes: record.bytes))
      } catch let error as RecordReadError {
        outcomes.append(.error(code: error.code, line: error.location.line, recoverable: error.isRecoverable))
        if !error.isRecoverable { break }
      } catch {
        Issue.record("unexpected error \(error)")
        break
      }
    }
    return outcomes
  }

  /// `count` NDJSON shipments with a broken line every 97th and a blank one every 50th.
  private func ndjson(_ count: Int) -> [UInt8] {
    var text = ""
    for index in 0..<count {
      if index % 97 == 5 { text += #"{"id": "broken", "mode": "#  + "\n" }
      if index % 50 == 7 { text += "\n" }
      text += #"{"id": "s\#(index)", "mode": "air", "parcels": [\#(index % 7)]}"# + "\n"
    }
    return Array(text.utf8)
  }

  @Test(arguments: [0, 1, 63, 64, 65, 3_000])
  func ndjsonReadsTheSameRecordsAndErrorsInTheSameOrder(count: Int) {
    let input = ndjson(count)
    let direct = outcomes(of: JSONRecordReader(source: MemoryByteSource(input, chunk: 4_096), layout: .lines))
    let ahead = ReadAhead(JSONRecordReader(source: MemoryByteSource(input, chunk: 4_096), layout: .lines))
    #expect(outcomes(of: ahead) == direct)
    #expect(direct.contains { if case .error = $0 { true } else { false } } == (count > 5))
    ahead.close()
    #expect(ahead.seconds >= 0)
  }

  /// A syntax error in a JSON array ends the reader: the records before it, the error, then the
  /// end — nothing after it, on either thread.
  @Test func anErrorThatEndsTheReaderEndsItAfterTheRecordsBeforeIt() throws {
    let records = (0..<200).map { #"{"id": "s\#($0)", "mode": "air", "parcels": [1]}"# }
    let input = Array(("[" + records.joined(separator: ",\n") + ", {\"id\": ]").utf8)
    let direct = outcomes(of: JSONRecordReader(source: MemoryByteSource(input, chunk: 333), layout: .array(path: [])))
    let ahead = ReadAhead(JSONRecordReader(source: MemoryByteSource(input, chunk: 333), layout: .array(path: [])))
    let read = outcomes(of: ahead)
    #expect(read == direct)
    #expect(read.count == 201)
    #expect(read.last == Outcome.error(code: .syntax, line: 200, recoverable: false))
    #expect(try ahead.next() == nil)
  }

  /// XML records carry tapes; they come through whole, with their source positions.
  @Test func xmlRecordsComeThroughWithTheirTapes() throws {
    var text = "<orders>\n"
    for index in 0..<300 { text += "  <order id=\"o\(index)\"><currency>EUR</currency><n>\(index)</n></order>\n" }
    text += "</orders>\n"
    let direct = RecordReaders.make(format: .xml, recordPath: ["orders", "order"], source: MemoryByteSource(text))
    let ahead = ReadAhead(
      RecordReaders.make(format: .xml, recordPath: ["orders", "order"], source: MemoryByteSource(text, chunk: 100)))
    var count = 0
    while let expected = try direct.next() {
      let record = try #require(try ahead.next())
      #expect(record.bytes == expected.bytes)
      #expect(record.location == expected.location)
      #expect(record.tape?.sourceOffsets == expected.tape?.sourceOffsets)
      count += 1
    }
    #expect(count == 300)
    #expect(try ahead.next() == nil)
  }

  /// Closed after one record of many, while the reading thread waits for room: it stops, and
  /// read only what the hand-off's bound let it get ahead by.
  @Test func closingStopsTheReadingThreadAtOnce() throws {
    let input = ndjson(20_000)
    let source = MemoryByteSource(input, chunk: 4_096)
    let ahead = ReadAhead(JSONRecordReader(source: source, layout: .lines))
    _ = try #require(try ahead.next())
    usleep(50_000)  // Room for the reading thread to fill the hand-off and wait.
    ahead.close()
    ahead.close()  // Idempotent.
    // What the reading thread did not take is still in the source: more than half of it (the
    // hand-off holds a few hundred records, the reader's buffer some more).
    var left = 0
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 8)
    defer { buffer.deallocate() }
    while case let count = try source.read(into: buffer), count > 0 { left += count }
    #expect(left > input.count / 2, "\(left) of \(input.count) bytes left")
  }

  /// The same run, read ahead or not: the same rows and the same report, but for timings.
  @Test func aRunReadAheadEndsAsARunThatDoesNot() throws {
    let scratch = try TemporaryDirectory()
    let input = try scratch.write("shipments.ndjson", String(decoding: ndjson(2_000), as: UTF8.self))
    var lenient = Policy.lenient
    lenient.maxRejects = 1_000
    lenient.maxRejectRate = 0.5
    func run(_ readsAhead: Bool) throws -> (RunReport, [String]) {
      let database = scratch.file("s-\(readsAhead).sqlite")
      var configuration = PipelineConfiguration(
        name: "shipments", input: input, format: .ndjson, policy: lenient, database: .sqlite(database))
      configuration.readsAhead = readsAhead
      let report = try Pipeline(dataset: ShipmentsDataset(), configuration: configuration).run()
      let statement = try SQLiteConnection(path: database).prepare(
        "SELECT s.id, s.mode, count(p.weight) FROM shipments s LEFT JOIN parcels p ON p.id = s.id GROUP BY s.id ORDER BY s.id"
      )
      var rows: [String] = []
      while try statement.step() { rows.append((0..<3).map { statement.columnText(Int32($0)) ?? "∅" }.joined(separator: "|")) }
      return (report, rows)
    }
    let (plain, plainRows) = try run(false)
    let (ahead, aheadRows) = try run(true)
    #expect(plain.status == .succeeded)
    #expect(aheadRows == plainRows && !plainRows.isEmpty)
    #expect(ahead.stages.map(\.recordsIn) == plain.stages.map(\.recordsIn))
    #expect(ahead.stages.map(\.recordsOut) == plain.stages.map(\.recordsOut))
    #expect(ahead.issueCounts == plain.issueCounts)
    #expect(ahead.issues.map(\.description) == plain.issues.map(\.description))
    #expect(ahead.stages.first { $0.stage == .read }.map { $0.seconds > 0 } == true)
  }
}
