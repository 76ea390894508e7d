internal import CLibCrypto

/// SHA-256 (FIPS 180-4), fed piece by piece as an input is read: what the input ledger
/// (`sluice_inputs`) records of every file a run loaded, so a later run can tell content it
/// already holds under any name.
///
/// OpenSSL's libcrypto does the hashing, through its EVP interface: it picks the block function
/// for the CPU at run time (the SHA extensions, AVX2, …), and measured 1.5× the speed of the
/// SHA-NI code Sluice had written by hand before (`Benchmarks/RESULTS.md`). Checked against
/// FIPS 180-4's examples and against coreutils' `sha256sum` on real files (`SHA256Tests`).
package final class SHA256 {
  /// The digest's size in bytes.
  package static let digestSize = 32

  private let context: OpaquePointer
  /// Bytes fed so far.
  package private(set) var byteCount: Int64 = 0
  private var finished = false

  package init() {
    // Only a failed allocation makes either call fail: nothing a run could go on from.
    guard let context = EVP_MD_CTX_new(), EVP_DigestInit_ex(context, EVP_sha256(), nil) == 1 else {
      fatalError("libcrypto could not set up SHA-256")
    }
    self.context = context
  }

  deinit { EVP_MD_CTX_free(context) }

  /// Feeds `bytes` after everything fed before.
  package func update(_ bytes: UnsafeRawBufferPointer) {
    precondition(!finished, "SHA256 fed after its digest was taken")
    guard let base = bytes.baseAddress, bytes.count > 0 else { return }
    byteCount += Int64(bytes.count)
    let fed = EVP_DigestUpdate(context, base, bytes.count)
    precondition(fed == 1, "libcrypto's SHA-256 update failed")
  }

  package func update(_ bytes: some Sequence<UInt8>) {
    let array = Array(bytes)
    array.withUnsafeBytes { update($0) }
  }

  /// Pads the message and returns its 32-byte digest; the hasher takes nothing more after it.
  package func finish() -> [UInt8] {
    precondition(!finished, "SHA256's digest was already taken")
    finished = true
    return Self.finish(context)
  }

  /// The digest of what was fed so far, and the hasher goes on taking more: a file written bit
  /// by bit (a checkpointed run's rejects) is summed up at each checkpoint without being read
  /// again from its start.
  package func digestSoFar() -> [UInt8] {
    precondition(!finished, "SHA256's digest was already taken")
    guard let copy = EVP_MD_CTX_new() else { fatalError("libcrypto could not copy a SHA-256 state") }
    defer { EVP_MD_CTX_free(copy) }
    let copied = EVP_MD_CTX_copy_ex(copy, context)
    precondition(copied == 1, "libcrypto could not copy a SHA-256 state")
    return Self.finish(copy)
  }

  private static func finish(_ context: OpaquePointer) -> [UInt8] {
    var digest = [UInt8](repeating: 0, count: digestSize)
    var length: UInt32 = 0
    let done = digest.withUnsafeMutableBufferPointer { EVP_DigestFinal_ex(context, $0.baseAddress, &length) }
    precondition(done == 1 && length == UInt32(digestSize), "libcrypto's SHA-256 final failed")
    return digest
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
}
