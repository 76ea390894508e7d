import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// A file Sluice writes for the user — the JSON report, the JUnit XML, the rejects — written so
/// that nobody ever sees half of it and a stream is never replaced by a file.
///
/// A regular file, or a path that does not exist yet, is written to a temporary file in the
/// same directory and renamed over the target by `publish()`: the old file stays whole until the
/// new one is complete and synced. Symbolic links are followed first, so a link keeps pointing
/// where it did and its target is what gets replaced. Anything else — a FIFO, a character device
/// such as `/dev/stdout`, a socket — is opened once and written in place; it cannot be staged, so
/// what goes to it is final when it is written. Errors name the path and the operating system's
/// reason in words, never an error domain.
///
/// Modes do not follow a permissive umask: a file that holds record values (`isPrivate`: the
/// rejects, which `replay` loads) is 0600; any other is 0644 under the umask, or the mode of the
/// file it replaces, never writable by the group or others; the temporary file is 0600 until it
/// is published, and a folder made for an output 0755 under the umask. A symbolic link that
/// another user may have planted in a shared sticky folder (`/tmp`) is not followed
/// (`plantedLink`).
package final class OutputFile {
  /// The path as the user gave it, for messages.
  public let path: String
  /// What the file is, for messages: `report`, `JUnit file`, `rejects file`.
  public let purpose: String
  /// True for FIFOs, devices and sockets: written in place, nothing to rename.
  public let isStream: Bool
  /// Where the content ends up: the path with symbolic links resolved.
  private let target: String
  /// The mode the file gets when it is published (regular files only).
  private let mode: mode_t
  /// The temporary file beside `target` (regular files only).
  private let temporary: String?
  private var descriptor: Int32
  private var buffer: [UInt8] = []
  private var isClosed = false
  private var isPublished = false
  /// The first write that failed: bytes were lost, so the file must never be published as
  /// complete.
  private var failure: OutputError?
  /// Bytes handed to `write`, buffered or not.
  public private(set) var byteCount = 0
  /// For a private spool: the directory of its own it lives in, removed with it.
  private var privateDirectory: String?

  /// Buffered bytes are written out once they reach this size.
  static let bufferLimit = 1 << 20

  /// Opens `path` for writing: creates missing parent directories and, for a regular file, its
  /// temporary sibling. Throws `OutputError` with kind `.cannotCreate` when it cannot.
  ///
  /// A FIFO is opened only once a process reads it: Sluice waits up to `readerWait` seconds
  /// for one (the reader of `sluice run … --report fifo & cat fifo` may start a moment later),
  /// then gives up rather than block a nightly job forever before it has even started.
  /// `isPrivate`: the file holds record values, and only its owner may read it (0600).
  public init(path: String, purpose: String, readerWait: Double = 5, isPrivate: Bool = false) throws(OutputError) {
    self.path = path
    self.purpose = purpose
    func failure(_ reason: String) -> OutputError {
      OutputError(kind: .cannotCreate, message: "cannot create the \(purpose) \(path): \(reason)")
    }
    if let planted = Self.plantedLink(path) { throw failure(planted) }

    var status = stat()
    if stat(path, &status) == 0 {
      switch status.st_mode & S_IFMT {
      case S_IFDIR:
        throw failure("it is a directory")
      case S_IFREG:
        guard let resolved = realpath(path, nil) else { throw failure(Self.reason(errno)) }
        target = String(cString: resolved)
        free(resolved)
        isStream = false
      default:
        descriptor = try Self.openStream(path, readerWait: readerWait, failure: failure)
        target = path
        temporary = nil
        isStream = true
        mode = 0
        return
      }
    } else {
      let error = errno
      guard error == ENOENT else { throw failure(Self.explain(error, path: path)) }
      target = Self.destination(ofDanglingLink: path) ?? path
      isStream = false
      let directory = FilePaths.folder(of: target)
      if !directory.isEmpty, let problem = Self.makeDirectories(directory) {
        throw failure(problem)
      }
    }

    let directory = FilePaths.folder(of: target)
    let name = FilePaths.lastComponent(of: target)
    var template = Array(((directory.isEmpty ? "." : directory) + "/.\(name).sluice-XXXXXX").utf8CString)
    let opened = template.withUnsafeMutableBufferPointer { buffer in
      buffer.baseAddress.map { mkstemp($0) } ?? -1
    }
    guard opened >= 0 else { throw failure(Self.explain(errno, path: directory)) }
    descriptor = opened
    temporary = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
    // Held until the descriptor closes — by the kernel when the process dies, even by SIGKILL:
    // a staging file nobody holds is one a killed run left (`removeAbandonedStagingFiles`).
    flock(opened, LOCK_EX | LOCK_NB)
    // mkstemp creates the file 0600, which it stays until `publish` gives it its mode: that of
    // the file it replaces, or of a new file, without the write bits of the group and others.
    if isPrivate {
      mode = 0o600
    } else {
      mode = (status.st_mode & S_IFMT == S_IFREG ? status.st_mode & 0o777 : Self.newFileMode) & ~0o022
    }
  }

  /// A file only this process can read, for what a run keeps on the side (a parallel lane's
  /// rejected records): made by `mkstemp` (mode 0600) in a new directory of its own made by
  /// `mkdtemp` (mode 0700) under the temporary directory, so no other user can name it in
  /// advance, read it, or put a FIFO or a link in its place. Both go when the file does; it is
  /// never published.
  package static func privateSpool(purpose: String) throws(OutputError) -> OutputFile {
    var template = Array((NSTemporaryDirectory() + "/sluice-spool-XXXXXX").utf8CString)
    let made = template.withUnsafeMutableBufferPointer { buffer in buffer.baseAddress.flatMap { mkdtemp($0) } }
    guard made != nil else {
      throw OutputError(kind: .cannotCreate, message: "cannot create the \(purpose): \(reason(errno))")
    }
    let directory = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
    do {
      let file = try OutputFile(path: directory + "/spool", purpose: purpose, isPrivate: true)
      file.privateDirectory = directory
      return file
    } catch {
      rmdir(directory)
      throw error
    }
  }

  /// Opens a FIFO, device or socket for writing without blocking on a FIFO that nobody reads:
  /// `O_NONBLOCK` makes that open fail with `ENXIO` at once, so it is retried until a reader
  /// comes or `readerWait` seconds have passed; then writes block again as usual.
  private static func openStream(
    _ path: String, readerWait: Double, failure: (String) -> OutputError
  ) throws(OutputError) -> Int32 {
    let deadline = Date().addingTimeInterval(max(readerWait, 0))
    while true {
      let opened = open(path, O_WRONLY | O_CLOEXEC | O_NONBLOCK)
      if opened >= 0 {
        let flags = fcntl(opened, F_GETFL)
        if flags >= 0 { _ = fcntl(opened, F_SETFL, flags & ~O_NONBLOCK) }
        return opened
      }
      let code = errno
      guard code == ENXIO || code == EINTR else { throw failure(reason(code)) }
      if code == ENXIO && Date() >= deadline {
        let seconds = readerWait == readerWait.rounded() ? "\(Int(readerWait))" : "\(readerWait)"
        throw failure("no process opened this FIFO for reading within \(seconds) s")
      }
      usleep(20_000)
    }
  }

  deinit {
    if !isClosed { close(descriptor) }
    if !isPublished, let temporary { unlink(temporary) }
    if let privateDirectory { rmdir(privateDirectory) }
  }

  /// Appends bytes, writing them out once a megabyte has gathered.
  public func write<Bytes: Sequence<UInt8>>(_ bytes: Bytes) throws(OutputError) {
    let before = buffer.count
    buffer.append(contentsOf: bytes)
    byteCount += buffer.count - before
    if buffer.count >= Self.bufferLimit { try flush() }
  }

  /// Appends a string's UTF-8 bytes.
  public func write(_ text: String) throws(OutputError) {
    let before = buffer.count
    buffer.append(contentsOf: text.utf8)
    byteCount += buffer.count - before
    if buffer.count >= Self.bufferLimit { try flush() }
  }

  /// Appends data.
  public func write(_ data: Data) throws(OutputError) {
    buffer.append(contentsOf: data)
    byteCount += data.count
    if buffer.count >= Self.bufferLimit { try flush() }
  }

  /// Copies the bytes `range` of what was written so far into `other`: a parallel run's lane
  /// spools its rejects in a file of its own, copied into the run's in input order.
  package func copy(_ range: Range<Int>, to other: OutputFile) throws(OutputError) {
    try flush()
    var chunk = [UInt8](repeating: 0, count: min(Self.bufferLimit, max(range.count, 1)))
    var offset = range.lowerBound
    while offset < range.upperBound {
      let wanted = min(chunk.count, range.upperBound - offset)
      let read = chunk.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, wanted, off_t(offset)) }
      guard read > 0 else { throw writeError(read < 0 ? errno : EIO) }
      try other.write(chunk[0..<read])
      offset += read
    }
  }

  /// The temporary file the content goes to until `publish` (nil for a stream): a checkpointed
  /// run names it in its checkpoint, so that a resumed run finds the rejects written so far.
  package var stagingPath: String? { temporary }

  /// Appends the first `count` bytes of the file at `path`: the rejects a checkpointed run wrote
  /// before it was interrupted, taken over by the run that resumes it.
  package func append(prefix count: Int, ofFileAt path: String) throws(OutputError) {
    let source = open(path, O_RDONLY | O_CLOEXEC)
    guard source >= 0 else { throw writeError(errno) }
    defer { close(source) }
    var chunk = [UInt8](repeating: 0, count: min(Self.bufferLimit, max(count, 1)))
    var offset = 0
    while offset < count {
      let wanted = min(chunk.count, count - offset)
      let read = chunk.withUnsafeMutableBytes { pread(source, $0.baseAddress, wanted, off_t(offset)) }
      guard read > 0 else { throw writeError(read < 0 ? errno : EIO) }
      try write(chunk[0..<read])
      offset += read
    }
  }

  /// Writes out what is buffered.
  public func flush() throws(OutputError) {
    if let failure { throw failure }
    guard !buffer.isEmpty else { return }
    let code = buffer.withUnsafeBytes { Self.writeAll($0, to: descriptor) }
    buffer.removeAll(keepingCapacity: buffer.count <= Self.bufferLimit)
    if let code {
      failure = writeError(code)
      throw writeError(code)
    }
  }

  /// Drops everything written so far, so the file can be written anew (a report staged for a
  /// commit that then failed). A stream keeps what it was sent.
  public func rewind() throws(OutputError) {
    buffer.removeAll(keepingCapacity: false)
    guard !isStream else { return }
    failure = nil
    guard byteCount > 0 else { return }
    byteCount = 0
    guard ftruncate(descriptor, 0) == 0, lseek(descriptor, 0, SEEK_SET) == 0 else { throw writeError(errno) }
  }

  /// Writes out everything and, for a regular file, syncs it to disk, so that only the rename
  /// remains: called before a run commits, so a full disk rolls the run back.
  public func prepare() throws(OutputError) {
    try flush()
    guard !isStream else { return }
    if fsync(descriptor) != 0 { throw writeError(errno) }
  }

  /// Makes the content visible at the path: renames the temporary file over the target, or
  /// closes the stream.
  public func publish() throws(OutputError) {
    try prepare()
    // A file system that keeps no modes (vfat, some network mounts) refuses: the file then
    // stays as mkstemp made it, 0600, and is published all the same — after a commit.
    if !isStream { _ = fchmod(descriptor, mode) }
    isClosed = true
    let closed = close(descriptor)
    if closed != 0 { throw writeError(errno) }
    guard let temporary else {
      isPublished = true
      return
    }
    guard rename(temporary, target) == 0 else { throw writeError(errno) }
    isPublished = true
  }

  /// Removes the staging files a killed run left beside this file's target: its siblings named
  /// as `mkstemp` names them (`.NAME.sluice-XXXXXX`), regular files of this user that no process
  /// holds (a running one keeps an exclusive `flock` on its own until it ends) and that are at
  /// least `minimumAge` seconds old (one just made may not be locked yet). They hold a killed
  /// run's rejects — record values — or reports that never became true. Returns how many went.
  ///
  /// Only for a run that committed: an interrupted checkpointed run's rejects staging is what its
  /// `--resume` continues from, and a committed run of the same pipeline means there is none
  /// (a resume's commits let the interrupted run's go themselves). Another pipeline writing the
  /// same rejects path while its own run is unfinished would lose it: its resume then refuses.
  @discardableResult
  package func removeAbandonedStagingFiles(minimumAge: Double = 60) -> Int {
    guard !isStream else { return 0 }
    let directory = FilePaths.folder(of: target)
    let prefix = ".\(FilePaths.lastComponent(of: target)).sluice-"
    let place = directory.isEmpty ? "." : directory
    guard let names = try? FileManager.default.contentsOfDirectory(atPath: place) else { return 0 }
    let now = Date().timeIntervalSince1970
    var removed = 0
    for name in names where name.hasPrefix(prefix) && name.utf8.count == prefix.utf8.count + 6 {
      let path = place + "/" + name
      guard path != temporary else { continue }
      let file = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
      guard file >= 0 else { continue }
      defer { close(file) }
      var status = stat()
      guard fstat(file, &status) == 0, status.st_mode & S_IFMT == S_IFREG, status.st_uid == getuid(),
        now - Double(status.st_mtim.tv_sec) >= minimumAge, flock(file, LOCK_EX | LOCK_NB) == 0
      else { continue }
      if unlink(path) == 0 { removed += 1 }
    }
    return removed
  }

  /// Writes all of `bytes` to a file descriptor, retrying interrupted and partial writes; the
  /// `errno` of the write that failed, or nil.
  public static func writeAll(_ bytes: UnsafeRawBufferPointer, to descriptor: Int32) -> Int32? {
    var offset = 0
    while offset < bytes.count {
      let written = Glibc.write(descriptor, bytes.baseAddress.map { $0 + offset }, bytes.count - offset)
      if written < 0 {
        if errno == EINTR { continue }
        return errno
      }
      offset += written
    }
    return nil
  }

  private func writeError(_ code: Int32) -> OutputError {
    OutputError(kind: .io, message: "cannot write the \(purpose) \(path): \(Self.reason(code))")
  }

  // MARK: - Paths and reasons

  /// The mode a new file gets under the process's umask, read once: `umask` can only be read
  /// by setting it, which must not race with files other threads create. 0644, not 0666: an
  /// output is never writable by others, whatever the umask.
  private static let newFileMode: mode_t = {
    let mask = umask(0o022)
    umask(mask)
    return 0o644 & ~mask
  }()

  /// Why `path` must not be followed, when it is a symbolic link — or a chain of them — that
  /// another user may have planted: a link in a sticky folder anyone may write into (`/tmp`),
  /// owned by neither this process's user nor the folder's owner. That is the rule of the
  /// kernel's `protected_symlinks` (which refuses such a link with `EACCES` where it is on),
  /// kept where it is off: otherwise whoever made the link chooses the file a run overwrites.
  static func plantedLink(_ path: String) -> String? {
    var link = path
    for _ in 0..<8 {
      var status = stat()
      guard lstat(link, &status) == 0, status.st_mode & S_IFMT == S_IFLNK else { return nil }
      var folder = stat()
      let directory = FilePaths.folder(of: link)
      if stat(directory.isEmpty ? "." : directory, &folder) == 0, folder.st_mode & S_ISVTX != 0,
        folder.st_mode & S_IWOTH != 0, status.st_uid != geteuid(), status.st_uid != folder.st_uid
      {
        let place = link == path ? "" : " (\(link), where the link leads)"
        return
          "it is a symbolic link\(place) owned by user \(status.st_uid), in \(directory.isEmpty ? "." : directory), a sticky folder anyone may write into that user does not own: another user may have planted it there, so it is not followed (the kernel's protected_symlinks rule)"
      }
      guard let destination = try? FileManager.default.destinationOfSymbolicLink(atPath: link) else { return nil }
      link = destination.hasPrefix("/") ? destination : FilePaths.joined(directory, destination)
    }
    return nil
  }

  /// `strerror`'s text, starting lower-case so it reads inside a sentence.
  static func reason(_ code: Int32) -> String {
    guard let text = strerror(code) else { return "error \(code)" }
    let reason = String(cString: text)
    return reason.prefix(1).lowercased() + reason.dropFirst()
  }

  /// The reason for `code`, naming the parent that is a file when that is the problem.
  static func explain(_ code: Int32, path: String) -> String {
    if code == ENOTDIR, let file = firstNonDirectory(in: path) {
      return "\(file) is a file, not a directory"
    }
    return reason(code)
  }

  /// Creates `directory` and its missing parents; the reason when one cannot be created.
  static func makeDirectories(_ directory: String) -> String? {
    var status = stat()
    if stat(directory, &status) == 0 {
      return status.st_mode & S_IFMT == S_IFDIR ? nil : "\(directory) is a file, not a directory"
    }
    guard errno == ENOENT else { return explain(errno, path: directory) }
    let parent = FilePaths.folder(of: directory)
    if !parent.isEmpty, parent != directory, let problem = makeDirectories(parent) { return problem }
    // 0755, not 0777: a folder made for an output is never writable by others, whatever the umask.
    guard mkdir(directory, 0o755) == 0 || errno == EEXIST else {
      return "cannot create the directory \(directory): \(explain(errno, path: directory))"
    }
    return nil
  }

  /// The first existing component of `path` that is not a directory.
  static func firstNonDirectory(in path: String) -> String? {
    var prefix = path.hasPrefix("/") ? "" : "."
    for component in path.split(separator: "/", omittingEmptySubsequences: true) {
      prefix += "/" + component
      var status = stat()
      if stat(prefix, &status) != 0 { return nil }
      if status.st_mode & S_IFMT != S_IFDIR { return prefix.hasPrefix("./") ? String(prefix.dropFirst(2)) : prefix }
    }
    return nil
  }

  /// Where a symbolic link that points at nothing yet would lead, so writing through it creates
  /// its target instead of replacing the link.
  static func destination(ofDanglingLink path: String) -> String? {
    var status = stat()
    guard lstat(path, &status) == 0, status.st_mode & S_IFMT == S_IFLNK,
      let destination = try? FileManager.default.destinationOfSymbolicLink(atPath: path)
    else { return nil }
    if destination.hasPrefix("/") { return destination }
    return FilePaths.joined(FilePaths.folder(of: path), destination)
  }
}

/// An output that cannot be created (exit 73) or written (exit 74).
package struct OutputError: Error, Sendable, CustomStringConvertible {
  public enum Kind: Sendable {
    /// The path cannot be opened or created: a missing permission, a parent that is a file.
    case cannotCreate
    /// Writing failed part-way: a full disk, a closed pipe, a file-size limit.
    case io
  }

  public var kind: Kind
  public var message: String

  public init(kind: Kind, message: String) {
    self.kind = kind
    self.message = message
  }

  public var description: String { message }
}
