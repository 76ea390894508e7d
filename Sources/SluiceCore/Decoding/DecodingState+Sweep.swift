import Foundation

/// After a JSON (or CSV) record is decoded: the keys the DTO never asked for, and keys given twice.
/// (XML's sweep is in DecodingState+XML.swift.)
extension DecodingState {
  /// After a decode: keys of opened objects that were never asked for are unknown fields, and
  /// a key present twice in one object rejects the record (which copy a decoder reads is
  /// arbitrary, so neither is trusted), as does a key with an unpaired surrogate escape.
  /// Subtrees of containers the DTO never opened are skipped whole: nothing in them was read.
  func sweepKeys(into diagnostics: inout DecodeDiagnostics, reportUnknown: Bool) throws(RecordDecodingError) {
    if isXML {
      try sweepXMLKeys(into: &diagnostics, reportUnknown: reportUnknown)
      return
    }
    var index = 0
    let nodes = tape.nodes
    while index < nodes.count {
      let node = nodes[index]
      guard node.isContainer else {
        index += 1
        continue
      }
      guard node.isOpened else {
        index = node.payload
        continue
      }
      guard node.tag == RecordTape.Node.object else {
        index += 1
        continue
      }
      let end = node.payload
      var k = index + 1
      while k < end {
        if nodes[k].hasEscapes, JSONString.decode(tape.bytes[range(k)]) == nil {
          throw RecordDecodingError(
            code: .invalidValue, path: FieldPath.render(codingPath(to: index)),
            message: "invalid \\u escape in a key (an unpaired surrogate)", byteOffset: offset(of: k))
        }
        k = tape.end(of: k + 1)
      }
      if let duplicate = duplicateKey(in: index) {
        throw RecordDecodingError(
          code: .duplicateKey, path: FieldPath.render(codingPath(to: duplicate)),
          message: "the key appears more than once in the object", byteOffset: offset(of: duplicate))
      }
      // The object's path is found once, for its first unknown key; each key's is that and the key.
      var objectPath: String?
      k = index + 1
      while k < end {
        if reportUnknown && !nodes[k].isAccessed {
          let prefix = objectPath ?? FieldPath.render(codingPath(to: index))
          objectPath = prefix
          diagnostics.noteUnknownField {
            .init(
              code: .unknownField, path: FieldPath.render(prefix: prefix, TapeKey(stringValue: tape.keyString(k))),
              message: "not part of the contract", byteOffset: offset(of: k))
          }
        }
        k = tape.end(of: k + 1)
      }
      index += 1
    }
  }

  /// The first key of an object that repeats an earlier one, asked for or not: a DTO that asks
  /// for a key more than once (an optional `Int` does: contains, decodeNil, decode) can be handed
  /// both copies. Keys are compared by their unescaped UTF-8, as JSON compares names, so NFC and
  /// NFD spellings are different keys.
  fileprivate func duplicateKey(in object: Int) -> Int? {
    // A CSV row's keys are its header's names, found unique once (`CSVHeader`): a set of a
    // 200,000-column row's keys per row would cost 14 MiB for nothing (issue 55).
    guard tape.origin != .csv else { return nil }
    let first = object + 1
    let end = tape.end(of: object)
    guard first < end else { return nil }
    // Pairwise while the object is small; past 32 keys, a set of the keys instead.
    var k = tape.end(of: first + 1)
    var keys = 1
    while k < end {
      keys += 1
      if keys > 32 { return duplicateKeyBySet(first: first, end: end) }
      var earlier = first
      while earlier < k {
        if sameKey(earlier, k) { return k }
        earlier = tape.end(of: earlier + 1)
      }
      k = tape.end(of: k + 1)
    }
    return nil
  }

  /// Past 32 keys: an open-addressing table of the keys' node indices, hashed by their unescaped
  /// bytes and compared in place (`sameKey`) — 8 bytes a key at most, where a `Set` of the keys'
  /// bytes took about 70 (an NDJSON record of a million unknown keys: 70 MiB, issue 55).
  fileprivate func duplicateKeyBySet(first: Int, end: Int) -> Int? {
    var count = 0
    var k = first
    while k < end {
      count += 1
      k = tape.end(of: k + 1)
    }
    var capacity = 64
    while capacity < count * 2 { capacity <<= 1 }
    let empty = UInt32.max
    var slots = [UInt32](repeating: empty, count: capacity)
    let mask = capacity - 1
    k = first
    while k < end {
      var slot = keyHash(k) & mask
      while slots[slot] != empty {
        if sameKey(Int(slots[slot]), k) { return k }
        slot = (slot + 1) & mask
      }
      slots[slot] = UInt32(truncatingIfNeeded: k)
      k = tape.end(of: k + 1)
    }
    return nil
  }

  /// FNV-1a of a key's unescaped UTF-8: what `sameKey` compares, so equal keys hash alike
  /// whether or not they were written with escapes.
  private func keyHash(_ key: Int) -> Int {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    func mix(_ byte: UInt8) {
      hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
    }
    let node = tape.nodes[key]
    if node.hasEscapes {
      for byte in tape.keyString(key).utf8 { mix(byte) }
    } else {
      tape.bytes.withUnsafeBufferPointer { bytes in
        var i = node.payload
        while i < bytes.count, bytes[i] != UInt8(ascii: "\"") {
          mix(bytes[i])
          i += 1
        }
      }
    }
    return Int(truncatingIfNeeded: hash ^ (hash >> 29))
  }

  /// Whether two keys are the same. Unescaped keys' texts run to their first quote, so they
  /// are equal when their bytes agree up to and including a quote, compared in one pass with no
  /// search for either end first; escaped ones (a replayed XML record's `"qt\u0079"`) are
  /// compared unescaped.
  func sameKey(_ a: Int, _ b: Int) -> Bool {
    let first = tape.nodes[a]
    let second = tape.nodes[b]
    if first.hasEscapes || second.hasEscapes {
      return tape.keyString(a).utf8.elementsEqual(tape.keyString(b).utf8)
    }
    return tape.bytes.withUnsafeBufferPointer { bytes in
      var i = first.payload
      var j = second.payload
      while i < bytes.count && j < bytes.count {
        let byte = bytes[i]
        if byte != bytes[j] { return false }
        if byte == UInt8(ascii: "\"") { return true }
        i += 1
        j += 1
      }
      return false
    }
  }
}
