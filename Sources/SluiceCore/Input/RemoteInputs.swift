/// Where inputs that are not files come from: a transport for URLs such as `https://…` and
/// `s3://bucket/key`, registered by the program the way store drivers are.
///
/// The engine names no transport, so a program that reads only files links no network library:
/// the `sluice` executable hands the command line SluiceRemote's transport; a program without
/// one refuses a URL as an input it cannot open. A transport retries and resumes on its own:
/// the stream `open` returns delivers the object's bytes once, in order, or throws an
/// `InputError` (`notFound` 66, `denied` 77, `changed` 65, anything else 74).
public protocol RemoteInputs: Sendable {
  /// The URL schemes it reads, lowercase, without `://` (`https`, `s3`).
  var schemes: [String] { get }
  /// Opens the object at `url` for reading from its first byte.
  @_spi(Internals) func open(_ url: String, options: RemoteOptions) throws -> RemoteStream
  /// What the object at `url` is, without reading it (an HTTP `HEAD`).
  func head(_ url: String, options: RemoteOptions) throws -> RemoteObject
  /// The objects whose URLs match `pattern` (`*`, `?` within a path component, `**` across),
  /// in key order; a pattern without glob characters is one object.
  func list(_ pattern: String, options: RemoteOptions) throws -> [RemoteObject]
  /// The C libraries the transport links, with the versions they report at run time, which
  /// `sluice --version` lists; none by default.
  var linkedLibraries: [LinkedLibrary] { get }
}

extension RemoteInputs {
  public var linkedLibraries: [LinkedLibrary] { [] }
}

/// A remote object as its server describes it.
public struct RemoteObject: Sendable, Hashable, Codable {
  /// Its URL, as the input names it (never with a query string or credentials).
  public var url: String
  /// The server's entity tag, quotes included, opaque (an S3 multipart upload's `"…-N"` too).
  public var etag: String?
  /// Its size in bytes (compressed, for gzip), when the server says.
  public var size: Int64?
  /// Its `Last-Modified` time as the server wrote it.
  public var lastModified: String?

  public init(url: String, etag: String? = nil, size: Int64? = nil, lastModified: String? = nil) {
    self.url = url
    self.etag = etag
    self.size = size
    self.lastModified = lastModified
  }

  /// Whether `other` is this very object, as its server tells: the same size and ETag — or,
  /// from a server that sends no ETag, the same `Last-Modified` time. Without either, nothing
  /// tells, and it is not.
  public func isSameObject(as other: RemoteObject) -> Bool {
    guard size == other.size else { return false }
    if let etag, let other = other.etag { return etag == other }
    guard etag == nil, other.etag == nil, let lastModified, let otherTime = other.lastModified else { return false }
    return lastModified == otherTime
  }
}

/// An opened remote object: its bytes and what the server said of it when they started.
@_spi(Internals) public struct RemoteStream {
  public var source: any ByteSource
  public var object: RemoteObject

  public init(source: any ByteSource, object: RemoteObject) {
    self.source = source
    self.object = object
  }
}

/// How remote inputs are reached: retries, the CA bundle, an S3-compatible endpoint, and the
/// environment credentials and settings come from (which only the command line reads).
public struct RemoteOptions: Sendable, Hashable {
  /// How many times a failed request is tried again (`--retries`, the spec's `retries`).
  public var retries = 5
  /// A PEM file of certificate authorities to verify servers against, instead of the system's.
  public var caBundle: String?
  /// An S3-compatible server (`http://127.0.0.1:9000`); nil: AWS, or the environment's.
  public var endpoint: String?
  /// The S3 region requests are signed for; nil: the environment's, else `us-east-1`.
  public var region: String?
  /// Buckets addressed as the endpoint's first path component rather than its host name.
  public var pathStyle: Bool?
  /// Seconds to wait for a connection.
  public var connectTimeoutSeconds = 30
  /// Seconds a transfer may go without receiving a byte before it counts as broken.
  public var stallTimeoutSeconds = 60
  /// The first wait before a retry, in seconds; each further one doubles it (with jitter).
  public var initialBackoffSeconds = 0.5
  /// The longest wait between two tries, in seconds, whatever the backoff or `Retry-After`.
  public var maximumBackoffSeconds = 30.0
  /// How many keys one page of an S3 listing asks for; nil: the server's default (1,000).
  public var listPageSize: Int?
  /// `AWS_ACCESS_KEY_ID`, `AWS_PROFILE`, `HOME` and the like, as the process has them.
  public var environment: [String: String] = [:]

  public init() {}
}

/// The transports a program registered, and the options a run reaches remote inputs with.
public struct RemoteAccess: Sendable {
  public var transports: [any RemoteInputs]
  public var options: RemoteOptions

  public init(transports: [any RemoteInputs], options: RemoteOptions = RemoteOptions()) {
    self.transports = transports
    self.options = options
  }

  /// No transport: every URL is refused as an input this program cannot open.
  public static let none = RemoteAccess(transports: [])

  /// The transport for `url`'s scheme.
  public func transport(for url: String) throws -> any RemoteInputs {
    let scheme = RemoteURL.scheme(of: url) ?? ""
    guard let transport = transports.first(where: { $0.schemes.contains(scheme) }) else {
      throw InputError(
        code: .unreadable, path: RemoteURL.redacted(url),
        message: "this program reads no \(scheme):// inputs (it was built without a transport for them)")
    }
    return transport
  }
}

/// URLs as inputs: telling them from paths, and showing them without what must never be shown.
public enum RemoteURL {
  /// The scheme of `text` when it is a URL (`https`, `s3`: letters, digits, `+`, `-`, `.`
  /// before `://`), lowercase; nil for a path.
  public static func scheme(of text: String) -> String? {
    guard let separator = text.range(of: "://") else { return nil }
    let scheme = text[..<separator.lowerBound]
    guard let first = scheme.first, first.isASCII, first.isLetter,
      scheme.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) })
    else { return nil }
    return scheme.lowercased()
  }

  /// Whether `text` names a remote input rather than a file.
  public static func isURL(_ text: String) -> Bool { scheme(of: text) != nil }

  /// `url` as every message, report, ledger row and page shows it: without its query string
  /// and fragment (a presigned URL's signature and credential live there) and without userinfo
  /// (`user:password@`). A path is returned as it is.
  ///
  /// The one function every place that shows or stores an input's name goes through.
  public static func redacted(_ url: String) -> String {
    guard let separator = url.range(of: "://"), scheme(of: url) != nil else { return url }
    var rest = url[separator.upperBound...]
    if let end = rest.firstIndex(where: { $0 == "?" || $0 == "#" }) { rest = rest[..<end] }
    let authorityEnd = rest.firstIndex(of: "/") ?? rest.endIndex
    if let at = rest[..<authorityEnd].lastIndex(of: "@") {
      rest = rest[rest.index(after: at)...]
    }
    return String(url[..<separator.upperBound]) + rest
  }
}
