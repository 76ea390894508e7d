internal import CCurl
@_spi(Internals) import SluiceCore

/// Remote inputs over libcurl: `http://`, `https://` and `s3://bucket/key` (AWS or any
/// S3-compatible server, signed with libcurl's SigV4), streamed, retried and resumed.
///
/// A program registers it with the command line (`Sluice.main(…, remote: [CurlRemoteInputs()])`);
/// one that does not links no libcurl and refuses URLs.
public struct CurlRemoteInputs: RemoteInputs, RemoteRetryCounting {
  /// The retries of every request this transport made (`sluice_remote_retries_total`).
  private let counter = RetryCounter()

  public init() {}

  package var remoteRetries: Int { counter.value }

  public var schemes: [String] { ["http", "https", "s3"] }

  /// The libcurl it runs against (`curl_version_info`).
  public var linkedLibraries: [LinkedLibrary] {
    guard let info = sluice_curl_version_info(), let version = info.pointee.version else { return [] }
    return [LinkedLibrary(name: "libcurl", version: String(cString: version))]
  }

  @_spi(Internals) public func open(_ url: String, options: RemoteOptions) throws -> RemoteStream {
    let stream = try ObjectStream(
      request: try RemoteRequest.object(url, options: options), options: options, counter: counter)
    return RemoteStream(source: stream, object: stream.object)
  }

  public func head(_ url: String, options: RemoteOptions) throws -> RemoteObject {
    let request = try RemoteRequest.object(url, options: options)
    var retry = RetrySchedule(options: options, counter: counter)
    let (transfer, response) = try ObjectStream.start(
      request, options: options, retry: &retry, resumingAt: nil, headOnly: true)
    try? transfer.drain()
    return RemoteObject(
      url: request.name, etag: response.etag, size: response.contentLength, lastModified: response.lastModified)
  }

  public func list(_ pattern: String, options: RemoteOptions) throws -> [RemoteObject] {
    let name = RemoteURL.redacted(pattern)
    guard KeyPattern.isPattern(name) else { return [try head(pattern, options: options)] }
    guard RemoteURL.scheme(of: pattern) == "s3" else {
      throw InputError(
        code: .unreadable, path: name,
        message: "a pattern needs a listing, which HTTP has not: name each URL, or read the objects from S3")
    }
    let location = try S3Location(pattern)
    let keys = KeyPattern(location.key)
    let listing = S3Listing(
      settings: try S3Settings(options: options, name: name), bucket: location.bucket, options: options, name: name,
      counter: counter)
    return try listing.objects(prefix: keys.literalPrefix, keep: keys.matches)
  }
}
