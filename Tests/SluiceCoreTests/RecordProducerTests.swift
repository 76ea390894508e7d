import Foundation
import SluiceSQLite
import Testing

@_spi(Internals) @testable import SluiceCore

/// The decoding side of a run: how it batches records for the hand-off.
@Suite("Record producer batches by count and by bytes")
struct RecordProducerTests {
  /// NDJSON shipments of about `size` bytes each.
  private func shipments(_ count: Int, size: Int) -> [UInt8] {
    var text = ""
    for index in 0..<count {
      let head = #"{"id": "s\#(index)", "mode": "air", "parcels": ["#
      let parcels = Array(repeating: "1", count: max((size - head.count - 2) / 2, 1)).joined(separator: ",")
      text += head + parcels + "]}\n"
    }
    return Array(text.utf8)
  }

  /// Runs a producer over `input` and returns the batches the consumer took.
  private func batches(
    _ input: [UInt8], handOff: HandOff<PipelineItem>, batchBytes: Int,
    keepsRawRecords: Bool = true
  ) -> [[PipelineItem]] {
    let reader = JSONRecordReader(source: MemoryByteSource(input, chunk: 4_096), layout: .lines)
    let producer = RecordProducer(
      dataset: ShipmentsDataset(), reader: reader, policy: .strict, handOff: handOff, batchSize: 256,
      batchBytes: batchBytes, keepsRawRecords: keepsRawRecords)
    producer.start()
    var taken: [[PipelineItem]] = []
    while let batch = handOff.take() { taken.append(batch) }
    producer.wait()
    return taken
  }

  private func ids(_ batches: [[PipelineItem]]) -> [String] {
    batches.joined().compactMap { item in
      if case .load(let rows) = item.verdict, case .text(let id) = rows.value(0, 0) { return id }
      return nil
    }
  }

  @Test func batchIsHandedOverOnceItsBytesReachTheThreshold() {
    let handOff = HandOff<PipelineItem>(maxBatches: 8, maxBytes: 1 << 30)
    let taken = batches(shipments(20, size: 3_000), handOff: handOff, batchBytes: 8_000)
    // 3,000 bytes and the item overhead each: the third record passes 8,000.
    #expect(taken.map(\.count) == [3, 3, 3, 3, 3, 3, 2])
    #expect(ids(taken) == (0..<20).map { "s\($0)" })
  }

  /// A consumer that hands each batch back (`HandOff.recycle`) gets its rows back refilled by
  /// later records (`RecordRows.reuse`): every record's values are its own, in order.
  @Test func rowsHandedBackAreRefilledWithTheNextRecordsValues() {
    let handOff = HandOff<PipelineItem>(maxBatches: 2, maxBytes: 1 << 30)
    let reader = JSONRecordReader(source: MemoryByteSource(shipments(3_000, size: 60), chunk: 4_096), layout: .lines)
    let producer = RecordProducer(
      dataset: ShipmentsDataset(), reader: reader, policy: .strict, handOff: handOff, batchSize: 16,
      batchBytes: 1 << 20)
    producer.start()
    var seen: [String] = []
    var wrongRows: [String] = []
    while let batch = handOff.take() {
      for item in batch {
        guard case .load(let rows) = item.verdict, case .text(let id) = rows.value(0, 0) else { continue }
        seen.append(id)
        // The shipment and one row per parcel, each parcel weighing 1: nothing of another record.
        let parcels = (1..<rows.count).map { rows.value($0, 0) }
        if rows.count < 2 || parcels.contains(where: { $0 != .integer(1) }) { wrongRows.append(id) }
      }
      handOff.recycle(batch)
    }
    producer.wait()
    #expect(seen == (0..<3_000).map { "s\($0)" })
    #expect(wrongRows.isEmpty)
    // The producer's own stages were timed, and only those.
    #expect(Set(producer.seconds.keys) == [.read, .decode, .validate, .map])
    #expect(producer.seconds.values.allSatisfy { $0 > 0 })
  }

  @Test func recordsBiggerThanTheByteBudgetStillGetThrough() {
    // Each record alone outweighs the whole hand-off: each travels alone, none deadlocks.
    let handOff = HandOff<PipelineItem>(maxBatches: 8, maxBytes: 1_000)
    let taken = batches(shipments(5, size: 20_000), handOff: handOff, batchBytes: 500)
    #expect(taken.map(\.count) == [1, 1, 1, 1, 1])
    #expect(ids(taken) == (0..<5).map { "s\($0)" })
    #expect(handOff.inFlight.sharedPeak <= 1_000)
  }

  @Test func rawBytesTravelOnlyWhenARejectsFileWantsThem() {
    let input =
      Array(#"{"id": "a", "mode": "air", "parcels": [1]}"#.utf8) + [0x0A]
      + Array(#"{"id": "b", "mode": "rail", "parcels": [2]}"#.utf8) + [0x0A]
    for keeps in [true, false] {
      let handOff = HandOff<PipelineItem>(maxBatches: 8, maxBytes: 1 << 20)
      let items = Array(batches(input, handOff: handOff, batchBytes: 1 << 20, keepsRawRecords: keeps).joined())
      #expect(items.count == 2)
      guard items.count == 2 else { continue }
      if case .load = items[0].verdict {
        #expect((items[0].raw == nil) == !keeps)
        #expect(items[0].location?.line == 1)
      } else {
        Issue.record("the first record should pass")
      }
      if case .rejected(let stage, _) = items[1].verdict {
        #expect(stage == .map)
        #expect((items[1].raw == nil) == !keeps)
        #expect(items[1].location?.line == 2)
      } else {
        Issue.record("the second record should be rejected by the mapper")
      }
    }
  }
}
