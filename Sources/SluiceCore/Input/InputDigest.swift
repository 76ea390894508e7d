import Foundation
import Glibc

/// What a file's bytes hash to: the SHA-256 of all of them (what identifies content in the
/// input ledger) and of the first `headSize` of them (the cheap pre-check that rules most files
/// out before the whole is hashed).
package struct InputDigest: Sendable, Hashable, Codable {
  /// How many leading bytes `headSHA256` covers.
  package static let headSize: Int64 = 64 * 1024

  package var sha256: String
  package var headSHA256: String
  /// Bytes hashed: the file's size as read.
  package var bytes: Int64

  /// Hashes the whole file at `path`: the one full read an incremental run may spend to decide
  /// about a file it did not load.
  package static func of(file path: String) throws -> InputDigest {
    let file = try FileSource(path: path, digesting: true)
    guard let digest = try file.finishDigest() else { preconditionFailure("a digesting source has a digest") }
    return digest
  }

  /// The SHA-256 of the file's first `headSize` bytes, read without reading the rest.
  package static func head(of path: String) throws -> String {
    let file = try FileSource(path: path)
    let hasher = SHA256()
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: Int(headSize), alignment: 16)
    defer { buffer.deallocate() }
    var filled = 0
    while filled < buffer.count {
      let n = try file.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[filled...]))
      if n == 0 { break }
      filled += n
    }
    hasher.update(UnsafeRawBufferPointer(rebasing: buffer[0..<filled]))
    return SHA256.hex(hasher.finish())
  }
}

/// Who a regular file is, as `stat` tells: device, inode, size, and modification and change
/// times to the nanosecond.
///
/// A file whose fingerprint is the one the ledger recorded is the file the ledger hashed: no
/// write, truncation, rename over it or `touch` leaves the change time as it was (only the
/// kernel sets it, to the current time, on every change), which is how git's index and rsync
/// tell a file unchanged without reading it. Anything else — a copy, a restored backup, a file
/// rewritten with its old modification time — differs in inode or change time, and is hashed.
package struct FileFingerprint: Sendable, Hashable, Codable {
  package var device: UInt64
  package var inode: UInt64
  package var size: Int64
  package var modifiedSeconds: Int64
  package var modifiedNanoseconds: Int64
  package var changedSeconds: Int64
  package var changedNanoseconds: Int64

  init(_ info: stat) {
    device = UInt64(info.st_dev)
    inode = UInt64(info.st_ino)
    size = Int64(info.st_size)
    modifiedSeconds = Int64(info.st_mtim.tv_sec)
    modifiedNanoseconds = Int64(info.st_mtim.tv_nsec)
    changedSeconds = Int64(info.st_ctim.tv_sec)
    changedNanoseconds = Int64(info.st_ctim.tv_nsec)
  }

  /// The fingerprint of the regular file at `path` now; nil for anything else or a file that
  /// cannot be looked at.
  package init?(path: String) {
    var info = stat()
    guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
    self.init(info)
  }

  /// When the file was last modified.
  package var modified: Date {
    Date(timeIntervalSince1970: Double(modifiedSeconds) + Double(modifiedNanoseconds) / 1e9)
  }

  /// The form the ledger stores: `device:inode:size:mtime:ctime`, times as seconds.nanoseconds.
  package var text: String {
    func time(_ seconds: Int64, _ nanoseconds: Int64) -> String {
      let fraction = String(nanoseconds)
      return "\(seconds).\(String(repeating: "0", count: max(0, 9 - fraction.count)))\(fraction)"
    }
    return
      "\(device):\(inode):\(size):\(time(modifiedSeconds, modifiedNanoseconds)):\(time(changedSeconds, changedNanoseconds))"
  }
}
