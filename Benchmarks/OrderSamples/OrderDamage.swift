/// The ways a generated order can be damaged: every value-level violation the orders contract
/// names, as `Benchmarks/generate_orders.py --broken` makes them, applied to the format-neutral
/// record so that JSON and XML carry the same damage.
///
/// Malformed syntax is not among them: a JSON array or an XML document cannot be read past it,
/// so it would not be the same damage in every format (the readers' own tests cover it).
/// `numericID` is damage only in JSON (a number where the contract wants a string, accepted as a
/// counted coercion under `legacyScalars`); in XML every value is text, so it is a valid order.
public enum OrderDamage: String, CaseIterable, Sendable {
  case nullStatus = "null-status"
  case missingCurrency = "missing-currency"
  case unknownStatus = "unknown-status"
  case amountBeyondInt64 = "amount-beyond-int64"
  case fractionalAmount = "fractional-amount"
  case numericID = "numeric-id"
  case emptyItems = "empty-items"
  case zeroQuantity = "zero-quantity"
  case negativePrice = "negative-price"
  case badCurrency = "bad-currency"
  case impossibleDate = "impossible-date"

  /// Which record (0-based) gets which damage in a dump of `count` orders: each kind once,
  /// spread evenly, as the Python generator spreads them.
  public static func schedule(count: Int) -> [Int: OrderDamage] {
    let step = max(count / (allCases.count + 1), 1)
    var damage: [Int: OrderDamage] = [:]
    for (n, kind) in allCases.enumerated() where step * (n + 1) - 1 < count {
      damage[step * (n + 1) - 1] = kind
    }
    return damage
  }

  /// Damages `record`, an order's tree (`GeneratedOrder.record`).
  public func apply(to record: inout DumpValue) {
    switch self {
    case .nullStatus: record[field: "status"] = .null
    case .missingCurrency: record[field: "currency"] = nil
    case .unknownStatus: record[field: "status"] = .text("refunded")
    case .amountBeyondInt64: record[field: "amount"] = .number("9223372036854775808")
    case .fractionalAmount: record[field: "amount"] = .number("1234.5")
    case .numericID:
      if case .text(let id)? = record[field: "orderId"], let number = Int(id) {
        record[field: "orderId"] = .number(String(number))
      }
    case .emptyItems:
      record[field: "items"] = .list(item: "item", [])
    case .zeroQuantity: Self.changeItem(of: &record, first: true) { $0[field: "qty"] = .number("0") }
    case .negativePrice: Self.changeItem(of: &record, first: false) { $0[field: "priceMinor"] = .number("-100") }
    case .badCurrency: record[field: "currency"] = .text("eur")
    case .impossibleDate: record[field: "createdAt"] = .text("2023-02-30T10:00:00Z")
    }
  }

  private static func changeItem(of record: inout DumpValue, first: Bool, _ change: (inout DumpValue) -> Void) {
    guard case .list(let name, var items)? = record[field: "items"], !items.isEmpty else { return }
    change(&items[first ? 0 : items.count - 1])
    record[field: "items"] = .list(item: name, items)
  }
}
