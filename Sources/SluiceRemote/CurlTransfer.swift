internal import CCurl
import Foundation
@_spi(Internals) import SluiceCore

/// One HTTP request over libcurl's multi interface, its body pulled by the reader.
///
/// No thread and no queue: `read` drives the transfer (`curl_multi_perform`, then
/// `curl_multi_poll` while nothing has arrived) until bytes are there. The write callback copies
/// what curl delivers into a buffer of fixed capacity and, when a delivery does not fit, pauses
/// the transfer; `read` resumes it once it has drained the buffer. So memory is the buffer's,
/// whatever the object's size. curl decodes no `Content-Encoding` (none is asked for): the
/// bytes are the object's, and the engine detects gzip by its magic.
final class CurlTransfer {
  /// Why a transfer ended without its whole body: curl's code and text, for retrying or a message.
  struct Failure: Error {
    var code: CURLcode
    var message: String
    /// A failed TLS handshake or verification: trying again changes nothing.
    var isTLS: Bool {
      [CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CONNECT_ERROR, CURLE_SSL_CACERT_BADFILE, CURLE_SSL_CERTPROBLEM]
        .contains(code)
    }
  }

  /// The status line and the headers Sluice uses of the last response (after redirects).
  struct Response {
    var status = 0
    var etag: String?
    var contentLength: Int64?
    /// The object's whole size from a `Content-Range: bytes a-b/SIZE`.
    var rangeTotal: Int64?
    var lastModified: String?
    var retryAfter: Double?
  }

  private let multi: UnsafeMutableRawPointer
  private let easy: UnsafeMutableRawPointer
  private var headerList: UnsafeMutablePointer<curl_slist>?
  private let capacity: Int
  private var buffer: [UInt8]
  private var start = 0
  private var end = 0
  private var isPaused = false
  private(set) var response = Response()
  private var pendingResponse = Response()
  private(set) var headersComplete = false
  private var finished: CURLcode?
  /// The first bytes of an error response's body (S3's `<Code>`), never handed to the reader.
  private(set) var errorBody: [UInt8] = []
  /// Where curl writes a failure's detail (`CURLOPT_ERRORBUFFER`: "at least CURL_ERROR_SIZE bytes").
  private let curlError: UnsafeMutablePointer<CChar> = {
    let text = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
    text.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
    return text
  }()

  private static let globalInit: CURLcode = curl_global_init(Int(CURL_GLOBAL_DEFAULT))

