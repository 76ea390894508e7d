/// A UTF-16 input (either byte order) read as UTF-8, so that the CSV scanner, which looks for
/// ASCII delimiters, quotes and line breaks, reads it unchanged; memory stays one fixed buffer.
///
/// Every `read` returns whole characters, so the file offset of each UTF-8 byte it returned can
/// be told from `chunkStart` and the bytes before it in the chunk (`width(of:)`): a character of
/// one to three UTF-8 bytes was one code unit (2 bytes) of the file, one of four bytes was a
/// surrogate pair (4 bytes). The reader counts that way, so its offsets are the file's own.
///
/// Nothing malformed becomes text: an unpaired surrogate is written as the byte 0xFF and a last
/// byte without its pair (an odd-length file) as 0xFE — bytes UTF-8 never holds, which the
/// reader's check of each field reports as an issue at the field, with its line and column.
package final class CSVUTF16Source: ByteSource {
  /// What an unpaired surrogate (2 bytes of the file) becomes.
  static let unpairedSurrogate: UInt8 = 0xFF
  /// What a last byte without its pair (1 byte of the file) becomes.
  static let truncatedUnit: UInt8 = 0xFE

  private let source: any ByteSource
  private let bigEndian: Bool
  private let input: UnsafeMutableRawBufferPointer
  private var count = 0
  private var position = 0
  private var ended = false
  /// The file offset of the next byte to decode.
  private var offset: Int64
  /// The file offset of the first character the last `read` returned.
  private(set) var chunkStart: Int64

  /// Decodes `source`, whose first bytes, already read, are `head` (after the byte order mark),
  /// which starts at `offset` of the file.
  package init(
    source: any ByteSource, bigEndian: Bool, head: ArraySlice<UInt8>, offset: Int64, bufferSize: Int = 1 << 15
  ) {
    self.source = source
    self.bigEndian = bigEndian
    self.offset = offset
    chunkStart = offset
    input = .allocate(byteCount: max(bufferSize, head.count + 4), alignment: 16)
    for (index, byte) in head.enumerated() { input[index] = byte }
    count = head.count
  }

  deinit { input.deallocate() }

  /// How many bytes of the file the UTF-8 byte `byte` stands for, counted at its character's
  /// first byte.
  @inline(__always)
  static func width(of byte: UInt8) -> Int64 {
    switch byte {
    case 0x80...0xBF: 0
    case 0xF0...0xF4: 4
    case truncatedUnit: 1
    default: 2
    }
  }

  package func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
    chunkStart = offset
    var written = 0
    let (highIndex, lowIndex) = bigEndian ? (0, 1) : (1, 0)
    while written < buffer.count {
      if count - position < 4 && !ended {
        try refill()
        continue
      }
      // A run of ASCII, the common case: one byte out per code unit, no look-ahead needed.
      let runStart = position
      while position + 1 < count && written < buffer.count && input[position + highIndex] == 0
        && input[position + lowIndex] < 0x80
      {
        buffer[written] = input[position + lowIndex]
        written += 1
        position += 2
      }
      offset += Int64(position - runStart)
      if written == buffer.count { break }
      if count - position < 4 && !ended { continue }
      let available = count - position
      if available == 0 { break }
      guard available >= 2 else {
        guard written < buffer.count else { break }
        buffer[written] = Self.truncatedUnit
        written += 1
        position += 1
        offset += 1
        continue
      }
      let unit = self.unit(at: position)
      var scalar = UInt32(unit)
      var consumed = 2
      switch unit {
      case 0xD800..<0xDC00:
        let low = available >= 4 ? self.unit(at: position + 2) : 0
        if (0xDC00..<0xE000).contains(low) {
          scalar = 0x10000 + ((UInt32(unit) - 0xD800) << 10) + (UInt32(low) - 0xDC00)
          consumed = 4
        } else {
          scalar = UInt32.max
        }
      case 0xDC00..<0xE000:
        scalar = UInt32.max
      default:
        break
      }
      let length = scalar == UInt32.max ? 1 : scalar < 0x80 ? 1 : scalar < 0x800 ? 2 : scalar < 0x10000 ? 3 : 4
      guard buffer.count - written >= length else { break }
      switch length {
      case 1:
        buffer[written] = scalar == UInt32.max ? Self.unpairedSurrogate : UInt8(scalar)
      case 2:
        buffer[written] = UInt8(0xC0 | (scalar >> 6))
        buffer[written + 1] = UInt8(0x80 | (scalar & 0x3F))
      case 3:
        buffer[written] = UInt8(0xE0 | (scalar >> 12))
        buffer[written + 1] = UInt8(0x80 | ((scalar >> 6) & 0x3F))
        buffer[written + 2] = UInt8(0x80 | (scalar & 0x3F))
      default:
        buffer[written] = UInt8(0xF0 | (scalar >> 18))
        buffer[written + 1] = UInt8(0x80 | ((scalar >> 12) & 0x3F))
        buffer[written + 2] = UInt8(0x80 | ((scalar >> 6) & 0x3F))
        buffer[written + 3] = UInt8(0x80 | (scalar & 0x3F))
      }
      written += length
      position += consumed
      offset += Int64(consumed)
    }
    return written
  }

  @inline(__always)
  private func unit(at index: Int) -> UInt16 {
    let first = UInt16(input[index])
    let second = UInt16(input[index + 1])
    return bigEndian ? first << 8 | second : second << 8 | first
  }

  /// Moves the undecoded bytes to the front and reads more after them.
  private func refill() throws {
    let rest = count - position
    if position > 0 {
      for index in 0..<rest { input[index] = input[position + index] }
      position = 0
      count = rest
    }
    let read = try source.read(into: UnsafeMutableRawBufferPointer(rebasing: input[count...]))
    if read == 0 { ended = true }
    count += read
  }

  /// How many characters the UTF-8 bytes before `index` hold.
  static func characters(_ bytes: UnsafePointer<UInt8>, before index: Int) -> Int {
    (0..<index).reduce(0) { $0 + ((0x80...0xBF).contains(bytes[$1]) ? 0 : 1) }
  }

  /// Text converted for display (inspect's sniffing): UTF-8 already, but for the bytes that
  /// stand for malformed UTF-16, each of which becomes U+FFFD. A rejects file keeps those bytes
  /// instead (escaped), so that replay never loads U+FFFD.
  package static func replacingMalformed(_ bytes: [UInt8]) -> [UInt8] {
    guard bytes.contains(where: { $0 == unpairedSurrogate || $0 == truncatedUnit }) else { return bytes }
    var output: [UInt8] = []
    output.reserveCapacity(bytes.count + 8)
    for byte in bytes {
      if byte == unpairedSurrogate || byte == truncatedUnit {
        output.append(contentsOf: [0xEF, 0xBF, 0xBD])
      } else {
        output.append(byte)
      }
    }
    return output
  }
}

