internal import CCurl
import Foundation
@_spi(Internals) import SluiceCore

/// A remote object's bytes, read once and in order whatever breaks on the way.
///
/// A transfer that breaks mid-body (a reset, a stall, a connection closed short) is continued
/// from the byte reached with `Range: bytes=N-`, guarded by the object's ETag (`If-Match`), so
/// a large dump does not start over and an object replaced between two ranges is refused
/// (`InputError.changed`), never spliced: a 412, another ETag or another size all say so.
final class ObjectStream: ByteSource {
  let request: RemoteRequest
  let options: RemoteOptions
  private(set) var object: RemoteObject
  private var transfer: CurlTransfer?
  private var offset: Int64 = 0
  /// Bytes to drop from a resumed transfer whose server answered the whole object (200).
  private var discard: Int64 = 0
  private var retry: RetrySchedule

  init(request: RemoteRequest, options: RemoteOptions, counter: RetryCounter? = nil) throws {
    self.request = request
    self.options = options
    retry = RetrySchedule(options: options, counter: counter)
    object = RemoteObject(url: request.name)
    let (transfer, response) = try Self.start(request, options: options, retry: &retry, resumingAt: nil)
    self.transfer = transfer
    object.etag = response.etag
    object.size = response.contentLength
    object.lastModified = response.lastModified
  }

