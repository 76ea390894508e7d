import SluiceCore

/// Orders with their customer and line items → `orders`, `order_items`, `customers`, and the
/// enum-owned `order_statuses`. Orders are where correctness matters most (seed 002): the
/// nightly pipeline is strict, an unknown status is never mapped to a normal one.
public struct OrdersDataset: Dataset {
  public init() {}

  public var name: String { "orders" }
  public var summary: String { "orders with customers and line items → orders, order_items, customers" }
  public var tables: [String] { ["orders", "order_items", "customers", "order_statuses"] }

  public var migrations: [Migration] {
    [
      Migration(
        "orders-1-create",
        sql: LookupTable.createStatement(for: OrderStatus.self) + """

          CREATE TABLE customers (
            customer_id INTEGER NOT NULL PRIMARY KEY,
            name TEXT NOT NULL
          ) STRICT;
          CREATE TABLE orders (
            order_id TEXT NOT NULL PRIMARY KEY,
            amount_minor INTEGER NOT NULL,
            currency TEXT NOT NULL CHECK (length(currency) = 3),
            status_id INTEGER NOT NULL REFERENCES order_statuses (id),
            created_at TEXT NOT NULL,
            customer_id INTEGER NOT NULL REFERENCES customers (customer_id)
          ) STRICT;
          CREATE TABLE order_items (
            order_id TEXT NOT NULL REFERENCES orders (order_id) ON DELETE CASCADE,
            line INTEGER NOT NULL CHECK (line >= 1),
            sku TEXT NOT NULL,
            qty INTEGER NOT NULL CHECK (qty >= 1),
            price_minor INTEGER NOT NULL CHECK (price_minor >= 0),
            PRIMARY KEY (order_id, line)
          ) STRICT, WITHOUT ROWID;
          """),
      Migration(
        "orders-2-index-by-customer", sql: "CREATE INDEX orders_by_customer ON orders (customer_id)",
        isDeferrableIndex: true),
    ]
  }

  static let idNotBlank = ValidationRule("orderId is not blank", message: "must not be blank")
  static let currencyCode = ValidationRule(
    "currency is a three-letter code", message: "must be three uppercase letters (ISO 4217)")
  static let hasItems = ValidationRule("orders have at least one item", message: "must list at least one item")
  static let quantityPositive = ValidationRule("item quantities are at least 1", code: .outOfRange, message: "must be at least 1")
  static let priceNotNegative = ValidationRule("item prices are not negative", code: .outOfRange, message: "must not be negative")
  static let skuNotBlank = ValidationRule("item SKUs are not blank", message: "must not be blank")
  static let customerNameNotBlank = ValidationRule("customer names are not blank", message: "must not be blank")

  public var rules: [ValidationRule] {
    [
      Self.idNotBlank, Self.currencyCode, Self.hasItems, Self.quantityPositive, Self.priceNotNegative,
      Self.skuNotBlank, Self.customerNameNotBlank,
    ]
  }

  public func validate(_ order: OrderDTO, into validation: inout Validation) {
    validation.checkNotBlank(Self.idNotBlank, order.identifier, at: "orderId")
    validation.checkCharacters(
      Self.currencyCode, order.currency, length: 3...3, where: { $0 >= "A" && $0 <= "Z" }, at: "currency")
    validation.check(Self.hasItems, !order.items.isEmpty, at: "items")
    validation.checkNotBlank(Self.customerNameNotBlank, order.customer.name, at: "customer.name")
    for (index, item) in order.items.enumerated() {
      validation.check(Self.quantityPositive, item.qty >= 1, at: "items[\(index)].qty")
      validation.check(Self.priceNotNegative, item.priceMinor >= 0, at: "items[\(index)].priceMinor")
      validation.checkNotBlank(Self.skuNotBlank, item.sku, at: "items[\(index)].sku")
    }
  }

  public func map(_ order: OrderDTO) throws(MappingError) -> Order {
    guard let status = OrderStatus(rawValue: order.status) else {
      throw MappingError(
        code: .unsupportedEnumValue, path: "status",
        message: "not an order status this version knows (\(OrderStatus.allCases.map(\.rawValue).joined(separator: ", ")))")
    }
    return Order(
      id: order.identifier, amountMinor: order.amountMinor, currency: order.currency, status: status,
      createdAt: Timestamp(order.createdAt), customer: Customer(id: order.customer.id, name: order.customer.name),
      items: order.items.map { OrderItem(sku: $0.sku, quantity: $0.qty, priceMinor: $0.priceMinor) })
  }

  public func synchronizeLookups(_ connection: SQLiteConnection) throws {
    try LookupTable.synchronize(OrderStatus.self, in: connection)
  }

  public func makeLoader(connection: SQLiteConnection, conflict: ConflictPolicy) throws -> OrdersLoader {
    try OrdersLoader(connection: connection, conflict: conflict)
  }
}
