internal import CLibCrypto
internal import CLibXML2
internal import CZlib

/// A C library the program runs against, with the version the library reports at run time —
/// not the one its headers had at build time — for `sluice --version`.
///
/// An operator who installed the binary from a package asks which SQLite or libpq it actually
/// loaded (a security fix, a behaviour that changed). Each target reports the libraries it links:
/// the engine zlib, libxml2 and libcrypto (`engine`); a store driver and a remote transport
/// theirs (`StoreDriver.linkedLibraries`, `RemoteInputs.linkedLibraries`).
public struct LinkedLibrary: Sendable, Hashable {
  /// The library's usual name: `SQLite`, `libpq`.
  public var name: String
  /// Its version as it reports it, dotted: `3.40.1`.
  public var version: String

  public init(name: String, version: String) {
    self.name = name
    self.version = version
  }

  /// The libraries the engine links: zlib (`zlibVersion`), libxml2 (`xmlParserVersion`) and
  /// libcrypto (`OpenSSL_version`).
  public static var engine: [LinkedLibrary] {
    [
      LinkedLibrary(name: "zlib", version: String(cString: zlibVersion())),
      LinkedLibrary(name: "libxml2", version: dotted(libxml2: String(cString: sluice_xmlParserVersion()))),
      LinkedLibrary(name: "libcrypto", version: String(cString: OpenSSL_version(Int32(OPENSSL_VERSION_STRING)))),
    ]
  }

  /// libxml2's `xmlParserVersion`, `"20914"`, as `2.9.14` (major × 10000 + minor × 100 + patch);
  /// a string that is no such number is kept as it is.
  static func dotted(libxml2 version: String) -> String {
    guard let number = Int(version), number >= 0 else { return version }
    return "\(number / 10000).\(number / 100 % 100).\(number % 100)"
  }
}