extension CSVUTF16Source {
  /// How the first bytes of an input and its declared encoding say to read it: as UTF-8 (after
  /// skipping `skip` bytes of a byte order mark), as a single-byte encoding, or as UTF-16 of a byte
  /// order after `skip` bytes; or why not at all.
  enum Start: Equatable {
    case bytes(skip: Int)
    case utf16(bigEndian: Bool, skip: Int)
  }

  static func start(head: [UInt8], encoding: CSVEncoding?) -> Result<Start, StartProblem> {
    let littleMark = head.starts(with: [0xFF, 0xFE])
    let bigMark = head.starts(with: [0xFE, 0xFF])
    if head.starts(with: [0xFF, 0xFE, 0, 0]) || head.starts(with: [0, 0, 0xFE, 0xFF]) {
      return .failure(StartProblem(message: "the input looks like UTF-32; convert it with iconv -f UTF-32 -t UTF-8"))
    }
    guard let encoding else {
      if head.starts(with: [0xEF, 0xBB, 0xBF]) { return .success(.bytes(skip: 3)) }
      if littleMark || bigMark { return .success(.utf16(bigEndian: bigMark, skip: 2)) }
      if head.count >= 2 && (head[0] == 0 || head[1] == 0) {
        return .failure(
          StartProblem(
            message: "the input looks like UTF-16 without a byte order mark; declare its encoding "
              + "(utf-16le or utf-16be)"))
      }
      return .success(.bytes(skip: 0))
    }
    if encoding.utf16 != nil && head.starts(with: [0xEF, 0xBB, 0xBF]) {
      return .failure(
        StartProblem(message: "the input starts with a UTF-8 byte order mark, but its encoding is \(encoding.name)"))
    }
    switch encoding.utf16 {
    case nil:
      if littleMark || bigMark {
        return .failure(
          StartProblem(message: "the input starts with a UTF-16 byte order mark, but its encoding is \(encoding.name)"))
      }
      return .success(.bytes(skip: 0))
    case .byMark:
      return .success(.utf16(bigEndian: !littleMark, skip: littleMark || bigMark ? 2 : 0))
    case .littleEndian:
      if bigMark {
        return .failure(
          StartProblem(message: "the input starts with a big-endian byte order mark, not \(encoding.name)"))
      }
      return .success(.utf16(bigEndian: false, skip: littleMark ? 2 : 0))
    case .bigEndian:
      if littleMark {
        return .failure(
          StartProblem(message: "the input starts with a little-endian byte order mark, not \(encoding.name)"))
      }
      return .success(.utf16(bigEndian: true, skip: bigMark ? 2 : 0))
    }
  }

  struct StartProblem: Error, Equatable {
    var message: String
  }
}
