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
  /// relative; the working directory when nil); `-` (standard input) stays as it is.
  public static func absolute(_ path: String, in directory: String? = nil) -> String {
    if path == "-" { return path }
    if path.hasPrefix("/") { return normalized(path) }
    let base = directory.map { $0.hasPrefix("/") ? $0 : FileManager.default.currentDirectoryPath + "/" + $0 }
    return normalized((base ?? FileManager.default.currentDirectoryPath) + "/" + path)
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