  func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
    guard buffer.count > 0 else { return 0 }
    while true {
      if transfer == nil { try resume() }
      guard let transfer else { continue }
      do {
        let n = try transfer.read(into: buffer)
        if n == 0 {
          if let size = object.size, offset < size {
            try broke("the server ended the body at byte \(offset) of \(size)")
            continue
          }
          return 0
        }
        if discard > 0 {
          let dropped = min(Int64(n), discard)
          discard -= dropped
          if dropped == Int64(n) { continue }
          let kept = n - Int(dropped)
          let base = buffer.baseAddress.map { UnsafeMutableRawPointer($0) }
          if let base { memmove(base, base + Int(dropped), kept) }
          offset += Int64(kept)
          retry.progressed()
          return kept
        }
        offset += Int64(n)
        retry.progressed()
        return n
      } catch let failure as CurlTransfer.Failure {
        try broke("the transfer broke at byte \(offset): \(failure.message)")
      }
    }
  }

  /// A break mid-body: waits for the next try, then `read` resumes from the byte reached.
  private func broke(_ problem: String) throws {
    transfer = nil
    try retry.wait(after: problem, name: request.name)
  }

  /// Continues the object from `offset`, refusing it when it is not the object begun.
  ///
  /// The range is guarded by the object's strong ETag (`If-Match`), else by its `Last-Modified`
  /// time (`If-Unmodified-Since`); an object with neither cannot be continued safely, and a
  /// break in it ends the input rather than risk a splice.
  private func resume() throws {
    guard Self.guardHeader(for: object) != nil else {
      throw InputError(
        code: .unreachable, path: request.name,
        message:
          "the transfer broke at byte \(offset) and cannot be continued safely: the server gives the object no strong ETag and no Last-Modified time to guard a range with"
      )
    }
    let (transfer, response) = try Self.start(request, options: options, retry: &retry, resumingAt: (offset, object))
    let total = response.status == 206 ? response.rangeTotal : response.contentLength
    if let etag = object.etag, let now = response.etag, etag != now {
      throw changed("its ETag was \(etag) when the read began and is \(now) at byte \(offset)")
    }
    if let size = object.size, let total, size != total {
      throw changed("it was \(size) bytes when the read began and is \(total) at byte \(offset)")
    }
    discard = response.status == 206 ? 0 : offset
    self.transfer = transfer
  }

  private func changed(_ detail: String) -> InputError {
    InputError(
      code: .changed, path: request.name,
      message:
        "the object was replaced while it was read (\(detail)); its bytes would mix two objects, so it is refused")
  }

  /// Starts a request (ranged from `resumingAt`'s offset, guarded by its ETag) and waits for
  /// its headers, retrying what a retry may cure; throws what it cannot.
  static func start(
    _ request: RemoteRequest, options: RemoteOptions, retry: inout RetrySchedule,
    resumingAt: (offset: Int64, object: RemoteObject)?, headOnly: Bool = false
  ) throws -> (CurlTransfer, CurlTransfer.Response) {
    var headers = request.allHeaders
    if let resumingAt {
      headers.append("Range: bytes=\(resumingAt.offset)-")
      if let guarding = guardHeader(for: resumingAt.object) { headers.append(guarding) }
    }
    while true {
      let transfer = try CurlTransfer(url: request.url, headers: headers, options: options) { easy in
        if headOnly {
          let code = sluice_curl_setopt_long(easy, CURLOPT_NOBODY, 1)
          if code != CURLE_OK { return code }
        }
        return request.configure(easy)
      }
      do throws(CurlTransfer.Failure) {
        try transfer.awaitHeaders()
      } catch {
        guard !error.isTLS else {
          throw InputError(code: .unreachable, path: request.name, message: "TLS failed: \(error.message)")
        }
        try retry.wait(after: error.message, name: request.name)
        continue
      }
      let response = transfer.response
      switch response.status {
      case 200..<300:
        return (transfer, response)
      case 408, 429, 500..<600:
        // Read the error body's code (S3's `<Code>SlowDown</Code>`) before giving up or retrying.
        try? transfer.drain()
        try retry.wait(
          after: "HTTP \(response.status)\(Self.code(transfer.errorBody).map { " \($0)" } ?? "")",
          name: request.name, retryAfter: response.retryAfter)
        continue
      default:
        try? transfer.drain()
        throw refusal(response.status, body: transfer.errorBody, name: request.name, isResuming: resumingAt != nil)
      }
    }
  }

  /// The condition a resumed range is sent with: `If-Match` with a strong ETag (a weak one,
  /// `W/"…"`, never matches under `If-Match`'s strong comparison), else `If-Unmodified-Since`.
  static func guardHeader(for object: RemoteObject) -> String? {
    if let etag = object.etag, !etag.hasPrefix("W/") { return "If-Match: \(etag)" }
    return object.lastModified.map { "If-Unmodified-Since: \($0)" }
  }

  /// The error a non-retryable answer ends the input with.
  static func refusal(_ status: Int, body: [UInt8], name: String, isResuming: Bool) -> InputError {
    let code = Self.code(body)
    let answer = "HTTP \(status)\(code.map { " \($0)" } ?? "")"
    switch status {
    case 404, 410:
      return InputError(code: .notFound, path: name, message: "no such object (\(answer))")
    case 401, 403:
      return InputError(
        code: .denied, path: name,
        message:
          "access denied (\(answer)): the server refused \(name.hasPrefix("s3:") ? "these credentials (AWS_ACCESS_KEY_ID, AWS_PROFILE) for this object" : "to serve this URL")"
      )
    case 412 where isResuming, 416 where isResuming:
      return InputError(
        code: .changed, path: name,
        message:
          "the object was replaced while it was read (\(answer) to the resumed range guarded by its ETag); its bytes would mix two objects, so it is refused"
      )
    default:
      return InputError(code: .unreachable, path: name, message: "the server answered \(answer)")
    }
  }

  /// The `<Code>` of an S3 error body (`NoSuchKey`, `AccessDenied`, `SignatureDoesNotMatch`):
  /// the only part of it shown, for the message may echo the request.
  static func code(_ body: [UInt8]) -> String? {
    let text = String(decoding: body, as: UTF8.self)
    guard let open = text.range(of: "<Code>"),
      let close = text.range(of: "</Code>", range: open.upperBound..<text.endIndex)
    else { return nil }
    let code = text[open.upperBound..<close.lowerBound]
    guard !code.isEmpty, code.count < 64, code.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) else {
      return nil
    }
    return String(code)
  }
}

extension CurlTransfer {
  /// Reads an error response to its end (its body goes to `errorBody`, bounded).
  func drain() throws(Failure) {
    let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 4096, alignment: 1)
    defer { scratch.deallocate() }
    while try read(into: scratch) > 0 {}
  }
}
