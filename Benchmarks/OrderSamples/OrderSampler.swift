import Foundation
@_spi(Internals) import SluiceCore

/// Makes the benchmark's orders: realistic shapes (1–5 lines, names with non-ASCII letters and
/// some with `&`, `<` and `>` as legacy exports have them, zero-padded ids, timestamps with and
/// without milliseconds), the same for the same seed.
public struct OrderSampler: Sendable {
  public static let currencies = ["EUR", "EUR", "USD", "GBP", "JPY", "CHF"]
  public static let statuses = ["pending", "completed", "completed", "completed", "cancelled"]
  static let firstNames = [
    "Zoë", "Ana", "李", "Olu", "Søren", "Chloé", "Mateus", "Aiko", "Ngozi", "Émile", "Ingrid", "Rahul", "<unknown>",
  ]
  static let lastNames = [
    "Müller", "Lima", "雷", "Adeyemi", "Kierkegaard", "Martin", "Souza", "Tanaka", "Okafor", "Zola", "Berg", "Mehta",
    "Fischer & Söhne",
  ]
  /// 2023-01-01T00:00:00Z.
  static let epoch = 1_672_531_200

  private var random: SeededGenerator
  private let customers: Int
  private var index = 0

  /// Orders spread over `customers` customers (a quarter of the order count is typical).
  public init(seed: UInt64, customers: Int) {
    random = SeededGenerator(seed: seed)
    self.customers = max(customers, 1)
  }

  /// A customer's name: a function of the id, so the last write always equals the first.
  public static func customerName(_ id: Int64) -> String {
    let id = Int(id)
    return "\(firstNames[id % firstNames.count]) \(lastNames[(id * 7) % lastNames.count])"
  }

  /// The next order and its instant in seconds since 1970 (milliseconds as the fraction).
  public mutating func next() -> (order: GeneratedOrder, seconds: Int, milliseconds: Int) {
    defer { index += 1 }
    let customer = Int64(Int.random(in: 1...customers, using: &random))
    let items = (0..<Int.random(in: 1...5, using: &random)).map { _ in
      GeneratedOrder.Item(
        sku: "SKU-" + Self.pad(Int.random(in: 0...99_999, using: &random), 5),
        qty: Int.random(in: 1...9, using: &random),
        priceMinor: Int64.random(in: 50...499_999, using: &random))
    }
    let currency = Self.currencies[Int.random(in: 0..<Self.currencies.count, using: &random)]
    let status = Self.statuses[Int.random(in: 0..<Self.statuses.count, using: &random)]
    let seconds = Self.epoch + index * 37 + Int.random(in: 0...36, using: &random)
    let milliseconds = index % 3 == 0 ? Int.random(in: 0...999, using: &random) : 0
    var stamp = String(TimestampText.text(Date(timeIntervalSince1970: Double(seconds))).prefix(19))
    if index % 3 == 0 { stamp += "." + Self.pad(milliseconds, 3) }
    let order = GeneratedOrder(
      id: Self.pad(index + 1, 10), currency: currency, status: status, createdAt: stamp + "Z",
      customerID: customer, customerName: Self.customerName(customer), items: items)
    return (order, seconds, milliseconds)
  }

  public static func pad(_ value: Int, _ width: Int) -> String {
    let text = String(value)
    return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
  }
}
