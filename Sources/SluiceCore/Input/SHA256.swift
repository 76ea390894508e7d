internal import CSHA256

/// SHA-256 (FIPS 180-4), fed piece by piece as an input is read: what the input ledger
/// (`sluice_inputs`) records of every file a run loaded, so a later run can tell content it
/// already holds under any name.
///
/// Written here because none of the libraries Sluice may link exports it (zlib has CRC-32 and
/// Adler-32; SQLite's SHA-3 lives in its shell; libpq keeps its SHA-256 private). On a CPU with
/// the SHA extensions the blocks go through them (`CSHA256`, ~1 GB/s); elsewhere through the
/// Swift compression here (~160 MB/s). Both are checked against FIPS 180-4's examples and against
/// coreutils' `sha256sum` on real files (`SHA256Tests`).
package final class SHA256 {
  /// Whether this CPU has the SHA extensions the accelerated compression uses.
  package static let hasAcceleration = sluice_sha256_accelerated() != 0

  /// The digest's size in bytes.
  package static let digestSize = 32

  /// a … h, from FIPS 180-4's initial hash value.
  private let state = UnsafeMutablePointer<UInt32>.allocate(capacity: 8)
  /// Whether blocks go through the CPU's SHA extensions.
  private let accelerated: Bool
  /// A block's bytes not yet compressed (fewer than 64).
  private let pending = UnsafeMutableRawBufferPointer.allocate(byteCount: 64, alignment: 8)
  private var pendingCount = 0
  /// The message schedule of the block being compressed.
  private let schedule = UnsafeMutablePointer<UInt32>.allocate(capacity: 64)
  /// Bytes fed so far.
  package private(set) var byteCount: Int64 = 0
  private var finished = false

  /// A hasher; `accelerated` false keeps to the Swift compression (the tests compare both).
  package init(accelerated: Bool = SHA256.hasAcceleration) {
    self.accelerated = accelerated && Self.hasAcceleration
    let initial: [UInt32] = [
      0x6a09_e667, 0xbb67_ae85, 0x3c6e_f372, 0xa54f_f53a, 0x510e_527f, 0x9b05_688c, 0x1f83_d9ab, 0x5be0_cd19,
    ]
    for (index, word) in initial.enumerated() { state[index] = word }
  }

  deinit {
    pending.deallocate()
    schedule.deallocate()
    state.deallocate()
  }

  /// Feeds `bytes` after everything fed before.
  package func update(_ bytes: UnsafeRawBufferPointer) {
    precondition(!finished, "SHA256 fed after its digest was taken")
    guard var base = bytes.baseAddress, bytes.count > 0 else { return }
    var count = bytes.count
    byteCount += Int64(count)
    if pendingCount > 0 {
      let taken = min(64 - pendingCount, count)
      (pending.baseAddress! + pendingCount).copyMemory(from: base, byteCount: taken)
      pendingCount += taken
      base += taken
      count -= taken
      guard pendingCount == 64 else { return }
      compress(UnsafeRawPointer(pending.baseAddress!), blocks: 1)
      pendingCount = 0
    }
    let blocks = count / 64
    if blocks > 0 { compress(base, blocks: blocks) }
    let rest = count - blocks * 64
    if rest > 0 {
      pending.baseAddress!.copyMemory(from: base + blocks * 64, byteCount: rest)
      pendingCount = rest
    }
  }

  package func update(_ bytes: some Sequence<UInt8>) {
    let array = Array(bytes)
    array.withUnsafeBytes { update($0) }
  }

  /// Pads the message and returns its 32-byte digest; the hasher takes nothing more after it.
  package func finish() -> [UInt8] {
    precondition(!finished, "SHA256's digest was already taken")
    let bitLength = UInt64(byteCount) &* 8
    var padding = [UInt8](repeating: 0, count: (pendingCount < 56 ? 56 : 120) - pendingCount + 8)
    padding[0] = 0x80
    for index in 0..<8 { padding[padding.count - 1 - index] = UInt8(truncatingIfNeeded: bitLength >> (8 * index)) }
    let counted = byteCount
    padding.withUnsafeBytes { update($0) }
    byteCount = counted
    finished = true
    let words = (0..<8).map { state[$0] }
    return words.flatMap { word in (0..<4).map { UInt8(truncatingIfNeeded: word >> (24 - 8 * $0)) } }
  }

  /// The digest of what was fed so far, and the hasher goes on taking more: a file written bit
  /// by bit (a checkpointed run's rejects) is summed up at each checkpoint without being read
  /// again from its start.
  package func digestSoFar() -> [UInt8] {
    let copy = SHA256(accelerated: accelerated)
    copy.state.update(from: state, count: 8)
    copy.pending.copyMemory(from: UnsafeRawBufferPointer(pending))
    copy.pendingCount = pendingCount
    copy.byteCount = byteCount
    return copy.finish()
  }

  /// The digest of `bytes` as lowercase hexadecimal, as `sha256sum` prints it.
  package static func hex(of bytes: some Sequence<UInt8>) -> String {
    let hasher = SHA256()
    hasher.update(bytes)
    return hex(hasher.finish())
  }

  /// Bytes as lowercase hexadecimal.
  package static func hex(_ digest: [UInt8]) -> String {
    let digits = Array("0123456789abcdef".utf8)
    var text: [UInt8] = []
    text.reserveCapacity(digest.count * 2)
    for byte in digest {
      text.append(digits[Int(byte >> 4)])
      text.append(digits[Int(byte & 0x0f)])
    }
    return String(decoding: text, as: UTF8.self)
  }

  @inline(__always)
  private static func rotate(_ x: UInt32, _ n: UInt32) -> UInt32 { (x &>> n) | (x &<< (32 &- n)) }

  /// Compresses `blocks` consecutive 64-byte blocks at `base` into the state.
  private func compress(_ base: UnsafeRawPointer, blocks: Int) {
    if accelerated {
      sluice_sha256_blocks(state, base.assumingMemoryBound(to: UInt8.self), blocks)
      return
    }
    let w = schedule
    Self.roundConstants.withUnsafeBufferPointer { constants in
      let k = constants.baseAddress!
      var (h0, h1, h2, h3) = (state[0], state[1], state[2], state[3])
      var (h4, h5, h6, h7) = (state[4], state[5], state[6], state[7])
      for block in 0..<blocks {
        let bytes = base + block * 64
        for i in 0..<16 {
          w[i] = UInt32(bigEndian: bytes.loadUnaligned(fromByteOffset: i * 4, as: UInt32.self))
        }
        for i in 16..<64 {
          let x = w[i - 15]
          let y = w[i - 2]
          let s0 = Self.rotate(x, 7) ^ Self.rotate(x, 18) ^ (x &>> 3)
          let s1 = Self.rotate(y, 17) ^ Self.rotate(y, 19) ^ (y &>> 10)
          w[i] = w[i - 16] &+ s0 &+ w[i - 7] &+ s1
        }
        var a = h0
        var b = h1
        var c = h2
        var d = h3
        var e = h4
        var f = h5
        var g = h6
        var h = h7
        for i in 0..<64 {
          let s1 = Self.rotate(e, 6) ^ Self.rotate(e, 11) ^ Self.rotate(e, 25)
          let choice = (e & f) ^ (~e & g)
          let t1 = h &+ s1 &+ choice &+ k[i] &+ w[i]
          let s0 = Self.rotate(a, 2) ^ Self.rotate(a, 13) ^ Self.rotate(a, 22)
          let majority = (a & b) ^ (a & c) ^ (b & c)
          h = g
          g = f
          f = e
          e = d &+ t1
          d = c
          c = b
          b = a
          a = t1 &+ s0 &+ majority
        }
        h0 = h0 &+ a
        h1 = h1 &+ b
        h2 = h2 &+ c
        h3 = h3 &+ d
        h4 = h4 &+ e
        h5 = h5 &+ f
        h6 = h6 &+ g
        h7 = h7 &+ h
      }
      for (index, word) in [h0, h1, h2, h3, h4, h5, h6, h7].enumerated() { state[index] = word }
    }
  }

  /// The first 32 bits of the fractional parts of the cube roots of the first 64 primes.
  private static let roundConstants: [UInt32] = [
    0x428a_2f98, 0x7137_4491, 0xb5c0_fbcf, 0xe9b5_dba5, 0x3956_c25b, 0x59f1_11f1, 0x923f_82a4, 0xab1c_5ed5,
    0xd807_aa98, 0x1283_5b01, 0x2431_85be, 0x550c_7dc3, 0x72be_5d74, 0x80de_b1fe, 0x9bdc_06a7, 0xc19b_f174,
    0xe49b_69c1, 0xefbe_4786, 0x0fc1_9dc6, 0x240c_a1cc, 0x2de9_2c6f, 0x4a74_84aa, 0x5cb0_a9dc, 0x76f9_88da,
    0x983e_5152, 0xa831_c66d, 0xb003_27c8, 0xbf59_7fc7, 0xc6e0_0bf3, 0xd5a7_9147, 0x06ca_6351, 0x1429_2967,
    0x27b7_0a85, 0x2e1b_2138, 0x4d2c_6dfc, 0x5338_0d13, 0x650a_7354, 0x766a_0abb, 0x81c2_c92e, 0x9272_2c85,
    0xa2bf_e8a1, 0xa81a_664b, 0xc24b_8b70, 0xc76c_51a3, 0xd192_e819, 0xd699_0624, 0xf40e_3585, 0x106a_a070,
    0x19a4_c116, 0x1e37_6c08, 0x2748_774c, 0x34b0_bcb5, 0x391c_0cb3, 0x4ed8_aa4a, 0x5b9c_ca4f, 0x682e_6ff3,
    0x748f_82ee, 0x78a5_636f, 0x84c8_7814, 0x8cc7_0208, 0x90be_fffa, 0xa450_6ceb, 0xbef9_a3f7, 0xc671_78f2,
  ]
}