  /// Prepares a request for `url` with `headers`; `configure` sets anything else (signing,
  /// `HEAD`). Nothing is sent before the first `awaitHeaders` or `read`.
  init(
    url: String, headers: [String], options: RemoteOptions, capacity: Int = 1 << 20,
    configure: (UnsafeMutableRawPointer) -> CURLcode = { _ in CURLE_OK }
  ) throws {
    _ = Self.globalInit
    guard let multi = curl_multi_init() else {
      throw InputError(code: .unreachable, path: RemoteURL.redacted(url), message: "cannot start libcurl")
    }
    guard let easy = curl_easy_init() else {
      curl_multi_cleanup(multi)
      throw InputError(code: .unreachable, path: RemoteURL.redacted(url), message: "cannot start libcurl")
    }
    self.multi = multi
    self.easy = easy
    self.capacity = capacity
    buffer = [UInt8](repeating: 0, count: capacity)
    for header in headers { headerList = curl_slist_append(headerList, header) }
    let context = Unmanaged.passUnretained(self).toOpaque()
    var codes: [CURLcode] = [
      sluice_curl_setopt_string(easy, CURLOPT_URL, url),
      sluice_curl_setopt_pointer(easy, CURLOPT_HTTPHEADER, UnsafeMutableRawPointer(headerList)),
      sluice_curl_setopt_write(
        easy,
        { data, size, count, context in
          guard let data, let context else { return 0 }
          return Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue().received(data, size * count)
        }, context),
      sluice_curl_setopt_header(
        easy,
        { data, size, count, context in
          guard let data, let context else { return 0 }
          Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue().header(data, size * count)
          return size * count
        }, context),
      sluice_curl_setopt_pointer(easy, CURLOPT_ERRORBUFFER, UnsafeMutableRawPointer(curlError)),
      // Redirects within a bound; an `https` URL is never sent on to plain `http`.
      sluice_curl_setopt_long(easy, CURLOPT_FOLLOWLOCATION, 1),
      sluice_curl_setopt_long(easy, CURLOPT_MAXREDIRS, 5),
      sluice_curl_setopt_string(easy, CURLOPT_REDIR_PROTOCOLS_STR, url.hasPrefix("https:") ? "https" : "http,https"),
      sluice_curl_setopt_string(easy, CURLOPT_PROTOCOLS_STR, "http,https"),
      // HTTP/2 over TLS when the server offers it, HTTP/1.1 otherwise.
      sluice_curl_setopt_long(easy, CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_2TLS)),
      // Verification is on by default and stays on: no option turns it off.
      sluice_curl_setopt_long(easy, CURLOPT_SSL_VERIFYPEER, 1),
      sluice_curl_setopt_long(easy, CURLOPT_SSL_VERIFYHOST, 2),
      sluice_curl_setopt_long(easy, CURLOPT_CONNECTTIMEOUT, options.connectTimeoutSeconds),
      // "If the average transfer speed is below LOW_SPEED_LIMIT bytes per second for
      // LOW_SPEED_TIME seconds, libcurl aborts the transfer": a stall, retried as a break.
      sluice_curl_setopt_long(easy, CURLOPT_LOW_SPEED_LIMIT, 1),
      sluice_curl_setopt_long(easy, CURLOPT_LOW_SPEED_TIME, options.stallTimeoutSeconds),
      sluice_curl_setopt_long(easy, CURLOPT_NOSIGNAL, 1),
      sluice_curl_setopt_string(easy, CURLOPT_USERAGENT, "sluice"),
    ]
    if let caBundle = options.caBundle {
      codes.append(sluice_curl_setopt_string(easy, CURLOPT_CAINFO, caBundle))
    }
    codes.append(configure(easy))
    if let failed = codes.first(where: { $0 != CURLE_OK }) {
      let message = String(cString: curl_easy_strerror(failed))
      // Every property is set: the throw runs `deinit`, which releases the handles.
      throw InputError(
        code: .unreachable, path: RemoteURL.redacted(url), message: "libcurl refused a setting: \(message)")
    }
    curl_multi_add_handle(multi, easy)
  }

  deinit {
    curl_multi_remove_handle(multi, easy)
    curl_easy_cleanup(easy)
    curl_multi_cleanup(multi)
    curl_slist_free_all(headerList)
    curlError.deallocate()
  }

  /// Runs the transfer until the response's headers are in (or it ended without any): then
  /// `response` is the final response's, after redirects.
  func awaitHeaders() throws(Failure) {
    while !headersComplete && finished == nil { try pump() }
    if !headersComplete, let finished, finished != CURLE_OK { throw failure(finished) }
  }

  /// Fills the front of `into` with body bytes; 0 at the body's end. Throws when the transfer
  /// broke before (a reset, a stall, a connection closed short of `Content-Length`).
  func read(into target: UnsafeMutableRawBufferPointer) throws(Failure) -> Int {
    while start == end {
      if let finished {
        if finished == CURLE_OK { return 0 }
        throw failure(finished)
      }
      if isPaused {
        isPaused = false
        curl_easy_pause(easy, CURLPAUSE_CONT)
        continue
      }
      try pump()
    }
    let n = min(target.count, end - start)
    buffer.withUnsafeBytes { source in
      target.copyMemory(from: UnsafeRawBufferPointer(rebasing: source[start..<start + n]))
    }
    start += n
    if start == end {
      start = 0
      end = 0
    }
    return n
  }

  /// One round of the multi interface: let curl work, wait for the socket if nothing came.
  private func pump() throws(Failure) {
    var running: Int32 = 0
    let before = end
    let code = curl_multi_perform(multi, &running)
    guard code == CURLM_OK else {
      throw Failure(code: CURLE_RECV_ERROR, message: String(cString: curl_multi_strerror(code)))
    }
    var queued: Int32 = 0
    while let message = curl_multi_info_read(multi, &queued) {
      if message.pointee.msg == CURLMSG_DONE { finished = message.pointee.data.result }
    }
    if finished == nil && running > 0 && end == before && !isPaused {
      _ = curl_multi_poll(multi, nil, 0, 1000, nil)
    }
  }

  private func failure(_ code: CURLcode) -> Failure {
    let detail = String(cString: curlError)
    let text = detail.isEmpty ? String(cString: curl_easy_strerror(code)) : detail
    return Failure(code: code, message: Self.withoutURLs(text))
  }

  /// curl's error text can name the URL it tried (a redirect's target holds a query): shown
  /// without, by dropping any word that looks like a URL.
  private static func withoutURLs(_ text: String) -> String {
    text.split(separator: " ", omittingEmptySubsequences: false)
      .map { RemoteURL.isURL(String($0)) ? RemoteURL.redacted(String($0)) : String($0) }
      .joined(separator: " ")
  }

  private func received(_ data: UnsafeMutablePointer<CChar>, _ count: Int) -> Int {
    guard (200..<300).contains(response.status) else {
      // An error response's body is read for its code (S3's XML), a few KiB at most.
      let room = max(0, 4096 - errorBody.count)
      errorBody += UnsafeRawBufferPointer(start: data, count: min(count, room))
      return count
    }
    if capacity - end < count && start > 0 {
      buffer.withUnsafeMutableBytes { bytes in
        guard let base = bytes.baseAddress else { return }
        memmove(base, base + start, end - start)
      }
      end -= start
      start = 0
    }
    guard capacity - end >= count else {
      // "If your callback function returns CURL_WRITEFUNC_PAUSE it will cause this transfer to
      // become paused": curl hands the same data again once it is resumed.
      isPaused = true
      return sluice_curl_write_pause()
    }
    buffer.withUnsafeMutableBytes { bytes in
      guard let base = bytes.baseAddress else { return }
      memcpy(base + end, data, count)
    }
    end += count
    return count
  }

  private func header(_ data: UnsafeMutablePointer<CChar>, _ count: Int) {
    let line = String(decoding: UnsafeRawBufferPointer(start: data, count: count), as: UTF8.self)
      .trimmingCharacters(in: .whitespacesAndNewlines)
    if line.hasPrefix("HTTP/") {
      // Each response (a redirect's, a 100 Continue's, the last) starts afresh.
      pendingResponse = Response()
      let parts = line.split(separator: " ")
      pendingResponse.status = parts.count > 1 ? Int(parts[1]) ?? 0 : 0
      return
    }
    if line.isEmpty {
      if !(300..<400).contains(pendingResponse.status) && pendingResponse.status >= 200 {
        response = pendingResponse
        headersComplete = true
      }
      return
    }
    guard let colon = line.firstIndex(of: ":") else { return }
    let name = line[..<colon].lowercased()
    let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
    switch name {
    case "etag": pendingResponse.etag = value
    case "content-length": pendingResponse.contentLength = Int64(value)
    case "last-modified": pendingResponse.lastModified = value
    case "retry-after": pendingResponse.retryAfter = Double(value)
    case "content-range":
      if let slash = value.lastIndex(of: "/") {
        pendingResponse.rangeTotal = Int64(value[value.index(after: slash)...])
      }
    default: break
    }
  }
}
