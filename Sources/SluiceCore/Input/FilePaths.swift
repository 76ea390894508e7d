import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// Paths as the kernel reads them, made absolute for messages and reports.
///
/// Foundation's `standardizingPath` resolves `..` by dropping the previous component and, on
/// Linux, resolves some symbolic links on the way: through a link to `.` (`here -> .`),
/// `here/../data.json` became a file one folder too high. Here `.` and empty components go,
/// and `..` goes back from where the path so far really is (its real path, when it exists):
/// what the kernel would open. Other links stay as written.
package enum FilePaths {
  /// `path` made absolute against `directory` (itself against the working directory when
  /// relative; the working directory when nil); `-` (standard input) and a URL stay as they are.
  public static func absolute(_ path: String, in directory: String? = nil) -> String {
    if path == "-" || RemoteURL.isURL(path) { return path }
    if path.hasPrefix("/") { return normalized(path) }
    let base = directory.map { $0.hasPrefix("/") ? $0 : FileManager.default.currentDirectoryPath + "/" + $0 }
    return normalized((base ?? FileManager.default.currentDirectoryPath) + "/" + path)
  }

  /// The last component of `path`, trailing slashes aside: `b` for `/a/b/`, `a` for `a`, `/`
  /// for `/`, empty for an empty path.
  ///
  /// Written here, not taken from `NSString`: on Linux, Foundation's `lastPathComponent` and
  /// `deletingLastPathComponent` trap on a one-character path without a slash (`-`, `a`,
  /// `a/`), and `-` is a path every command takes.
  public static func lastComponent(of path: String) -> String {
    let trimmed = path.utf8.reversed().drop { $0 == UInt8(ascii: "/") }.count
    if trimmed == 0 { return path.isEmpty ? "" : "/" }
    let body = path.utf8.prefix(trimmed)
    guard let slash = body.lastIndex(of: UInt8(ascii: "/")) else { return String(Substring(body)) }
    return String(Substring(body[body.index(after: slash)...]))
  }

  /// The folder `path` is in, as written: `/a` for `/a/b` and `/a/b/`, `/` for `/a`, empty for a
  /// name without a folder (`a`, `a/`), `/` for `/`.
  public static func folder(of path: String) -> String {
    let trimmed = path.utf8.reversed().drop { $0 == UInt8(ascii: "/") }.count
    if trimmed == 0 { return path.isEmpty ? "" : "/" }
    let body = path.utf8.prefix(trimmed)
    guard let slash = body.lastIndex(of: UInt8(ascii: "/")) else { return "" }
    let folder = body[..<slash].reversed().drop { $0 == UInt8(ascii: "/") }.count
    return folder == 0 ? "/" : String(Substring(body.prefix(folder)))
  }

  /// `name` without its extension: `orders` for `orders.json`, `a.b` for `a.b.c`; a name whose
  /// only dot leads it (`.hidden`) or ends it has none.
  public static func deletingExtension(_ name: String) -> String {
    guard let dot = name.utf8.lastIndex(of: UInt8(ascii: ".")), dot != name.utf8.startIndex,
      name.utf8.index(after: dot) != name.utf8.endIndex
    else { return name }
    return String(Substring(name.utf8[..<dot]))
  }

  /// `name` in `folder` (`name` alone when `folder` is empty).
  public static func joined(_ folder: String, _ name: String) -> String {
    folder.isEmpty ? name : folder.hasSuffix("/") ? folder + name : folder + "/" + name
  }

  /// An absolute path without `.`, empty or `..` components, each `..` taken from the real
  /// location of what precedes it.
  static func normalized(_ path: String) -> String {
    var components: [Substring] = []
    for component in path.split(separator: "/", omittingEmptySubsequences: true) {
      switch component {
      case ".":
        continue
      case "..":
        let sofar = "/" + components.joined(separator: "/")
        if let resolved = realpath(sofar, nil) {
          defer { free(resolved) }
          components = String(cString: resolved).split(separator: "/", omittingEmptySubsequences: true)
            .map { Substring($0) }
        }
        _ = components.popLast()
      default:
        components.append(component)
      }
    }
    return "/" + components.joined(separator: "/")
  }
}
