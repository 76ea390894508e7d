/// A field of a patch import, where a missing key and `null` mean different things (seed 002,
/// section 4): missing leaves the stored value unchanged, `null` clears it, a value sets it.
///
/// Declare DTO fields as `Patch<String>`; the `KeyedDecodingContainer` overload below is what
/// lets a synthesized `init(from:)` see a missing key as `.unchanged` instead of an error.
public enum Patch<Value> {
  case unchanged
  case cleared
  case set(Value)

  /// The new value to store, given the stored one.
  public func applied(to current: Value?) -> Value? {
    switch self {
    case .unchanged: return current
    case .cleared: return nil
    case .set(let value): return value
    }
  }
}

extension Patch: Sendable where Value: Sendable {}
extension Patch: Equatable where Value: Equatable {}
extension Patch: Hashable where Value: Hashable {}

extension Patch: Decodable where Value: Decodable {
  /// Decodes a present value: `null` clears, anything else sets.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.singleValueContainer()
    self = container.decodeNil() ? .cleared : .set(try container.decode(Value.self))
  }
}

extension KeyedDecodingContainer {
  /// A missing key is `.unchanged`; `null` is `.cleared`; a value is `.set`.
  public func decode<Value: Decodable>(_ type: Patch<Value>.Type, forKey key: Key) throws -> Patch<Value> {
    guard contains(key) else { return .unchanged }
    if try decodeNil(forKey: key) { return .cleared }
    return .set(try decode(Value.self, forKey: key))
  }
}
