/// Remote inputs in a configuration: a URL pattern (`s3://exports/orders/*.json.gz`) becomes
/// the objects it matches, listed by the transport for its scheme, as a file pattern becomes
/// its files when the spec is read.
extension PipelineConfiguration {
  /// Lists every remote input whose URL has a glob character (`*`, `?`, `**`), each object an
  /// input of its own in key order, carrying its listing's ETag and size (what an incremental
  /// run decides by without a request of its own); an object whose name an `exclude` pattern
  /// matches is left out, with a warning, as a file is. A pattern that matches nothing stays one
  /// input, marked unmatched, as for files. Throws the transport's `InputError`.
  package func listingRemoteInputs() throws -> PipelineConfiguration {
    guard inputs.contains(where: { RemoteURL.isURL($0.path) && Self.isRemotePattern($0.path) }) else { return self }
    var listed = self
    listed.inputs = []
    for input in inputs {
      guard RemoteURL.isURL(input.path), Self.isRemotePattern(input.path) else {
        listed.inputs.append(input)
        continue
      }
      var objects = try remote.transport(for: input.location).list(input.location, options: remote.options)
      objects.removeAll { object in
        let name = FilePaths.lastComponent(of: object.url)
        guard let exclusion = input.exclusions.first(where: { PipelineSpec.matches(name, $0) }) else { return false }
        listed.excludedInputs.append(
          .init(
            path: RemoteURL.redacted(object.url), dataset: input.dataset ?? "", pattern: input.path,
            exclusion: exclusion))
        return true
      }
      guard !objects.isEmpty else {
        var unmatched = input
        unmatched.isUnmatchedPattern = true
        listed.inputs.append(unmatched)
        continue
      }
      for object in objects {
        var one = input
        one.path = RemoteURL.redacted(object.url)
        one.requestURL = nil
        one.pattern = input.path
        one.remoteObject = object
        listed.inputs.append(one)
      }
    }
    return listed
  }

  static func isRemotePattern(_ url: String) -> Bool { url.contains { $0 == "*" || $0 == "?" } }
}
